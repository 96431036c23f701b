"""A run read from another tool's log: its per-item scores as a table the statistics engine's
API takes (:mod:`scievals.stats.api`), with what the log says of each metric.

Every reader returns an :class:`ImportedRun` or raises :class:`ScievalsError` naming the file
and what is wrong with it (one line; never a traceback, never an empty run)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from scievals.common.errors import ScievalsError

# The per-item table of an imported run (one row per scored item and sample) and the columns
# that describe its metric on every row, so a kept run is one self-describing CSV.
ROW_COLUMNS = ["dataset", "metric", "item", "sample", "score"]
# A score beyond this size is no score a tool writes (shares, counts, 0-100 scores): 1e308
# or a 400-digit integer would overflow every sum and mean into inf. Such values, and NaN
# and infinities, are counted and left out with a note, never passed on.
MAX_ABS_SCORE = 1e12
TABLE_COLUMNS = ["arm", *ROW_COLUMNS, "kind", "low", "high", "lower_is_better"]


@dataclass
class MetricInfo:
    """What a run says of one metric: pass/fail or a mean, its range, its direction."""

    kind: str
    low: float
    high: float
    lower_is_better: bool = False


@dataclass
class Usage:
    """Tokens and cost summed over a run's samples (None: the log does not say)."""

    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None

    def add(self, tokens_in=None, tokens_out=None, cost=None) -> None:
        if _count(tokens_in) is not None:
            self.tokens_in = (self.tokens_in or 0) + int(tokens_in)
        if _count(tokens_out) is not None:
            self.tokens_out = (self.tokens_out or 0) + int(tokens_out)
        if isinstance(cost, (int, float)) and not isinstance(cost, bool) \
                and math.isfinite(cost) and cost >= 0:
            self.cost_usd = (self.cost_usd or 0.0) + float(cost)


def _count(value) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None


def add_model_usage(usage: Usage, sample: dict) -> None:
    """An inspect_ai sample's ``model_usage`` {model: {input_tokens, output_tokens,
    total_cost?}} added to ``usage``."""
    per_model = sample.get("model_usage")
    for model_usage in per_model.values() if isinstance(per_model, dict) else ():
        if isinstance(model_usage, dict):
            usage.add(model_usage.get("input_tokens"), model_usage.get("output_tokens"),
                      model_usage.get("total_cost"))


def add_row_usage(usage: Usage, row: dict) -> None:
    """An Every Eval Ever instance row's ``token_usage`` and our ``metadata.cost_usd``."""
    tokens = row.get("token_usage") or {}
    cost = (row.get("metadata") or {}).get("cost_usd")
    try:
        cost = float(cost) if cost not in (None, "") else None
    except ValueError:
        cost = None
    usage.add(tokens.get("input_tokens"), tokens.get("output_tokens"), cost)


@dataclass
class ImportedRun:
    """One log's scores: ``rows`` (ROW_COLUMNS), the model, the tool and its own figures."""

    path: Path
    format: str            # e.g. "inspect_ai .eval (log schema 2)"
    model: str
    rows: pd.DataFrame
    metrics: dict[tuple[str, str], MetricInfo]
    reported: dict[str, float] = field(default_factory=dict)  # the tool's own aggregates
    notes: list[str] = field(default_factory=list)
    arm: str = ""
    # (dataset, item) the log holds but could not score (an errored sample): an item another
    # log scored and this one did not is then "errored here", not "missing"
    errored: set[tuple[str, str]] = field(default_factory=set)
    # dataset -> tokens and cost its samples spent, summed while reading the scores (None:
    # this reader does not sum them; leaderboard's cost columns)
    usage: dict[str, Usage] | None = None

    def __post_init__(self):
        if not self.arm:
            self.arm = self.model

    def table(self) -> pd.DataFrame:
        """The per-item table (TABLE_COLUMNS), metric descriptions on every row."""
        frame = self.rows.assign(arm=self.arm)
        info = [self.metrics[(d, m)] for d, m in zip(frame["dataset"], frame["metric"])]
        frame["kind"] = [i.kind for i in info]
        frame["low"] = [i.low for i in info]
        frame["high"] = [i.high for i in info]
        frame["lower_is_better"] = [i.lower_is_better for i in info]
        return frame[TABLE_COLUMNS]

    def summary(self) -> str:
        """One line: format, model, datasets, items, samples and metrics."""
        items = self.rows.groupby(["dataset", "item"]).ngroups
        samples = int(self.rows.groupby(["dataset", "metric", "item"]).size().max())
        datasets = ", ".join(sorted(set(self.rows["dataset"])))
        metrics = ", ".join(f"{m} ({_kind_text(i)})" for (_, m), i in self.metrics.items())
        epochs = f" x up to {samples} samples" if samples > 1 else ""
        return (f"{self.path}: {self.format}, model {self.model}, {datasets}: {items} items"
                f"{epochs}; {metrics}")


