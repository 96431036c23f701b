"""autogkb figures: headline metrics per model, and per-field similarity by model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scievals.autogkb.metrics import FIELDS
from scievals.autogkb.score import HEADLINE, field_metric
from scievals.common.errors import ScievalsError
from scievals.common.tables import read_result_table
from scievals.figures import calibration, generic
from scievals.figures.frames import metric_matrix, provenance_line
from scievals.figures.plots import plot_heatmap

LABELS = {"score": "reference score (0-100+)", "one_to_one_score": "one-to-one score",
          "precision": "precision", "recall": "recall", "f1": "F1"}


def model_comparison(inputs: Mapping[str, Sequence[str]], out: str) -> None:
    generic.model_comparison(inputs, out, benchmark="autogkb", metrics=list(HEADLINE),
                             metric_labels=LABELS)


def field_matrix(table, where: str = ""):
    """Field x model(/condition) matrix of the mean field similarity over matched pairs."""
    names = {field_metric(f): f for f in FIELDS}
    rows = table[table["metric"].isin(names)].copy()
    if rows.empty:
        raise ScievalsError(where, "no field_similarity.* rows", "score a model first")
    rows["field"] = rows["metric"].map(names)
    several = rows.groupby("model")["condition"].nunique().max() > 1
    rows["model"] = (rows["model"] + " (" + rows["condition"] + ")") if several else rows["model"]
    return metric_matrix(rows, index="field", columns="model", index_order=list(FIELDS),
                         columns_order=sorted(rows["model"].unique()), where=where)


def field_similarity(inputs: Mapping[str, Sequence[str]], out: str) -> None:
    (summary,) = inputs["summary"]
    table = read_result_table(summary)
    matrix = field_matrix(table, where=summary)
    plot_heatmap(matrix, out, title="autogkb: field similarity by model (matched pairs)",
                 subtitle=provenance_line(table[table["metric"].str.startswith("field_")]),
                 colorbar_label="mean similarity", vmin=0.0, vmax=1.0)


def reliability(inputs: Mapping[str, Sequence[str]], out: str) -> None:
    """Reliability diagram of stated confidences per arm (scievals.figures.calibration)."""
    calibration.reliability(inputs, out, benchmark="autogkb")


def risk_coverage(inputs: Mapping[str, Sequence[str]], out: str) -> None:
    """Risk-coverage curve of stated confidences per arm (scievals.figures.calibration)."""
    calibration.risk_coverage(inputs, out, benchmark="autogkb")
