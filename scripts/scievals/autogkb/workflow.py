"""autogkb's rules: rules/stages.smk builds them from :func:`stages` (autogkb has no rule of
its own). Truth: ClinPGx variant-phenotype annotations of the AutoGKB articles (embedded
subset by default, or the ClinPGx zip); text: curated evidence sentences or PMC open-access
full texts (``autogkb.text_mode``)."""

from __future__ import annotations

from pathlib import Path

from scievals.common.workflow import BenchmarkModels, Stage, stage
from scievals.common.workflow import score_inputs as common_score_inputs

RAW_DIR = "data/raw/autogkb"
SOURCE = f"{RAW_DIR}/source.json"
CASES = "data/curated/autogkb/cases.jsonl"
CURATION_REPORT = "data/curated/autogkb/curation_report.json"
VOCABULARY = "data/curated/autogkb/drug_vocabulary.json"
PREDICTIONS = "results/autogkb/predictions/{model}.jsonl"
USAGE = "results/autogkb/predictions/{model}.usage.json"

DOWNLOAD_KEYS = ("source", "url", "sha256", "path", "allow_unverified", "text_mode", "pmc",
                 "download_timeout_s", "max_download_mb")


def download_settings(section: dict) -> dict:
    return {k: section[k] for k in DOWNLOAD_KEYS}


def predict_config(config: dict, model: str) -> dict:
    """What one predict job needs: its registry entry and the LLM settings."""
    return {"models": {model: config["models"][model]}, "llm": config.get("llm") or {}}


def score_inputs(model: str, byo_models: list[str]) -> dict:
    return common_score_inputs(model, byo_models, {"cases": CASES, "curation": CURATION_REPORT},
                               PREDICTIONS, USAGE)


def stages(config: dict, models: BenchmarkModels) -> dict[str, Stage]:
    section = config["autogkb"]
    predict = dict(input={"cases": CASES, "vocabulary": VOCABULARY},
                   output={"predictions": PREDICTIONS, "usage": USAGE},
                   params={"config": lambda wildcards: predict_config(config, wildcards.model)})
    return {
        "download": stage(
            "autogkb", "download",
            output={"source": SOURCE},
            # raw_dir from the file itself (a hard-coded prefix fails without a shared file
            # system)
            params={"cfg": download_settings(section),
                    "raw_dir": lambda wildcards, output: str(Path(output.source).parent)},
        ),
        "curate": stage(
            "autogkb", "curate",
            input={"source": SOURCE},
            output={"cases": CASES, "report": CURATION_REPORT, "vocabulary": VOCABULARY},
            resources={"mem_mb": 2000, "runtime": 10},
            params={"raw_dir": lambda wildcards, input: str(Path(input.source).parent)},
        ),
        "predict_baseline": stage("autogkb", "predict_baseline", **predict),
        "predict_llm": stage("autogkb", "predict_llm", **predict),
        "import": stage(
            "autogkb", "import",
            input={"user": f"{section['predictions_dir']}/{{model}}.json", "cases": CASES},
            output={"predictions": PREDICTIONS},
        ),
        "score": stage(
            "autogkb", "score",
            input=lambda wildcards: score_inputs(wildcards.model, models.byo),
            output={"table": "results/autogkb/scores/{model}.csv",
                    "per_case": "results/autogkb/scores/{model}.per_case.csv",
                    "review": "results/autogkb/review/{model}.md"},
            resources={"mem_mb": 2000, "runtime": 10},
            params={"threshold": section["threshold"]},
        ),
    }
