"""Paired comparisons of arms on the same items -> ``results/<benchmark>/comparisons.csv``.

An *arm* is what a leaderboard row shows: a model, or ``model [condition]`` when the
dataset's rows have several conditions (gating's contexts x strategies). A benchmark's
``comparisons`` module turns its per-item outputs into :class:`ItemMetric` (per-item values
of every arm: means or pass/fail) or :class:`SetMetric` (a statistic of the whole item set,
recomputed on resampled clusters); :func:`comparison_table` compares every pair of arms of
each (dataset, metric) with the paired method of its kind (:mod:`scievals.common.paired`)
and Holm-adjusts the p-values over those pairs. :func:`tiered_ranks` turns a metric's
comparisons into leaderboard ranks with ties (``1=``), :func:`mdd_footer` into the
"differences below X cannot be told apart" line. docs/statistics.md explains all of it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from scievals.common.errors import ScievalsError
from scievals.common.io import user_file, write_csv
from scievals.common.paired import (
    ALPHA,
    PairedResult,
    holm,
    mcnemar_exact,
    min_detectable_difference,
    paired_bootstrap,
    paired_means,
)
from scievals.common.tables import read_result_table

# Bump when a change moves a number of comparisons.csv: re-runs every comparisons job.
COMPARISONS_VERSION = "comparisons-v2"  # v2: the mdd column
# mdd: the pair's minimum detectable difference (paired.min_detectable_difference), written
# here so that the leaderboard's footer needs no scipy (the summarize job's start-up).
COLUMNS = ["benchmark", "dataset", "metric", "arm_a", "arm_b", "n", "value_a", "value_b",
           "diff", "ci_low", "ci_high", "p_value", "p_holm", "method", "mdd"]
KINDS = ("mean", "pass_fail")


def arm_label(model: str, condition: str, several_conditions: bool) -> str:
    """The arm's name, as the leaderboard row shows it."""
    return f"{model} [{condition}]" if several_conditions and condition else str(model)


def arm_labels(frame: pd.DataFrame) -> pd.Series:
    """Arm label of every row of a frame with ``model`` and ``condition`` columns: the
    condition is part of the label when the frame has more than one."""
    condition = frame["condition"].fillna("").astype(str)
    several = condition.nunique() > 1
    return pd.Series([arm_label(m, c, several) for m, c in zip(frame["model"], condition)],
                     index=frame.index, dtype=object)


@dataclass(frozen=True)
class ItemMetric:
    """Per-item values of every arm for one (dataset, metric): ``values`` has one row per
    item and one column per arm (NaN where an arm has no value; pairs use common items)."""

    dataset: str
    metric: str
    kind: str  # "mean" (paired t) or "pass_fail" (exact McNemar)
    values: pd.DataFrame

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind {self.kind!r} is not one of {KINDS}")


@dataclass(frozen=True)
class SetMetric:
    """A statistic of a whole item set (e.g. Spearman over antibodies) for one (dataset,
    metric): ``clusters`` gives, per stratum, each row's cluster code (clusters are
    resampled whole by the paired bootstrap, within strata); ``statistic(arm, weights)``
    returns arm's values for row multiplicities (one (B, rows) array per stratum, see
    :func:`scievals.common.stats.cluster_bootstrap`); ``n`` is the number of items."""

    dataset: str
    metric: str
    arms: tuple[str, ...]
    clusters: Sequence[np.ndarray]
    statistic: Callable[[str, list[np.ndarray]], np.ndarray]
    n: int
    method: str = "paired cluster bootstrap"

    def value(self, arm: str) -> float:
        """The arm's statistic on every row once."""
        return float(self.statistic(arm, [np.ones((1, len(c))) for c in self.clusters])[0])


