"""gating's rules (rules/stages.smk builds them from :func:`stages`; rules/gating.smk adds
``gating_extract``, which reads FlowJo workspaces with flowkit in its own env).

Embedded files are named relative to the working directory when they are inside it, so a
copied or moved checkout finds its outputs up to date (an absolute input path would change
and re-run ``gating_extract`` and everything after it).
"""

from __future__ import annotations

import os
from pathlib import Path

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
from scievals.gating.data import SOURCE_KEYS
from scievals.gating.paths import OMIP_DIR, embedded_workspaces, semantic_installed

SOURCE = "data/raw/gating/source.json"
EXTRACTED = "data/curated/gating/workspaces.jsonl"
EXTRACTION_REPORT = "data/curated/gating/extraction_report.json"
CASES = "data/curated/gating/cases.jsonl"
CURATION_REPORT = "data/curated/gating/curation_report.json"
PREDICTIONS = "results/gating/predictions/{model}.jsonl"
USAGE = "results/gating/predictions/{model}.usage.json"


def portable(path: Path) -> str:
    """``path`` relative to the working directory if it lies inside it, else absolute."""
    path = Path(path).resolve()
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return os.fspath(path)


def workspaces(section: dict) -> list[str]:
    embedded = embedded_workspaces() if section["embedded_workspaces"] else []
    return [portable(p) for p in embedded] + list(section["workspaces"])


def omip_dirs(section: dict) -> list[str]:
    return [portable(OMIP_DIR / name) for name in section["omip_sets"]]


def omip_files(section: dict) -> list[str]:
    return sorted(str(p) for d in omip_dirs(section) for p in Path(d).glob("*.json"))


def download_settings(section: dict) -> dict:
    return {k: section[k] for k in SOURCE_KEYS}


def predict_config(config: dict, model: str) -> dict:
    """What one predict job needs: its registry entry, the LLM settings, the prompt grid and
    the refinement turns."""
    section = config["gating"]
    prompts = {"contexts": section["contexts"], "strategies": section["strategies"]}
    if section.get("refine_turns"):  # only when set: the default run's params stay as they were
        prompts["refine_turns"] = section["refine_turns"]
    return {
        "models": {model: config["models"][model]},
        "llm": config.get("llm") or {},
        "gating": {**prompts, **temperature_setting(section)},
    }


def score_inputs(model: str, byo_models: list[str]) -> dict:
    return common_score_inputs(model, byo_models, {"cases": CASES, "curation": CURATION_REPORT},
                               PREDICTIONS, USAGE)


def stages(config: dict, models: BenchmarkModels) -> dict[str, Stage]:
    section = config["gating"]
    predict = dict(input={"cases": CASES}, output={"predictions": PREDICTIONS, "usage": USAGE},
                   params={"config": lambda wildcards: predict_config(config, wildcards.model)})
    return {
        "download": stage(
            "gating", "download",
            output={"source": SOURCE},
            params={"cfg": download_settings(section), "out_dir": folder_of("output", "source")},
        ),
        "curate": stage(
            "gating", "curate",
            input={"omip": omip_files(section), "extracted": EXTRACTED,
                   "source": SOURCE},  # failed sources, for the dataset label
            output={"cases": CASES, "report": CURATION_REPORT},
            params={"omip_dirs": omip_dirs(section),
                    **limited_params(selection(config, "gating", "cases"))},
        ),
        "predict_baseline": stage("gating", "predict_baseline", **predict),
        "predict_llm": stage("gating", "predict_llm", **predict),
        "import": stage(
            "gating", "import",
            input={"user": own_file(section, ".jsonl"), "cases": CASES},
            output={"predictions": PREDICTIONS},
        ),
        "score": stage(
            "gating", "score",
            input=lambda wildcards: score_inputs(wildcards.model, models.byo),
            output=score_outputs("gating", "per_case", "review"),
            # installing (or removing) the `semantic` extra changes the tables: scored again
            params={"semantic_metrics": semantic_installed()},
        ),
    }
