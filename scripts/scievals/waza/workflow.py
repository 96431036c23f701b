"""waza's rules: rules/stages.smk builds them from :func:`stages` (waza has no rule of its
own; its predict rules carry a {suite} wildcard, one job per (model, suite)).

Paths: suites are copied to ``data/raw/waza/suites/<suite>/``; the recorded (ungraded) runs
of one (model, suite) go to ``results/waza/predictions/<model>/<suite>.json``; a
bring-your-own file ``<predictions_dir>/<model>.json`` (one results JSON or a list of them)
is checked and filed into ``results/waza/imported/<model>.json``; the score job grades
either and keeps the graded results in ``results/waza/graded/<model>.json``.
"""

from __future__ import annotations

from scievals.common.selection import item_limit
from scievals.common.workflow import BenchmarkModels, Stage, own_file, score_outputs, stage

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
    limit = item_limit(config, "waza")  # a smoke run: the first N tasks of each suite
    return {"waza": section, "llm": config.get("llm") or {},
            "models": {n: config["models"][n] for n in names if n in config["models"]},
            **({"limit": limit} if limit is not None else {})}


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
    limit = item_limit(config, "waza")  # labels a smoke run's tables
    return {"seed": int(section.get("seed") or 0), "config": grading,
            **({"limit": limit} if limit is not None else {})}


def score_inputs(model: str, suites: list[str], byo: list[str], llms: list[str]) -> dict:
    """The recorded runs (or the filed own file) of ``model``, the suites to grade them
    with, and an LLM agent's ``<suite>.usage.json`` files (read beside each suite's runs)."""
    truth = {"source": DOWNLOAD, "suites": SUITES_DIR}
    if model in byo:
        return {"predictions": [IMPORTED.format(model=model)], **truth}
    inputs = {"predictions": [PREDICTIONS.format(model=model, suite=s) for s in suites], **truth}
    if model in llms:  # not the ScoreJob's one `usage` file: one per suite, read beside its runs
        inputs["run_usage"] = [USAGE.format(model=model, suite=s) for s in suites]
    return inputs


def stages(config: dict, models: BenchmarkModels) -> dict[str, Stage]:
    section = config["waza"]
    suites = list(section["suites"])
    # One job per (model, suite). No SLURM group: one model's suites run in parallel and feed
    # one score job, so grouping them would make one job asking for a CPU per suite (pending
    # forever on small nodes).
    predict = dict(input={"cases": CASES, "suites": SUITES_DIR},
                   log="logs/waza_predict/{model}/{suite}.log",
                   benchmark="logs/benchmarks/waza_predict/{model}/{suite}.tsv",
                   wildcards={"suite": suites}, group=None,
                   params={"config": lambda wildcards: predict_config(config, wildcards.model)})
    return {
        "download": stage(
            "waza", "download",
            output={"source": DOWNLOAD, "suites": SUITES_DIR}, directories=("suites",),
            params={"cfg": download_settings(section)},
        ),
        "curate": stage(
            "waza", "curate",
            input={"source": DOWNLOAD, "suites": SUITES_DIR},
            output={"cases": CASES, "report": CURATION},
            localrule=True, resources={},
        ),
        "predict_baseline": stage("waza", "predict_baseline",
                                  output={"predictions": PREDICTIONS}, **predict),
        "predict_llm": stage("waza", "predict_llm",
                             output={"predictions": PREDICTIONS, "records": LLM_RECORDS,
                                     "usage": USAGE},
                             **predict),
        # Own results, checked and filed by suite (graded by the score job).
        "import": stage(
            "waza", "import",
            input={"user": own_file(section, ".json"), "cases": CASES,
                   "suites": SUITES_DIR},
            output={"predictions": IMPORTED},
            params={"suites": suites},
        ),
        "score": stage(
            "waza", "score",
            input=lambda wildcards: score_inputs(wildcards.model, suites, models.byo,
                                                 models.llms),
            output={**score_outputs("waza", "per_case", "review", "review_page"),
                    "graded": GRADED},
            # the HTML page: the report shows a Markdown file as plain text
            reports={"review_page": {"caption": "../report/waza/review.rst", "category": "waza",
                                "subcategory": "Failed graders per task",
                                "labels": {"benchmark": "waza", "model": "{model}"}}},
            params=score_settings(config),  # ScoreJob.settings: seed, config
        ),
    }