def _ordered_arms(metric: ItemMetric | SetMetric) -> list[str]:
    """Arms best first (by the metric's value over each arm's own items), so that most
    rows read "better minus worse"; ties by name."""
    if isinstance(metric, ItemMetric):
        means = metric.values.mean(axis=0, skipna=True)
    else:
        means = pd.Series({arm: metric.value(arm) for arm in metric.arms})
    return sorted(means.index, key=lambda arm: (-np.nan_to_num(means[arm], nan=-np.inf), arm))


def _compare_pair(metric: ItemMetric | SetMetric, a: str, b: str, bootstrap) -> PairedResult:
    if isinstance(metric, SetMetric):
        return paired_bootstrap(lambda w: metric.statistic(a, w),
                                lambda w: metric.statistic(b, w),
                                metric.clusters, bootstrap, metric.n, metric.method)
    test = paired_means if metric.kind == "mean" else mcnemar_exact
    return test(metric.values[a], metric.values[b])


def compare_metric(benchmark: str, metric: ItemMetric | SetMetric, bootstrap) -> list[dict]:
    """Every pair of arms of one (dataset, metric), Holm-adjusted over those pairs."""
    arms = _ordered_arms(metric)
    rows = []
    for a, b in combinations(arms, 2):
        result = _compare_pair(metric, a, b, bootstrap)
        rows.append({"benchmark": benchmark, "dataset": metric.dataset, "metric": metric.metric,
                     "arm_a": a, "arm_b": b, "n": result.n, "value_a": result.value_a,
                     "value_b": result.value_b, "diff": result.diff, "ci_low": result.ci_low,
                     "ci_high": result.ci_high, "p_value": result.p_value,
                     "method": result.method,
                     "mdd": min_detectable_difference(result.ci_low, result.ci_high,
                                                      result.method, result.n)})
    for row, adjusted in zip(rows, holm([r["p_value"] for r in rows])):
        row["p_holm"] = adjusted
    return rows


def comparison_table(benchmark: str, metrics: Sequence[ItemMetric | SetMetric],
                     bootstrap) -> pd.DataFrame:
    rows = [row for metric in metrics for row in compare_metric(benchmark, metric, bootstrap)]
    return pd.DataFrame(rows, columns=COLUMNS)


def write_comparisons(path: str | os.PathLike, frame: pd.DataFrame) -> None:
    write_csv(path, frame[COLUMNS])


def read_comparisons(path: str | os.PathLike) -> pd.DataFrame:
    """A comparisons.csv, checked: one clear error naming the file otherwise."""
    try:
        frame = pd.read_csv(user_file(path), dtype={"arm_a": str, "arm_b": str,
                                                    "dataset": str, "method": str})
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ScievalsError(path, f"not a readable CSV ({exc})",
                            "re-run the workflow to rewrite it") from None
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ScievalsError(path, f"lacks columns {missing}",
                            "comparisons.csv is written by the workflow's comparisons rule")
    return frame[COLUMNS]


def tiered_ranks(values: Mapping[str, float], pairs: pd.DataFrame,
                 alpha: float = ALPHA) -> dict[str, str]:
    """Leaderboard ranks with ties, from one metric's comparisons (higher is better).

    Take the best arm not yet ranked (the leader); it and every unranked arm whose
    Holm-adjusted p-value against the leader is >= ``alpha`` (or unknown) share the rank
    1 + (number of arms ranked before), written ``k=`` when shared; repeat with the rest.
    So "1=" means "not told apart from the best"; the next tier starts after all of them.
    """
    p_of = {}
    for row in pairs.itertuples(index=False):
        p_of[frozenset((row.arm_a, row.arm_b))] = row.p_holm
    order = sorted(values, key=lambda arm: (-np.nan_to_num(values[arm], nan=-np.inf), arm))
    ranks: dict[str, str] = {}
    placed = 0
    while len(ranks) < len(order):
        leader = next(arm for arm in order if arm not in ranks)
        tier = [leader] + [arm for arm in order if arm not in ranks and arm != leader
                           and not _differs(p_of.get(frozenset((leader, arm))), alpha)]
        label = f"{placed + 1}=" if len(tier) > 1 else str(placed + 1)
        for arm in tier:
            ranks[arm] = label
        placed += len(tier)
    return ranks


