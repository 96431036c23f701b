"""Helpers ``rules/autogkb.smk`` calls at DAG-build time (kept out of the .smk file)."""

from __future__ import annotations

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
