"""Table shaping for the report figures: pure pandas, no drawing.

The figures read the long result tables (``scievals.common.tables.RESULT_COLUMNS``) and
per-case tables; these functions pick the rows a figure shows and turn them into the small
frames and matrices the plotting functions draw. Tests check these numbers, not pixels.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from scievals.common.errors import ScievalsError

COMPARISON_COLUMNS = ["metric", "condition", "model", "value", "ci_low", "ci_high", "n"]


def select_rows(
    table: pd.DataFrame,
    *,
    metrics: Sequence[str] | None = None,
    conditions: Sequence[str] | None = None,
    where: str = "result table",
) -> pd.DataFrame:
    """Rows of ``table`` whose metric and condition are in the given lists (all when None).

    The order of ``metrics`` and ``conditions`` is kept (it becomes the panel order);
    a list that matches no row is an error, because an empty figure would hide it.
    """
    rows = table
    if metrics is not None:
        rows = rows[rows["metric"].isin(metrics)]
    if conditions is not None:
        rows = rows[rows["condition"].isin(conditions)]
    if rows.empty:
        raise ScievalsError(
            where,
            f"no rows with metric in {list(metrics) if metrics else 'any'} and condition in "
            f"{list(conditions) if conditions is not None else 'any'}",
            "check that the benchmark was scored and the figure's metric names match the table",
        )
    return rows


def comparison_frame(
    table: pd.DataFrame,
    *,
    metrics: Sequence[str] | None = None,
    conditions: Sequence[str] | None = None,
    where: str = "result table",
) -> pd.DataFrame:
    """One row per (metric, condition, model): the point and its CI, in display order.

    Metrics and conditions keep the order given (or of first appearance); models are
    sorted by name so every panel lists them the same way.
    """
    rows = select_rows(table, metrics=metrics, conditions=conditions, where=where)
    duplicated = rows.duplicated(["metric", "condition", "model"], keep=False)
    if duplicated.any():
        first = rows[duplicated].iloc[0]
        raise ScievalsError(
            where,
            f"several rows for metric {first['metric']!r}, condition {first['condition']!r}, "
            f"model {first['model']!r} (two datasets in one table?)",
            "plot one dataset per figure",
        )
    metric_order = list(metrics) if metrics is not None else list(dict.fromkeys(rows["metric"]))
    condition_order = (
        list(conditions) if conditions is not None else list(dict.fromkeys(rows["condition"]))
    )
    frame = rows[COMPARISON_COLUMNS].copy()
    frame["metric"] = pd.Categorical(frame["metric"], [m for m in metric_order if m in set(frame["metric"])])
    frame["condition"] = pd.Categorical(
        frame["condition"], [c for c in condition_order if c in set(frame["condition"])]
    )
    return frame.sort_values(["metric", "condition", "model"]).reset_index(drop=True)


# A figure draws at most this many models: 300 models drew a 22,000 x 24,000-pixel bar chart
# (3.8 MB in the report) that no one can read; the leaderboard lists every model.
MAX_FIGURE_MODELS = 40


def top_models(frame: pd.DataFrame, limit: int = MAX_FIGURE_MODELS) -> tuple[list[str], str]:
    """(the models a figure shows, a note for its subtitle): every model when there are at
    most ``limit``, else the ``limit`` highest on the figure's first metric (its mean over the
    conditions shown; the lead metric of every benchmark's figures is higher-is-better),
    ties by name, and a note saying how many of how many are shown and by what."""
    models = sorted(frame["model"].astype(str).unique())
    if len(models) <= limit:
        return models, ""
    first = str(frame["metric"].iloc[0])  # frames come in panel order (comparison_frame)
    lead = frame[frame["metric"].astype(str) == first].groupby("model", observed=True)["value"]
    means = lead.mean().reindex(models)
    order = sorted(models, key=lambda m: (-means[m] if pd.notna(means[m]) else float("inf"), m))
    return sorted(order[:limit]), (f"the {limit} of {len(models)} models highest on {first}; "
                                   "every model: python -m scievals show --all")


def metric_matrix(
    rows: pd.DataFrame,
    *,
    index: str,
    columns: str,
    values: str = "value",
    index_order: Sequence[str] | None = None,
    columns_order: Sequence[str] | None = None,
    where: str = "result table",
) -> pd.DataFrame:
    """Pivot long rows into an ``index`` x ``columns`` matrix; a missing pair stays NaN.

    Duplicate (index, column) pairs are an error instead of being averaged silently.
    """
    dup = rows.duplicated([index, columns], keep=False)
    if dup.any():
        first = rows[dup].iloc[0]
        raise ScievalsError(
            where,
            f"several values for {index}={first[index]!r}, {columns}={first[columns]!r}",
            "select one condition and one metric per matrix",
        )
    matrix = rows.pivot(index=index, columns=columns, values=values)
    if index_order is not None:
        matrix = matrix.reindex([i for i in index_order if i in matrix.index])
    if columns_order is not None:
        matrix = matrix.reindex(columns=[c for c in columns_order if c in matrix.columns])
    matrix.index.name = index
    matrix.columns.name = columns
    return matrix.astype(float)


def provenance_line(table: pd.DataFrame) -> str:
    """Which data, models and code produced ``table``: one line for a figure's subtitle."""
    datasets = (
        table[["dataset", "dataset_sha256"]]
        .drop_duplicates()
        .sort_values("dataset")
        .itertuples(index=False)
    )
    data = ", ".join(f"{d} (sha256 {str(s)[:12]})" for d, s in datasets)
    names = sorted(table["model"].astype(str).unique())
    # one line, however many models (the figure itself names the ones it shows)
    models = ", ".join(names) if len(names) <= 10 else f"{len(names)} ({names[0]} ... {names[-1]})"
    versions = sorted(table["scievals_version"].astype(str).unique())
    commits = sorted(table["git_commit"].astype(str).unique())
    code = f"scievals {', '.join(versions)} @ {', '.join(c[:12] for c in commits)}"
    return f"data: {data} | models: {models} | {code}"
