"""waza figure: pass rate, weighted score and trigger accuracy per suite and model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from scievals.common.errors import ScievalsError
from scievals.common.tables import read_result_table
from scievals.figures.frames import provenance_line
from scievals.figures.plots import plot_model_comparison

METRICS = ["pass_rate", "weighted_score", "trigger_accuracy"]
LABELS = {"pass_rate": "pass rate (tasks)", "weighted_score": "weighted score",
          "trigger_accuracy": "trigger accuracy"}


def suite_frame(table: pd.DataFrame, where: str) -> pd.DataFrame:
    """Rows of the headline metrics with the suite (dataset) as the colour."""
    rows = table[table["metric"].isin(METRICS)].copy()
    if rows.empty:
        raise ScievalsError(where, f"no rows for {METRICS}", "score waza first")
    rows["condition"] = rows["dataset"].astype(str)
    metrics = [m for m in METRICS if m in set(rows["metric"])]
    suites = sorted(rows["condition"].unique())
    rows["metric"] = pd.Categorical(rows["metric"], metrics)
    rows["condition"] = pd.Categorical(rows["condition"], suites)
    columns = ["metric", "condition", "model", "value", "ci_low", "ci_high"]
    return rows[columns].sort_values(["metric", "condition", "model"]).reset_index(drop=True)


def suite_comparison(inputs: Mapping[str, Sequence[str]], out: str) -> None:
    (summary,) = inputs["summary"]
    table = read_result_table(summary)
    frame = suite_frame(table, summary)
    plot_model_comparison(
        frame, out, title="waza: pass rate and weighted score per suite and model "
        "(95 % CI when tasks ran >= 2 times)",
        subtitle=provenance_line(table), metric_labels=LABELS, xlim=(-0.05, 1.05),
        legend_title="suite")