def _differs(p_holm, alpha: float) -> bool:
    return p_holm is not None and not (isinstance(p_holm, float) and math.isnan(p_holm)) \
        and float(p_holm) < alpha


def mdd_footer(pairs: pd.DataFrame, metric: str, item_noun: str) -> str | None:
    """"with N <items>, differences in <metric> below X cannot be told apart (...)": X is the
    median over the metric's pairs of their ``mdd`` column
    (:func:`~scievals.common.paired.min_detectable_difference`; pairs with a zero-width
    interval, i.e. identical differences on every item, carry no variance and are left out).
    None without such a pair."""
    mdds, ns = [], []
    for row in pairs.itertuples(index=False):
        mdd = float(row.mdd)
        if np.isfinite(mdd) and mdd > 0:
            mdds.append(mdd)
            ns.append(int(row.n))
    if not mdds:
        return None
    n = f"{min(ns)}" if min(ns) == max(ns) else f"{min(ns)}-{max(ns)}"
    return (f"With {n} {item_noun}, differences in {metric} below {float(np.median(mdds)):.3g} "
            "cannot be told apart (80 % power, 5 % level, from the observed paired variance).")


def per_item_metrics(frame: pd.DataFrame, item: str, metrics: Mapping[str, str],
                     dataset: str) -> list[ItemMetric]:
    """:class:`ItemMetric` per metric from a per-sample frame with ``model``, ``condition``,
    the ``item`` column and one column per metric: each arm's per-item mean over its samples
    (so repeated samples count once per item). ``metrics`` maps metric -> kind."""
    frame = frame.assign(_arm=arm_labels(frame))
    out = []
    for metric, kind in metrics.items():
        if metric not in frame.columns:
            continue
        values = (frame.assign(_v=pd.to_numeric(frame[metric], errors="coerce"))
                  .groupby(["_arm", item])["_v"].mean().unstack("_arm"))
        out.append(ItemMetric(dataset, metric, kind, values))
    return out


def model_datasets(score_tables: Sequence[str | os.PathLike]) -> dict[str, str]:
    """model -> dataset label, from each model's score table (one dataset per model)."""
    out = {}
    for path in score_tables:
        table = read_result_table(path)
        for model, dataset in zip(table["model"], table["dataset"]):
            out.setdefault(str(model), str(dataset))
    return out


def per_item_files(per_item: Sequence[str | os.PathLike], score_tables: Sequence[str | os.PathLike],
                   item: str, metrics: Mapping[str, str]) -> list[ItemMetric]:
    """:func:`per_item_metrics` of every dataset, from each model's per-item CSV (with
    ``model``, ``condition``, ``item`` and metric columns) and its score table (the dataset
    label). The per-case tables of gating and autogkb have this shape."""
    frames = [pd.read_csv(user_file(path), dtype={"condition": str, item: str})
              for path in per_item]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return []
    frame = pd.concat(frames, ignore_index=True)
    missing = [c for c in ("model", "condition", item) if c not in frame.columns]
    if missing:
        raise ScievalsError(per_item[0], f"per-item table lacks columns {missing}",
                            "re-run the benchmark's score step")
    frame["condition"] = frame["condition"].fillna("")
    frame["dataset"] = frame["model"].astype(str).map(model_datasets(score_tables))
    return [metric for dataset, rows in frame.groupby("dataset", sort=True)
            for metric in per_item_metrics(rows, item, metrics, str(dataset))]


def per_case_means(inputs: Mapping[str, Sequence[str]], models: Sequence[str],
                   headline: Sequence[str], section: Mapping) -> list[ItemMetric]:
    """The registry's default items: cases (``case_id``) of each model's per_case.csv, every
    headline metric a per-item mean (the shape the template benchmark writes)."""
    return per_item_files(inputs["per_case"], inputs["table"], "case_id",
                          {metric: "mean" for metric in headline})
