"""Score tables of one model: results JSONs (one per suite) -> long-format rows (the rows'
metrics: :func:`scievals.waza.metrics.suite_metrics`; the review: :mod:`scievals.waza.review`).

One row per (suite, metric): ``pass_rate`` (waza's ``summary.success_rate``: tasks whose
every run passed), ``weighted_score`` and ``aggregate_score`` (means over tasks of the
average weighted / unweighted run scores), ``run_pass_rate`` (runs that passed), and with
trigger tests ``trigger_accuracy``/``trigger_precision``/``trigger_recall``/``trigger_f1``.
CIs (percentile bootstrap over tasks, seeded) only when tasks ran >= 2 times, as in waza.
The dataset is the suite's folder name (``<suite>-demo`` for the embedded suites); its
sha256 covers every file of the suite.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from scievals.common.io import read_json, write_csv, write_text
from scievals.common.jobs import ScoreJob
from scievals.common.provenance import Provenance
from scievals.common.tables import result_rows, write_result_table
from scievals.waza.metrics import suite_metrics
from scievals.waza.replay import read_results
from scievals.waza.review import review

PER_CASE_COLUMNS = ["suite", "task_id", "display_name", "status", "runs", "pass_rate",
                    "avg_score", "avg_weighted_score", "std_dev_score", "flaky", "errors"]


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
