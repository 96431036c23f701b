"""waza's rules: rules/stages.smk builds them from :func:`stages` (waza has no rule of its
own; its predict rules carry a {suite} wildcard, one job per (model, suite)).

Paths: suites are copied to ``data/raw/waza/suites/<suite>/``; one results JSON per
(model, suite) under ``results/waza/predictions/<model>/<suite>.json``; a bring-your-own
file ``<predictions_dir>/<model>.json`` (one results JSON or a list of them) is re-graded
into ``results/waza/imported/<model>.json``.
"""

from __future__ import annotations

from scievals.common.workflow import BenchmarkModels, Stage, stage

SUITES_DIR = "data/raw/waza/suites"
DOWNLOAD = "data/raw/waza/source.json"
CASES = "data/curated/waza/cases.jsonl"
CURATION = "data/curated/waza/curation_report.json"
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
        return {"predictions": IMPORTED.format(model=model), "source": DOWNLOAD}
    return {"predictions": [PREDICTIONS.format(model=model, suite=s) for s in suites],
            "source": DOWNLOAD}


def stages(config: dict, models: BenchmarkModels) -> dict[str, Stage]:
    section = config["waza"]
    suites = list(section["suites"])
    own = f"{section['predictions_dir']}/{{model}}.json"
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
                             output={"predictions": PREDICTIONS, "records": LLM_RECORDS},
                             **predict),
        # Own results, re-graded with the suites (the import role's code version is the
        # grading's: predict.BASELINE_VERSION).
        "import": stage(
            "waza", "import",
            input={"user": own, "cases": CASES, "suites": SUITES_DIR},
            output={"predictions": IMPORTED},
            params={"suites": suites, "seed": section["seed"]},
        ),
        "score": stage(
            "waza", "score",
            input=lambda wildcards: score_inputs(wildcards.model, suites, models.byo),
            output={"table": "results/waza/scores/{model}.csv",
                    "per_case": "results/waza/scores/{model}.per_case.csv",
                    "review": "results/waza/review/{model}.md"},
            reports={"review": {"caption": "../report/waza/review.rst", "category": "waza",
                                "subcategory": "Failed graders per task",
                                "labels": {"benchmark": "waza", "model": "{model}"}}},
            # the user's file an imported model's results came from (score.score reads it
            # as one import instead of one results file per suite)
            params={"origins": lambda wildcards: [own.format(model=wildcards.model)
                                                  if wildcards.model in models.byo else ""]},
        ),
    }