def _kind_text(info: MetricInfo) -> str:
    if info.kind == "pass_fail":
        return "pass/fail"
    bounds = (f"[{info.low:g}, {info.high:g}]" if math.isfinite(info.low)
              and math.isfinite(info.high) else "unbounded")
    return f"mean in {bounds}"


def describe(values: np.ndarray, declared: tuple[float, float] | None = None,
             lower_is_better: bool = False) -> MetricInfo:
    """A metric's kind and range from its per-sample values: pass/fail when every value is 0
    or 1; the ``declared`` range when the log gives one, else [0, 1] when every value lies in
    it (the scores the tools write are shares), else unbounded."""
    values = np.asarray(values, dtype=float)
    if declared is not None:
        low, high = declared
    elif values.size and values.min() >= 0 and values.max() <= 1:
        low, high = 0.0, 1.0
    else:
        low, high = -math.inf, math.inf
    binary = bool(values.size) and bool(np.all((values == 0) | (values == 1)))
    return MetricInfo("pass_fail" if binary and (low, high) == (0.0, 1.0) else "mean",
                      float(low), float(high), lower_is_better)


def number(value) -> float:
    """A JSON number as a float: inf for an integer too big for one (a 400-digit integer),
    so :func:`usable` counts it instead of a traceback."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def usable(rows: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """``rows`` without scores that are NaN, infinite or beyond MAX_ABS_SCORE, and a note per
    metric saying how many were left out."""
    scores = pd.to_numeric(rows["score"], errors="coerce").astype(float)
    bad = ~(np.isfinite(scores) & (scores.abs() <= MAX_ABS_SCORE))
    if not bad.any():
        return rows, []
    notes = [f"{dataset} {metric}: {count} score(s) NaN, infinite or beyond +-{MAX_ABS_SCORE:g} "
             "left out (no tool writes such a score; they would break every mean)"
             for (dataset, metric), count in rows[bad].groupby(["dataset", "metric"],
                                                               sort=True).size().items()]
    return rows[~bad].reset_index(drop=True), notes


def finished(path: Path, fmt: str, model: str, records: list[tuple], metrics_declared: dict,
             reported: dict, notes: list[str],
             errored: set[tuple[str, str]] | None = None) -> ImportedRun:
    """The run from (dataset, metric, item, sample, score) records, refusing an empty one.
    ``metrics_declared``: (dataset, metric) -> (declared range or None, lower_is_better)."""
    if not records:
        raise ScievalsError(path, f"{fmt} with no scored item",
                            "; ".join(notes) if notes else "nothing to compare")
    rows = pd.DataFrame.from_records(records, columns=ROW_COLUMNS)
    rows["item"] = rows["item"].astype(str)
    rows, dropped = usable(rows)
    notes = [*notes, *dropped]
    if rows.empty:
        raise ScievalsError(path, f"{fmt} with no usable score", "; ".join(notes))
    duplicated = rows.duplicated(["dataset", "metric", "item", "sample"])
    if duplicated.any():
        first = rows[duplicated].iloc[0]
        raise ScievalsError(path, f"item {first['item']!r} sample {first['sample']} of "
                            f"{first['metric']} is scored twice",
                            "a log holds each (item, epoch) once: is it two logs joined?")
    metrics = {}
    for (dataset, metric), group in rows.groupby(["dataset", "metric"], sort=True):
        declared, lower = metrics_declared.get((dataset, metric), (None, False))
        metrics[(dataset, metric)] = describe(group["score"].to_numpy(float), declared, lower)
    return ImportedRun(path, fmt, model, rows, metrics, reported, notes,
                       errored=set(errored or ()))
