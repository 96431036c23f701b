"""Helpers ``rules/waza.smk`` calls at DAG-build time (kept out of the rules file).

Paths: suites are copied to ``data/raw/waza/suites/<suite>/``; one results JSON per
(model, suite) under ``results/waza/predictions/<model>/<suite>.json``; a bring-your-own
file ``<predictions_dir>/<model>.json`` (one results JSON or a list of them) is re-graded
into ``results/waza/imported/<model>.json``.
"""

from __future__ import annotations

SUITES_DIR = "data/raw/waza/suites"
DOWNLOAD = "data/raw/waza/source.json"
CASES = "data/curated/waza/cases.jsonl"
CURATION = "data/curated/waza/curation.json"
PREDICTIONS = "results/waza/predictions/{model}/{suite}.json"
LLM_RECORDS = "results/waza/predictions/{model}/{suite}.llm.jsonl"
IMPORTED = "results/waza/imported/{model}.json"


SOURCE_KEYS = ("source", "url", "sha256", "path", "allow_unverified", "download_timeout_s",
               "max_download_mb", "suites")


def download_settings(section: dict) -> dict:
    """What the suite copy depends on: the data-source keys and the suite names (a change
    of models must not re-copy suites)."""
    return {k: section[k] for k in SOURCE_KEYS}


def predict_config(config: dict, model: str) -> dict:
    """What one predict job reads: the waza section, the LLM settings and the registry
    entries it may use (the model and a judge); API keys stay in the environment."""
    section = config["waza"]
    names = [model] + [section["judge_model"]] if section.get("judge_model") else [model]
    return {"waza": section, "llm": config.get("llm") or {},
            "models": {n: config["models"][n] for n in names if n in config["models"]}}


def score_inputs(model: str, suites: list[str], byo: list[str]) -> dict:
    if model in byo:
        return {"imported": IMPORTED.format(model=model), "download": DOWNLOAD}
    return {"results": [PREDICTIONS.format(model=model, suite=s) for s in suites],
            "download": DOWNLOAD}
