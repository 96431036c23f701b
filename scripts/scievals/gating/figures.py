"""gating figures: headline metrics per model, per-case scores, true vs predicted trees."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from scievals.common.errors import ScievalsError
from scievals.common.io import read_jsonl
from scievals.common.tables import read_result_table
from scievals.gating.normalize import norm
from scievals.figures import calibration, generic
from scievals.figures.frames import metric_matrix
from scievals.figures.plots import panel_order, plot_heatmap, plot_hierarchies

# The headline metrics of the flow_gating reference, in its order, with structure accuracy's
# coverage beside it (accuracy alone rewards predicting few gates).
HEADLINE = [
    "hierarchy_f1",
    "structure_accuracy",
    "structure_coverage",
    "critical_gate_recall",
    "hallucination_rate",
    "depth_accuracy",
]
ID_COLUMNS = ["case_id", "model", "condition"]
# Numeric columns of the per-case tables that are not scores.
NOT_METRICS = {"sample_index"}


def headline_metrics(table_metrics: Sequence[str]) -> list[str]:
    present = list(dict.fromkeys(table_metrics))
    chosen = [m for m in HEADLINE if m in present]
    return chosen or present[: generic.MAX_PANELS]


def model_comparison(inputs: Mapping[str, Sequence[str]], out: str) -> None:
    (summary,) = inputs["summary"]
    metrics = headline_metrics(read_result_table(summary)["metric"])
    generic.model_comparison(inputs, out, benchmark="gating", metrics=metrics)


def read_per_case(paths: Sequence[str]) -> pd.DataFrame:
    """Per-case scores of all models as long rows: case_id, model, condition, metric, value.

    Accepts the wide form (one column per metric, as scievals.gating.score writes it) and
    the long form (metric, value). Repeated samples of a case (``sample_index``) are
    averaged, as the scorer does before aggregating.
    """
    frames = []
    for path in paths:
        frame = pd.read_csv(path, dtype={"case_id": str, "model": str, "condition": str})
        missing = [c for c in ID_COLUMNS if c not in frame.columns]
        if missing:
            raise ScievalsError(path, f"per-case table lacks columns {missing}",
                                "per-case tables are written by the gating scoring rule")
        frame["condition"] = frame["condition"].fillna("")
        if {"metric", "value"} <= set(frame.columns):
            long = frame[[*ID_COLUMNS, "metric", "value"]]
        else:
            metric_columns = [
                c for c in frame.columns
                if c not in ID_COLUMNS and c not in NOT_METRICS
                and pd.api.types.is_numeric_dtype(frame[c])
            ]
            long = frame.melt(id_vars=ID_COLUMNS, value_vars=metric_columns,
                              var_name="metric", value_name="value")
        frames.append(long)
    if not frames:
        raise ScievalsError("gating per-case tables", "no files given", "score a model first")
    rows = pd.concat(frames, ignore_index=True)
    return rows.groupby([*ID_COLUMNS, "metric"], sort=False, as_index=False)["value"].mean()


def case_matrix(per_case: pd.DataFrame, metric: str | None = None) -> tuple[pd.DataFrame, str]:
    """Case x (model, condition) matrix of one metric (hierarchy_f1 when present)."""
    metrics = list(dict.fromkeys(per_case["metric"]))
    if metric is None:
        metric = next((m for m in HEADLINE if m in metrics), metrics[0] if metrics else None)
    if metric not in metrics:
        raise ScievalsError("gating per-case tables", f"no metric {metric!r}",
                            f"choose one of {metrics}")
    rows = per_case[per_case["metric"] == metric].copy()
    several = rows["condition"].nunique() > 1
    rows["column"] = rows["model"] + (" | " + rows["condition"] if several else "")
    matrix = metric_matrix(
        rows, index="case_id", columns="column",
        index_order=sorted(rows["case_id"].unique()),
        columns_order=sorted(rows["column"].unique()),
        where="gating per-case tables",
    )
    matrix.columns.name = "model | condition" if several else "model"
    matrix.index.name = "case"
    return matrix, metric


def case_heatmap(inputs: Mapping[str, Sequence[str]], out: str) -> None:
    per_case = read_per_case(inputs["per_case"])
    matrix, metric = case_matrix(per_case)
    models = ", ".join(sorted(per_case["model"].unique()))
    plot_heatmap(
        matrix, out,
        title=f"gating: {metric} per test case",
        subtitle=f"cases: {matrix.shape[0]} | models: {models}",
        colorbar_label=metric, vmin=0.0, vmax=1.0, cmap="viridis",
    )


def _case_id(record: Mapping, where: str) -> str:
    for key in ("case_id", "test_case_id", "id"):
        if record.get(key):
            return str(record[key])
    raise ScievalsError(where, "record has no case_id", "cases and predictions need case_id")


def _root(tree) -> Mapping | None:
    if isinstance(tree, str):
        try:
            tree = json.loads(tree)
        except json.JSONDecodeError:
            return None
    if isinstance(tree, Mapping) and isinstance(tree.get("root"), Mapping):
        tree = tree["root"]
    return tree if isinstance(tree, Mapping) and tree.get("name") else None


TRUTH_KEYS = ("gating_hierarchy", "hierarchy", "truth")
PREDICTION_KEYS = ("hierarchy", "parsed_hierarchy", "predicted_hierarchy", "prediction")


def _tree_of(record: Mapping, keys: Sequence[str]) -> Mapping | None:
    for key in keys:
        if key in record:
            return _root(record[key])
    return None


def hierarchies(inputs: Mapping[str, Sequence[str]], out_dir: str, *,
                preferred_condition: Sequence[str] = ("standard", "direct")) -> None:
    """One PNG per case in ``out_dir``: the true tree beside each model's predicted tree.

    Each model contributes one condition, its first sample: the first condition whose name
    contains all of ``preferred_condition`` (else its first condition), so the figure stays
    readable.
    """
    truths: dict[str, Mapping] = {}
    for path in inputs["cases"]:
        for record in read_jsonl(path):
            tree = _tree_of(record, TRUTH_KEYS)
            if tree is None:
                raise ScievalsError(path, f"case {_case_id(record, path)} has no hierarchy",
                                    "curated cases carry gating_hierarchy.root")
            truths[_case_id(record, path)] = tree
    predicted: dict[str, dict[str, Mapping | None]] = {case: {} for case in truths}
    for path in inputs["predictions"]:
        records = read_jsonl(path)
        model = str(records[0].get("model") or Path(path).stem) if records else Path(path).stem
        conditions = panel_order([str(r.get("condition", "")) for r in records], [])
        chosen = next(
            (c for c in conditions if all(p in c for p in preferred_condition)),
            conditions[0] if conditions else "",
        )
        for record in records:
            if str(record.get("condition", "")) != chosen or record.get("sample_index", 0):
                continue
            case = _case_id(record, path)
            if case in predicted:
                label = f"{model} ({chosen})" if chosen else model
                predicted[case][label] = _tree_of(record, PREDICTION_KEYS)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for case, truth in sorted(truths.items()):
        plot_hierarchies(
            truth, dict(sorted(predicted[case].items())), out / f"{case}.png",
            title=f"gating: {case}, true vs predicted hierarchy",
            subtitle="green: gate in both trees (names compared as hierarchy_f1 compares them); "
                     "orange: true gate missed; red: predicted gate not in the truth",
            key=norm,
        )


def reliability(inputs: Mapping[str, Sequence[str]], out: str) -> None:
    """Reliability diagram of stated confidences per arm (scievals.figures.calibration)."""
    calibration.reliability(inputs, out, benchmark="gating")


def risk_coverage(inputs: Mapping[str, Sequence[str]], out: str) -> None:
    """Risk-coverage curve of stated confidences per arm (scievals.figures.calibration)."""
    calibration.risk_coverage(inputs, out, benchmark="gating")
