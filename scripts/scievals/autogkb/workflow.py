"""autogkb's rules: rules/stages.smk builds them from :func:`stages` (autogkb has no rule of
its own). Truth: ClinPGx variant-phenotype annotations of the AutoGKB articles (embedded
subset by default, or the ClinPGx zip); text: curated evidence sentences or PMC open-access
full texts (``autogkb.text_mode``)."""

from __future__ import annotations

from scievals.common.experiments import temperature_setting
from scievals.common.selection import limited_params, selection
from scievals.common.workflow import (
    BenchmarkModels,
    Stage,
    folder_of,
    own_file,
    score_outputs,
    stage,
)
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
    """What one predict job needs: its registry entry, the LLM settings, the temperatures and
    the refinement turns (each only when set: the default run's params stay as they were)."""
    out = {"models": {model: config["models"][model]}, "llm": config.get("llm") or {}}
    section = config.get("autogkb") or {}
    setting = dict(temperature_setting(section))
    if section.get("refine_turns"):
        setting["refine_turns"] = section["refine_turns"]
    return {**out, "autogkb": setting} if setting else out


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
            params={"cfg": download_settings(section), "raw_dir": folder_of("output", "source")},
        ),
        "curate": stage(
            "autogkb", "curate",
            input={"source": SOURCE},
            output={"cases": CASES, "report": CURATION_REPORT, "vocabulary": VOCABULARY},
            resources={"mem_mb": 2000, "runtime": 10},
            params={"raw_dir": folder_of("input", "source"),
                    **limited_params(selection(config, "autogkb", "articles"))},
        ),
        "predict_baseline": stage("autogkb", "predict_baseline", **predict),
        "predict_llm": stage("autogkb", "predict_llm", **predict),
        "import": stage(
            "autogkb", "import",
            input={"user": own_file(section, ".json"), "cases": CASES},
            output={"predictions": PREDICTIONS},
        ),
        "score": stage(
            "autogkb", "score",
            input=lambda wildcards: score_inputs(wildcards.model, models.byo),
            output=score_outputs("autogkb", "per_case", "review"),
            resources={"mem_mb": 2000, "runtime": 10},
            params={"threshold": section["threshold"]},
        ),
    }
