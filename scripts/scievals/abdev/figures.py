"""abdev figures: Spearman per assay at the cross-validation average (``fold=average``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scievals.common.tables import read_result_table
from scievals.figures import generic
from scievals.figures.frames import metric_matrix, provenance_line, select_rows, top_models
from scievals.figures.plots import panel_order, plot_heatmap

# The reference's assay order (GDPa1 column order).
ASSAYS = ["HIC", "Tm2", "Titer", "PR_CHO", "AC-SINS_pH7.4"]
CONDITION = "fold=average"
STATISTIC = "spearman"


def assay_metrics(table_metrics: Sequence[str], statistic: str = STATISTIC) -> list[str]:
    """``<assay>:<statistic>`` metric names present in a table, reference assays first."""
    found = [m for m in dict.fromkeys(table_metrics) if m.endswith(f":{statistic}")]
    assays = panel_order([m.rsplit(":", 1)[0] for m in found], ASSAYS)
    return [f"{a}:{statistic}" for a in assays]


def assay_matrix(table, statistic: str = STATISTIC, condition: str = CONDITION, where: str = ""):
    """Assay x model matrix of ``statistic`` at ``condition``."""
    metrics = assay_metrics(table["metric"], statistic)
    rows = select_rows(table, metrics=metrics, conditions=[condition], where=where).copy()
    rows["assay"] = rows["metric"].str.rsplit(":", n=1).str[0]
    return metric_matrix(
        rows, index="assay", columns="model",
        index_order=[m.rsplit(":", 1)[0] for m in metrics],
        columns_order=sorted(rows["model"].unique()), where=where,
    )


def model_comparison(inputs: Mapping[str, Sequence[str]], out: str) -> None:
    (summary,) = inputs["summary"]
    metrics = assay_metrics(read_result_table(summary)["metric"])
    generic.model_comparison(
        inputs, out, benchmark="abdev", metrics=metrics, conditions=[CONDITION],
        metric_labels={m: f"{m.rsplit(':', 1)[0]} Spearman" for m in metrics},
    )


def assay_heatmap(inputs: Mapping[str, Sequence[str]], out: str) -> None:
    (summary,) = inputs["summary"]
    table = read_result_table(summary)
    matrix = assay_matrix(table, where=summary)
    # one column per model: at most MAX_FIGURE_MODELS, the highest on the first assay
    lead = matrix.iloc[0].rename("value").rename_axis("model").reset_index()
    lead.insert(0, "metric", matrix.index[0])
    models, note = top_models(lead)
    matrix = matrix[models]
    shown = table[(table["condition"] == CONDITION) & table["model"].isin(matrix.columns)]
    plot_heatmap(
        matrix, out,
        title="abdev: Spearman per assay and model (5-fold CV average)",
        subtitle="; ".join(filter(None, [provenance_line(shown), note])),
        colorbar_label="Spearman rho", vmin=-1.0, vmax=1.0, cmap="RdBu_r",
    )
