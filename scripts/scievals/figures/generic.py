"""Figures any benchmark gets from its long result table alone."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scievals.common.tables import read_result_table
from scievals.figures.frames import comparison_frame, provenance_line, top_models
from scievals.figures.plots import plot_model_comparison

MAX_PANELS = 9


def model_comparison(
    inputs: Mapping[str, Sequence[str]],
    out: str,
    *,
    benchmark: str | None = None,
    metrics: Sequence[str] | None = None,
    conditions: Sequence[str] | None = None,
    metric_labels: Mapping[str, str] | None = None,
) -> None:
    """Each model's score with its 95 % CI, one panel per metric, from ``inputs['summary']``.

    Without a metric list, the first ``MAX_PANELS`` metrics of the table are shown; without
    a benchmark name, the title takes the table's own.
    """
    (summary,) = inputs["summary"]
    table = read_result_table(summary)
    if benchmark is None:
        benchmark = ", ".join(dict.fromkeys(table["benchmark"].astype(str))) or "results"
    if metrics is None:
        metrics = list(dict.fromkeys(table["metric"]))[:MAX_PANELS]
    frame = comparison_frame(table, metrics=metrics, conditions=conditions, where=summary)
    shown, note = top_models(frame)
    frame = frame[frame["model"].isin(shown)].reset_index(drop=True)
    plot_model_comparison(
        frame,
        out,
        title=f"{benchmark}: model comparison (95 % CI)",
        subtitle="; ".join(filter(None, [provenance_line(
            table[table["metric"].isin(frame["metric"].astype(str))
                  & table["model"].isin(shown)]), note])),
        metric_labels=metric_labels,
    )
