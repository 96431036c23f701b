"""Helpers ``rules/gating.smk`` calls at DAG-build time (kept out of the .smk file).

Embedded files are named relative to the working directory when they are inside it, so a
copied or moved checkout finds its outputs up to date (an absolute input path would change
and re-run ``gating_extract`` and everything after it).
"""

from __future__ import annotations

import os
from pathlib import Path

from scievals.gating.data import SOURCE_KEYS
from scievals.gating.paths import OMIP_DIR, embedded_workspaces

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
    """What one predict job needs: its registry entry, the LLM settings and the prompt grid."""
    section = config["gating"]
    return {
        "models": {model: config["models"][model]},
        "llm": config.get("llm") or {},
        "gating": {"contexts": section["contexts"], "strategies": section["strategies"]},
    }


def score_inputs(model: str, byo_models: list[str]) -> dict:
    inputs = {"cases": CASES, "curation": CURATION_REPORT,
              "predictions": PREDICTIONS.format(model=model)}
    if model not in byo_models:
        inputs["usage"] = USAGE.format(model=model)
    return inputs
