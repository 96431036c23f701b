"""Score tables of one model: results JSONs (one per suite) -> long-format rows.

One row per (suite, metric): ``pass_rate`` (waza's ``summary.success_rate``: tasks whose
every run passed), ``weighted_score`` and ``aggregate_score`` (means over tasks of the
average weighted / unweighted run scores), ``run_pass_rate`` (runs that passed), and with
trigger tests ``trigger_accuracy``/``trigger_precision``/``trigger_recall``/``trigger_f1``.
CIs (percentile bootstrap over tasks, seeded) only when tasks ran >= 2 times, as in waza.
The dataset is the suite's folder name (``<suite>-demo`` for the embedded suites); its
sha256 covers every file of the suite.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from scievals.common.io import read_json, write_csv, write_text
from scievals.common.jobs import ScoreJob
from scievals.common.provenance import Provenance
from scievals.common.stats import mean_ci
from scievals.common.tables import result_rows, write_result_table
from scievals.waza.replay import read_results

PER_CASE_COLUMNS = ["suite", "task_id", "display_name", "status", "runs", "pass_rate",
                    "avg_score", "avg_weighted_score", "std_dev_score", "flaky", "errors"]


def _ci(values: Sequence[float], runs_per_task: int, bootstrap: Mapping) -> tuple:
    if runs_per_task < 2 or len(values) < 2:
        return (None, None)
    return mean_ci(values, int(bootstrap["n_resamples"]), int(bootstrap["seed"]))


def suite_metrics(outcome: Mapping, bootstrap: Mapping) -> list[dict]:
    tasks = outcome["tasks"]
    summary = outcome["summary"]
    runs_per_task = min((len(t["runs"]) for t in tasks), default=0)
    n = len(tasks)
    task_passed = [1.0 if t["status"] == "passed" else 0.0 for t in tasks]
    weighted = [t["stats"]["avg_weighted_score"] for t in tasks]
    scores = [t["stats"]["avg_score"] for t in tasks]
    all_runs = [r for t in tasks for r in t["runs"]]
    rows = []
    for metric, value, values in (("pass_rate", summary["success_rate"], task_passed),
                                  ("weighted_score", summary["weighted_score"], weighted),
                                  ("aggregate_score", summary["aggregate_score"], scores)):
        low, high = _ci(values, runs_per_task, bootstrap)
        rows.append({"metric": metric, "value": value, "ci_low": low, "ci_high": high, "n": n})
    run_pass = [1.0 if r["status"] == "passed" else 0.0 for r in all_runs]
    rows.append({"metric": "run_pass_rate", "value": statistics.fmean(run_pass) if run_pass
                 else 0.0, "n": len(run_pass)})
    trigger = outcome.get("trigger_metrics")
    if trigger:
        n_prompts = len(outcome.get("trigger_results") or []) or None
        for key, metric in (("accuracy", "trigger_accuracy"), ("precision", "trigger_precision"),
                            ("recall", "trigger_recall"), ("f1_score", "trigger_f1")):
            rows.append({"metric": metric, "value": trigger[key], "n": n_prompts})
    return rows


def per_case(suite: str, outcome: Mapping) -> list[dict]:
    rows = []
    for task in outcome["tasks"]:
        stats = task["stats"]
        rows.append({"suite": suite, "task_id": task["test_id"],
                     "display_name": task.get("display_name", ""), "status": task["status"],
                     "runs": len(task["runs"]), "pass_rate": stats["pass_rate"],
                     "avg_score": stats["avg_score"],
                     "avg_weighted_score": stats["avg_weighted_score"],
                     "std_dev_score": stats["std_dev_score"], "flaky": stats["flaky"],
                     "errors": sum(1 for r in task["runs"] if r["status"] == "error")})
    return rows


def review(model: str, outcomes: Mapping[str, Mapping]) -> str:
    """Markdown: per task, every failed grader with its feedback (and run errors)."""
    lines = [f"# waza review: {model}", ""]
    for suite, outcome in outcomes.items():
        summary = outcome["summary"]
        lines += [f"## {suite} ({outcome.get('eval_name', suite)})", "",
                  (f"{summary['succeeded']}/{summary['total_tests']} tasks passed, "
                   f"weighted score {summary['weighted_score']:.3f}."), ""]
        failures = 0
        for task in outcome["tasks"]:
            for run in task["runs"]:
                problems = [f"`{name}` ({v['type']}, score {v['score']:.2f}): {v['feedback']}"
                            for name, v in (run.get("validations") or {}).items()
                            if not v["passed"]]
                if run.get("error_msg"):
                    problems.insert(0, f"run error: {run['error_msg']}")
                if problems:
                    failures += 1
                    lines.append(f"- **{task['test_id']}** run {run['run_number']} "
                                 f"({run['status']})")
                    lines += [f"  - {p}" for p in problems]
        if not failures:
            lines.append("Every grader passed in every run.")
        lines.append("")
    return "\n".join(lines)


def outcomes_of(results: list[str | Path] | None = None,
                imported: str | Path | None = None) -> dict[str, dict]:
    """Suite name -> results JSON: produced files are named ``<suite>.json``; an imported
    file is ``{"suites": {suite: results}}`` (see
    :func:`scievals.waza.predict.import_predictions`)."""
    if imported is not None:
        data = read_json(imported)
        return dict(data["suites"])
    return {Path(p).stem: read_results(p) for p in results or []}


def score_model(model: str, outcomes: Mapping[str, Mapping], download_report: str | Path,
                config_hash: str, bootstrap: Mapping, table_out: str | Path,
                per_case_out: str | Path, review_out: str | Path) -> pd.DataFrame:
    """One model's long table (rows per suite), per-task CSV and failed-grader review."""
    downloaded = read_json(download_report)["suites"]
    frames, cases = [], []
    for suite, outcome in sorted(outcomes.items()):
        entry = downloaded.get(suite, {})
        provenance = Provenance(benchmark="waza", dataset=entry.get("dataset", suite),
                                dataset_sha256=entry.get("sha256", ""), config_hash=config_hash)
        frames.append(result_rows(provenance, model, "", suite_metrics(outcome, bootstrap)))
        cases += per_case(suite, outcome)
    table = pd.concat(frames, ignore_index=True)
    write_result_table(table_out, table)
    write_csv(per_case_out, pd.DataFrame(cases, columns=PER_CASE_COLUMNS))
    write_text(review_out, review(model, dict(sorted(outcomes.items()))))
    return table


def score(job: ScoreJob) -> pd.DataFrame:
    """The stage contract's score entry: one model's results, one file per suite (or the
    re-graded import of the user's own file, ``job.origin``), against the suites' record
    (truth ``source``; outputs ``table``, ``per_case`` and ``review``)."""
    outcomes = outcomes_of(imported=job.prediction) if job.origin else outcomes_of(job.predictions)
    return score_model(job.model, outcomes, job.truth["source"], job.config_hash,
                       dict(job.bootstrap), job.outputs["table"], job.outputs["per_case"],
                       job.outputs["review"])
