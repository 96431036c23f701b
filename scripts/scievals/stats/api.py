"""The statistics engine's front door: a table of per-item scores in, paired comparisons,
significance tiers, per-arm means with intervals and sample-size plans out (docs/python-api.md).

    >>> from scievals.stats.api import compare, plan
    >>> result = compare(table)                  # table: arm, item, score, kind (+ sample, metric)
    >>> result.comparisons                       # the columns of the workflow's comparisons.csv
    >>> result.tiers, result.means               # ranks; each arm's mean with its 95 % interval
    >>> plan(0.1, table=table)                   # items needed to detect 0.1, from the table

Every number comes from the code the workflow runs (:mod:`scievals.stats.comparisons`:
:class:`ItemMetric`, :func:`compare_metric`, :func:`significance_tiers`;
:mod:`scievals.stats.intervals`; :mod:`scievals.stats.planning`), so an arm here and a
leaderboard row on the same items get the same delta, interval, p and p_holm. The level is
the engine's: 95 % intervals, tests at 5 %, 80 % power for the detectable difference.

The table, one row per scored (arm, item[, sample]):

- ``arm``: what is compared (a model, a run); ``item``: the item's id (arms pair on it);
- ``score``: the item's score; ``kind``: ``"pass_fail"`` (0 or 1: exact McNemar) or
  ``"mean"`` (a bounded or unbounded score: sign-flip test);
- optional ``sample`` (repeated samples or epochs of one item: each arm's item score is its
  mean over its samples, so an item counts once), ``metric`` and ``dataset`` (each
  (dataset, metric) is compared on its own; default one metric ``score``).

A pass/fail metric whose samples of an item disagree is compared as the per-item pass share
(kind ``mean`` on [0, 1]); the result's ``notes`` say so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from scievals.stats.comparisons import (
    COLUMNS,
    KINDS,
    Arm,
    ItemMetric,
    compare_metric,
    significance_tiers,
)
from scievals.stats.intervals import mean_interval, metric_range, proportion_interval
from scievals.stats.paired import ALPHA
from scievals.stats.planning import (
    DEFAULT_DISCORDANT,
    DEFAULT_SD,
    items_for_mean,
    items_for_pass_fail,
)

REQUIRED = ("arm", "item", "score", "kind")
DEFAULT_METRIC = "score"
MEAN_COLUMNS = ["dataset", "metric", "arm", "kind", "value", "ci_low", "ci_high", "ci_method",
                "n"]
TIER_COLUMNS = ["dataset", "metric", "arm", "value", "rank"]
PLAN_COLUMNS = ["dataset", "metric", "kind", "diff", "spread", "source", "items"]
Range = tuple[float, float]


@dataclass
class Comparison:
    """What :func:`compare` returns: ``comparisons`` (the workflow's comparisons.csv columns:
    arm_a, arm_b, n, value_a, value_b, diff, ci_low, ci_high, p_value, p_holm, method, mdd,
    ...), ``tiers`` (each arm's rank per metric, ``"2="`` for a tie of several arms),
    ``means`` (each arm's mean over its items, with its 95 % interval) and ``notes``."""

    comparisons: pd.DataFrame
    tiers: pd.DataFrame
    means: pd.DataFrame
    notes: list[str] = field(default_factory=list)


def item_metrics(table: pd.DataFrame, ranges: Range | Mapping[str, Range] | None = None,
                 notes: list[str] | None = None) -> list[ItemMetric]:
    """One :class:`ItemMetric` per (dataset, metric) of the table (module docstring): per-item
    means over samples in an (items, arms) matrix, with the metric's range. ``ranges``: one
    (low, high) for every metric, or metric name / fnmatch pattern -> (low, high); default
    [0, 1] for pass/fail and unbounded for means."""
    frame = _checked(table)
    out = []
    for (dataset, metric), rows in frame.groupby(["dataset", "metric"], sort=True):
        kinds = sorted(set(rows["kind"]))
        if len(kinds) > 1:
            raise ValueError(f"metric {metric!r} ({dataset}) has rows of kinds {kinds}: "
                             "give one kind per metric")
        kind = kinds[0]
        low, high = _range(ranges, str(metric), kinds[0])
        values = rows.groupby(["item", "arm"], sort=True)["score"].mean().unstack("arm")
        shares = values.to_numpy(dtype=float)
        shares = shares[np.isfinite(shares)]
        if kind == "pass_fail" and not np.all((shares == 0) | (shares == 1)):
            kind = "mean"  # an item passed in some samples only: a share, not a pass/fail
            if notes is not None:
                notes.append(f"{metric}: pass/fail in repeated samples that disagree on some "
                             "item: compared as the per-item pass share (sign-flip test on "
                             "[0, 1])")
        seen = values.to_numpy(dtype=float)
        seen = seen[np.isfinite(seen)]
        if seen.size and (seen.min() < low or seen.max() > high):
            raise ValueError(f"metric {metric!r} ({dataset}): scores {seen.min():g}.."
                             f"{seen.max():g} leave its range [{low:g}, {high:g}]: give the "
                             "right range")
        arms = tuple(Arm(str(a), str(a)) for a in values.columns)
        out.append(ItemMetric(str(dataset), str(metric), kind, values, arms, high - low,
                              low if math.isfinite(low) else 0.0))
    return out


def compare(table: pd.DataFrame, ranges: Range | Mapping[str, Range] | None = None, *,
            seed: int = 0, lower_is_better: Iterable[str] = (),
            benchmark: str = "") -> Comparison:
    """Every pair of arms per (dataset, metric) on the items both scored, Holm-adjusted
    within the metric (the arms are one family: the models of one condition), the tiers and
    each arm's mean with its interval. ``seed`` seeds the Monte-Carlo sign-flip test (above
    13 items); ``lower_is_better`` names metrics whose tiers rank the lowest value first."""
    notes: list[str] = []
    metrics = item_metrics(table, ranges, notes)
    lower = set(lower_is_better)
    pairs, tiers, means = [], [], []
    for metric in metrics:
        rows = compare_metric(benchmark, metric, {"seed": seed}, notes)
        pairs.append(rows)
        arm_means = _arm_means(metric, seed)
        means.append(arm_means)
        values = dict(zip(arm_means["arm"], arm_means["value"]))
        sign = -1.0 if metric.metric in lower else 1.0
        flipped = rows.assign(diff=sign * rows["diff"])
        ranks = significance_tiers({a: sign * v for a, v in values.items()}, flipped, ALPHA)
        tiers += [{"dataset": metric.dataset, "metric": metric.metric, "arm": arm,
                   "value": values[arm], "rank": rank} for arm, rank in ranks.items()]
    comparisons = (pd.concat([p for p in pairs if not p.empty], ignore_index=True)[COLUMNS]
                   if any(not p.empty for p in pairs) else pd.DataFrame(columns=COLUMNS))
    means_frame = (pd.concat(means, ignore_index=True) if means
                   else pd.DataFrame(columns=MEAN_COLUMNS))
    tier_frame = pd.DataFrame(tiers, columns=TIER_COLUMNS)
    if len(tier_frame):
        tier_frame = tier_frame.sort_values(["dataset", "metric", "rank", "arm"],
                                            key=_rank_key, ignore_index=True)
    return Comparison(comparisons, tier_frame, means_frame, notes)


def plan(diff: float, *, table: pd.DataFrame | None = None, kind: str = "mean",
         sd: float | None = None, discordant: float | None = None,
         ranges: Range | Mapping[str, Range] | None = None) -> pd.DataFrame:
    """Items needed to detect a true difference ``diff`` with 80 % power at the 5 % level,
    one row per (dataset, metric): ``spread`` is the sd of per-item differences (means) or
    the discordant share (pass/fail), ``items`` the answer (NaN: not within 5,000 items).

    The spread is ``sd`` / ``discordant`` when given; else, with a ``table``, the median
    over its pairs of arms of the sd of their per-item differences (the share of items they
    disagree on); else the defaults (sd 0.25 of a [0, 1] score, discordant share 0.3).
    ``kind`` is used only without a table."""
    if not (isinstance(diff, (int, float)) and diff > 0):
        raise ValueError(f"diff {diff!r} is not a positive difference")
    if table is None:
        if kind not in KINDS:
            raise ValueError(f"kind {kind!r} is not one of {KINDS}")
        spread, source = _given(kind, sd, discordant)
        return pd.DataFrame([_plan_row("", DEFAULT_METRIC, kind, diff, spread, source)],
                            columns=PLAN_COLUMNS)
    rows = []
    for metric in item_metrics(table, ranges):
        if (sd if metric.kind == "mean" else discordant) is not None:
            spread, source = _given(metric.kind, sd, discordant)
        else:
            spread, source = _observed(metric)
        rows.append(_plan_row(metric.dataset, metric.metric, metric.kind, diff, spread,
                              source))
    return pd.DataFrame(rows, columns=PLAN_COLUMNS)


# ---------------------------------------------------------------------------


def _checked(table: pd.DataFrame) -> pd.DataFrame:
    if not isinstance(table, pd.DataFrame):
        raise TypeError("the table must be a pandas DataFrame")
    missing = [c for c in REQUIRED if c not in table.columns]
    if missing:
        raise ValueError(f"the table lacks columns {missing} (needs {list(REQUIRED)}, "
                         "optionally sample, metric, dataset)")
    frame = table.copy()
    for column, default in (("metric", DEFAULT_METRIC), ("dataset", ""), ("sample", 0)):
        if column not in frame:
            frame[column] = default
    frame["metric"] = frame["metric"].fillna(DEFAULT_METRIC).astype(str)
    frame["dataset"] = frame["dataset"].fillna("").astype(str)
    frame["arm"], frame["item"] = frame["arm"].astype(str), frame["item"].astype(str)
    bad = sorted(set(frame["kind"].astype(str)) - set(KINDS))
    if bad:
        raise ValueError(f"kind {bad[0]!r} is not one of {KINDS}")
    frame["score"] = pd.to_numeric(frame["score"], errors="coerce")
    if frame["score"].isna().any():
        row = int(np.flatnonzero(frame["score"].isna().to_numpy())[0])
        raise ValueError(f"row {row}: score {table['score'].iloc[row]!r} is not a number "
                         "(leave unscored items out of the table)")
    duplicated = frame.duplicated(["dataset", "metric", "arm", "item", "sample"])
    if duplicated.any():
        row = frame[duplicated].iloc[0]
        raise ValueError(f"arm {row['arm']!r} item {row['item']!r} sample {row['sample']!r} "
                         f"of metric {row['metric']!r} is scored twice: give each repeat its "
                         "own sample")
    fails = frame[(frame["kind"] == "pass_fail") & ~frame["score"].isin([0.0, 1.0])]
    if len(fails):
        raise ValueError(f"metric {fails['metric'].iloc[0]!r} is pass_fail but has score "
                         f"{fails['score'].iloc[0]:g} (pass_fail scores are 0 or 1; use kind "
                         "'mean' for partial credit)")
    return frame


def _range(ranges, metric: str, kind: str) -> Range:
    if ranges is None:
        return (0.0, 1.0) if kind == "pass_fail" else (-math.inf, math.inf)
    if isinstance(ranges, Mapping):
        low, high = metric_range(ranges, metric)
        if kind == "pass_fail" and not (math.isfinite(low) and math.isfinite(high)):
            return (0.0, 1.0)
        return (low, high)
    low, high = (float(b) for b in ranges)
    if not low < high:
        raise ValueError(f"range {ranges} is not (low, high) with low < high")
    return (low, high)


def _arm_means(metric: ItemMetric, seed: int) -> pd.DataFrame:
    """Each arm's mean over its own items and its 95 % interval, as the workflow's tables
    give it: Wilson for a pass rate, the range-aware interval of a bounded mean (t when
    unbounded)."""
    low = metric.low if math.isfinite(metric.span) else -math.inf
    high = metric.low + metric.span if math.isfinite(metric.span) else math.inf
    rows = []
    for arm in metric.arms:
        values = metric.values[arm.label].to_numpy(dtype=float)
        values = values[np.isfinite(values)]
        if metric.kind == "pass_fail":
            ci_low, ci_high = proportion_interval(int(values.sum()), values.size, "wilson")
            method = "wilson"
        else:
            ci_low, ci_high, method = mean_interval(values, {"method": "auto", "seed": seed},
                                                    (low, high))
        rows.append({"dataset": metric.dataset, "metric": metric.metric, "arm": arm.label,
                     "kind": metric.kind, "value": float(values.mean()), "ci_low": ci_low,
                     "ci_high": ci_high, "ci_method": method, "n": int(values.size)})
    return pd.DataFrame(rows, columns=MEAN_COLUMNS)


def _rank_key(column: pd.Series) -> pd.Series:
    if column.name != "rank":
        return column
    return column.map(lambda r: math.inf if r == "-" else int(str(r).rstrip("=")))


def _given(kind: str, sd, discordant) -> tuple[float, str]:
    if kind == "pass_fail":
        return ((float(discordant), "given") if discordant is not None
                else (DEFAULT_DISCORDANT, "the default"))
    return (float(sd), "given") if sd is not None else (DEFAULT_SD, "the default")


def _observed(metric: ItemMetric) -> tuple[float, str]:
    """Median over the metric's pairs of arms of the per-item spread: the sd (ddof 1) of the
    differences, or the share of discordant items."""
    values = metric.values.to_numpy(dtype=float)
    spreads, ns = [], []
    for a in range(values.shape[1]):
        for b in range(a + 1, values.shape[1]):
            both = np.isfinite(values[:, a]) & np.isfinite(values[:, b])
            d = values[both, a] - values[both, b]
            if metric.kind == "pass_fail" and d.size:
                spreads.append(float(np.mean(d != 0)))
            elif d.size > 1:
                spreads.append(float(np.std(d, ddof=1)))
            else:
                continue
            ns.append(d.size)
    if not spreads:
        kind = metric.kind
        spread, _ = _given(kind, None, None)
        return spread, "the default: no pair of arms shares enough items"
    what = "discordant share" if metric.kind == "pass_fail" else "sd of per-item differences"
    return (float(np.median(spreads)),
            f"{what}, median of {len(spreads)} pair(s) at {int(np.median(ns))} shared items")


def _plan_row(dataset, metric, kind, diff, spread, source) -> dict:
    items = (items_for_pass_fail(diff, spread) if kind == "pass_fail"
             else items_for_mean(diff, spread))
    return {"dataset": dataset, "metric": metric, "kind": kind, "diff": float(diff),
            "spread": spread, "source": source, "items": math.nan if items is None else items}
