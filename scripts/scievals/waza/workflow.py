"""Helpers ``rules/waza.smk`` calls at DAG-build time (kept out of the rules file).

Paths: suites are copied to ``data/raw/waza/suites/<suite>/``; the recorded (ungraded) runs
of one (model, suite) go to ``results/waza/predictions/<model>/<suite>.json``; a
bring-your-own file ``<predictions_dir>/<model>.json`` (one results JSON or a list of them)
is checked and filed into ``results/waza/imported/<model>.json``; the score job grades
either and keeps the graded results in ``results/waza/graded/<model>.json``.
"""

from __future__ import annotations

SUITES_DIR = "data/raw/waza/suites"
DOWNLOAD = "data/raw/waza/source.json"
CASES = "data/curated/waza/cases.jsonl"
CURATION = "data/curated/waza/curation_report.json"
PREDICTIONS = "results/waza/predictions/{model}/{suite}.json"
LLM_RECORDS = "results/waza/predictions/{model}/{suite}.llm.jsonl"
USAGE = "results/waza/predictions/{model}/{suite}.usage.json"  # beside the recorded runs
IMPORTED = "results/waza/imported/{model}.json"
GRADED = "results/waza/graded/{model}.json"


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


def score_settings(config: dict) -> dict:
    """What grading depends on besides code and inputs: waza's task-stats seed and, when
    ``waza.judge_model`` is set, the judge's registry entry and the LLM settings."""
    section = config["waza"]
    judge = section.get("judge_model") or ""
    grading = {"waza": {"judge_model": judge}, "llm": {}, "models": {}}
    if judge:
        grading.update(llm=config.get("llm") or {},
                       models={judge: config["models"][judge]} if judge in config["models"]
                       else {})
    return {"seed": int(section.get("seed") or 0), "config": grading}


def score_inputs(model: str, suites: list[str], byo: list[str], llms: list[str]) -> dict:
    """The recorded runs (or the filed own file) of ``model``, the suites to grade them
    with, and an LLM agent's ``<suite>.usage.json`` files (read beside each suite's runs)."""
    truth = {"source": DOWNLOAD, "suites": SUITES_DIR}
    if model in byo:
        return {"predictions": [IMPORTED.format(model=model)], **truth}
    inputs = {"predictions": [PREDICTIONS.format(model=model, suite=s) for s in suites], **truth}
    if model in llms:
        inputs["usage"] = [USAGE.format(model=model, suite=s) for s in suites]
    return inputs
