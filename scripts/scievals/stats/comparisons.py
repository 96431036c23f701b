"""Paired comparisons of arms on the same items -> ``results/<benchmark>/comparisons.csv``.

An *arm* is what a leaderboard row shows: a model, or ``model [condition]`` when the
dataset's rows have several conditions (gating's contexts x strategies, waza's no-skill
run). A benchmark's ``comparisons`` module turns its per-item outputs into
:class:`ItemMetric` (per-item values of every arm: means or pass/fail) or :class:`SetMetric`
(a statistic of the whole item set, recomputed on shared resamples of clustered items).

Which pairs form one multiple-testing family (docs/statistics.md, "Families"): the models
within each condition, the conditions within each model, and - for per-item metrics with
several models and conditions - the models on the pooled conditions. Holm runs within a
family, so adding a condition or a model never changes the p_holm of an unrelated family.

Cost is linear in the arms for the expensive part: a per-item metric is one (items, arms)
matrix handed to a vectorised test; a set metric computes every arm's statistic once on the
shared resamples, and a pair is then a subtraction (:mod:`scievals.stats.paired`). Every
pair uses the items both of its arms scored, so its values equal the leaderboard's when the
arms scored the same items; a set metric's pair of arms that scored different items is
tested by the jackknife on their common items (:attr:`SetMetric.leave_out`), whose few
leave-outs per arm are what is recomputed there, not the B resamples.

:func:`significance_tiers` turns one metric's comparisons into leaderboard ranks that never
claim more than a test shows; :func:`mdd_footer` gives the "differences below X cannot be
told apart" line for the test actually used.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from scievals.common.errors import ScievalsError
from scievals.common.io import user_file, write_csv
from scievals.common.tables import read_result_table
from scievals.stats.intervals import metric_range
from scievals.stats.samples import derived_metrics, derived_ranges
from scievals.stats.paired import (
    ALPHA,
    PairTests,
    holm,
    paired_jackknife_tests,
    paired_mean_tests,
    paired_pass_fail_tests,
    paired_set_tests,
)

# Bump when a change moves a number of comparisons.csv: re-runs every comparisons job.
# v3: families, own items; v4: no row for an undefined value; v5: the paired mean test's range
# guard one-sided at 5 %, mdd NaN for constant differences, McNemar interval by log-scale MOVER,
# and a set metric's pairs of arms that scored different items by the jackknife
# (SetMetric.leave_out); v6: the set bootstrap's variance times the clusters' K / (K - 1)
COMPARISONS_VERSION = "comparisons-v6"
COLUMNS = ["benchmark", "dataset", "metric", "family", "scope", "arm_a", "arm_b", "n",
           "value_a", "value_b", "diff", "ci_low", "ci_high", "p_value", "p_holm", "method",
           "mdd"]
KINDS = ("mean", "pass_fail")

# The families (column ``family``; ``scope`` says which condition / model / pooling).
MODELS = "models"  # the models of one condition (scope: the condition, "" when only one)
CONDITIONS = "conditions"  # the conditions of one model (scope: the model)
POOLED = "models pooled"  # models on every condition's items at once (scope: POOLED_SCOPE)
POOLED_SCOPE = "all conditions"

# Above this many pairs in one (dataset), only the ranking metric's pairs are written (the
# leaderboard's ranks and footer read those); ``comparisons.all_pairs: true`` writes every
# metric's. The job says so in its log and in the run's notices (docs/statistics.md).
ALL_PAIRS_LIMIT = 20_000
# By default a family of more arms is not compared at all (its pairs grow with the square of
# the arms: 1,000 arms are 499,500 pairs); the job says so, and the leaderboard shows no rank
# there. comparisons.max_family_arms raises it.
FAMILY_ARMS_LIMIT = 1_000
# Pairs of a set metric tested at once (each holds its B resampled differences).
PAIR_CHUNK = 20_000


@dataclass(frozen=True)
class Arm:
    """One leaderboard row: its label, and the model and condition it belongs to."""

    label: str
    model: str
    condition: str = ""


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
    item and one column per arm label (NaN where an arm has no value); ``arms`` names each
    column's model and condition (default: the label is the model); the metric's range is
    [``low``, ``low + span``] (a difference lies in [-span, span]; span may be inf)."""

    dataset: str
    metric: str
    kind: str  # "mean" (sign-flip test) or "pass_fail" (exact McNemar)
    values: pd.DataFrame
    arms: tuple[Arm, ...] = ()
    span: float = 1.0
    low: float = 0.0

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind {self.kind!r} is not one of {KINDS}")
        if not self.arms:
            object.__setattr__(self, "arms", tuple(Arm(str(c), str(c))
                                                   for c in self.values.columns))


@dataclass(frozen=True)
class SetMetric:
    """A statistic of a whole item set (e.g. Spearman over antibodies) for one (dataset,
    metric). ``available`` (arms, rows) says which rows each arm scored; ``replicates(i,
    mask)`` returns arm ``i``'s value on the rows of ``mask`` and its values on the B shared
    resamples restricted to those rows (the same resamples for every arm and mask, so a
    pair's bootstrap distribution is a difference of two arms' replicates).

    ``leave_out(arms, mask)``, when given, returns the values (A,) of an array of A arms on
    the rows of ``mask`` and their values (A, C) with each of C clusters of rows left out in
    turn (NaN for a cluster with no row in ``mask``), ``strata`` (C,) the stratum of each
    such cluster: pairs of arms that scored
    different rows are then tested by the jackknife (``jackknife_method``) on the rows both
    scored, each arm's few leave-outs recomputed there, instead of the bootstrap, whose B
    replicates would be recomputed for every arm and every such pair's rows (docs/statistics.md,
    "Arms that scored different items")."""

    dataset: str
    metric: str
    arms: tuple[Arm, ...]
    available: np.ndarray
    replicates: Callable[[int, np.ndarray], tuple[float, np.ndarray]]
    span: float
    method: str = "paired cluster bootstrap"
    testable: bool = True
    leave_out: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None
    strata: np.ndarray | None = None
    jackknife_method: str = "paired cluster jackknife"
    # multiplies the bootstrap's s^2 (stats.intervals.cluster_variance_factor)
    variance_factor: float = 1.0
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def on_rows(self, arm: int, mask: np.ndarray) -> tuple[float, np.ndarray]:
        """``replicates`` of one arm and row mask, computed once."""
        key = (arm, mask.tobytes())
        if key not in self._cache:
            self._cache[key] = self.replicates(arm, mask)
        return self._cache[key]

    def value(self, arm: int) -> float:
        """The arm's statistic on every row it scored."""
        return float(self.on_rows(arm, self.available[arm])[0])


# ---------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """One multiple-testing family: its name, scope and the arms it compares (positions in
    the metric's ``arms``); ``pairs`` (a, b) when not every pair of the members is one of
    its questions (None: all of them)."""

    name: str  # MODELS, CONDITIONS or POOLED
    scope: str
    members: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...] | None = None

    def pair_count(self) -> int:
        k = len(self.members)
        return k * (k - 1) // 2 if self.pairs is None else len(self.pairs)


SINGLE = "single-condition models"  # scope of the pairs of two such models' own conditions


def families(arms: Sequence[Arm]) -> list[Family]:
    """The families of a metric's arms: the conditions of each model, and the models of each
    condition. A model scored in one condition only (a baseline, an own prediction file) is
    the same whatever the condition, so it joins the models family of every condition of the
    models that have several; two such models are compared once, in the family of their
    condition when they all share one (the plain case: every model in one condition), else
    in the family :data:`SINGLE`. Two arms of different models and different conditions
    (both varied) are no question: no pair."""
    conditions: dict[str, set[str]] = {}
    for arm in arms:
        conditions.setdefault(arm.model, set()).add(arm.condition)
    fixed = [len(conditions[a.model]) == 1 for a in arms]
    varied = {a.condition for a, f in zip(arms, fixed) if not f}
    out = []
    by_model: dict[str, list[int]] = {}
    for i, arm in enumerate(arms):
        by_model.setdefault(arm.model, []).append(i)
    out += [Family(CONDITIONS, model, tuple(members)) for model, members in by_model.items()
            if len(members) > 1]
    single = [i for i, f in enumerate(fixed) if f]
    for condition in sorted(varied):
        own = [i for i, a in enumerate(arms) if a.condition == condition and not fixed[i]]
        members = own + single
        pairs = [(a, b) for k, a in enumerate(members) for b in members[k + 1:]
                 if not (fixed[a] and fixed[b])]
        if pairs:
            out.append(Family(MODELS, condition, tuple(members), tuple(pairs)))
    if len(single) > 1:  # the single-condition models among themselves
        shared = {arms[i].condition for i in single}
        scope = shared.pop() if len(shared) == 1 and not shared & varied else SINGLE
        out.append(Family(MODELS, scope, tuple(single)))
    return out


def pooled(metric: ItemMetric) -> ItemMetric | None:
    """Every model's per-item mean over its conditions, as arms named by the model, when a
    per-item-mean metric has several models and some model several conditions (None
    otherwise)."""
    models = list(dict.fromkeys(a.model for a in metric.arms))
    conditions = {a.condition for a in metric.arms}
    if metric.kind != "mean" or len(models) < 2 or len(conditions) < 2:
        return None
    values = metric.values.to_numpy(dtype=float)
    columns = {}
    for model in models:
        cols = [i for i, a in enumerate(metric.arms) if a.model == model]
        with warnings.catch_warnings():  # an item no condition of the model scored: NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            columns[model] = np.nanmean(values[:, cols], axis=1)
    return ItemMetric(metric.dataset, metric.metric, metric.kind,
                      pd.DataFrame(columns, index=metric.values.index),
                      tuple(Arm(m, m, POOLED_SCOPE) for m in models), metric.span, metric.low)


# ---------------------------------------------------------------------------
# Pairs of one family
# ---------------------------------------------------------------------------


def _best_first(members: Sequence[int], values: Mapping[int, float], labels) -> list[int]:
    """Arms best first (by the metric's value over each arm's own items), so that most rows
    read "better minus worse"; undefined values last; ties by label."""
    return sorted(members, key=lambda i: (-np.nan_to_num(values[i], nan=-np.inf), labels[i]))


def _pairs(family: Family, order: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The family's pairs (a, b), a before b in ``order`` (best first)."""
    if family.pairs is None:
        ia, ib = np.triu_indices(len(order), k=1)
        order = np.asarray(order, dtype=np.int64)
        return order[ia], order[ib]
    position = {arm: k for k, arm in enumerate(order)}
    pairs = [(a, b) if position[a] < position[b] else (b, a) for a, b in family.pairs]
    pairs.sort(key=lambda pair: (position[pair[0]], position[pair[1]]))
    return (np.array([a for a, _ in pairs], dtype=np.int64),
            np.array([b for _, b in pairs], dtype=np.int64))


def _item_tests(metric: ItemMetric, ia: np.ndarray, ib: np.ndarray, seed: int) -> PairTests:
    values = metric.values.to_numpy(dtype=float)
    if metric.kind == "pass_fail":
        return paired_pass_fail_tests(values, ia, ib)
    return paired_mean_tests(values, ia, ib, span=metric.span, seed=seed, low=metric.low)


def _set_tests(metric: SetMetric, ia: np.ndarray, ib: np.ndarray) -> list[tuple[np.ndarray,
                                                                                 PairTests]]:
    """Pairs grouped by the rows both arms scored: one shared replicate matrix per group,
    tested in chunks of :data:`PAIR_CHUNK` pairs (a chunk holds its pairs' B differences in
    memory). Two arms that scored the same rows are compared on their own replicates, each
    computed once; two that scored different rows, with ``metric.leave_out``, by the
    jackknife on their common rows (linear in the arms for the bootstrap, the jackknife's
    few leave-outs per arm and pair of rows the rest), else by the bootstrap there."""
    available = metric.available
    masks = available[ia] & available[ib]
    jackknife = np.zeros(len(ia), dtype=bool)
    if metric.leave_out is not None:
        jackknife = (available[ia] != available[ib]).any(axis=1)
    keys = np.c_[np.packbits(masks, axis=1), jackknife.astype(np.uint8)]
    keys, group = np.unique(keys, axis=0, return_inverse=True)
    group = group.ravel()
    out = []
    for g in range(len(keys)):
        where = np.flatnonzero(group == g)
        mask = masks[where[0]]
        arms = np.unique(np.r_[ia[where], ib[where]])
        position = np.full(len(metric.arms), -1, dtype=np.int64)
        position[arms] = np.arange(arms.size)
        if jackknife[where[0]]:  # every arm of the group at once (each pair of rows once)
            point, dist = metric.leave_out(arms, mask)
        else:
            computed = [metric.on_rows(int(i), mask) for i in arms]
            point = np.array([value for value, _ in computed], dtype=float)
            dist = np.stack([np.asarray(replicates, dtype=float) for _, replicates in computed])
        for start in range(0, where.size, PAIR_CHUNK):
            chunk = where[start:start + PAIR_CHUNK]
            pa, pb = position[ia[chunk]], position[ib[chunk]]
            if jackknife[where[0]]:
                tests = paired_jackknife_tests(
                    point, dist, metric.strata, pa, pb, n=int(mask.sum()),
                    label=metric.jackknife_method, span=metric.span, testable=metric.testable)
            else:
                tests = paired_set_tests(point, dist, pa, pb, n=int(mask.sum()),
                                         label=metric.method, span=metric.span,
                                         testable=metric.testable,
                                         variance_factor=metric.variance_factor)
            out.append((chunk, tests))
    return out


def _rows(benchmark: str, metric, family: Family, labels, ia, ib, tests: PairTests,
          keep: np.ndarray) -> pd.DataFrame:
    frame = pd.DataFrame({
        "benchmark": benchmark, "dataset": metric.dataset, "metric": metric.metric,
        "family": family.name, "scope": family.scope,
        "arm_a": [labels[i] for i in ia], "arm_b": [labels[i] for i in ib],
        "n": tests.n, "value_a": tests.value_a, "value_b": tests.value_b, "diff": tests.diff,
        "ci_low": tests.ci_low, "ci_high": tests.ci_high, "p_value": tests.p_value,
        "method": tests.method, "mdd": tests.mdd})
    frame = frame[keep].reset_index(drop=True)
    frame["p_holm"] = holm(frame["p_value"].to_numpy(dtype=float))
    return frame


def _family_rows(benchmark: str, metric: ItemMetric | SetMetric, family: Family,
                 seed: int) -> pd.DataFrame:
    labels = [a.label for a in metric.arms]
    if isinstance(metric, ItemMetric):
        means = metric.values.mean(axis=0, skipna=True).to_numpy(dtype=float)
        ia, ib = _pairs(family, _best_first(family.members, dict(enumerate(means)), labels))
        tests = _item_tests(metric, ia, ib, seed)
    else:
        values = {i: metric.value(i) for i in family.members}
        ia, ib = _pairs(family, _best_first(family.members, values, labels))
        parts = _set_tests(metric, ia, ib)
        tests = _concat_tests(parts, len(ia))
    # a pair with no item in common, or an arm whose value is undefined there (e.g. a
    # constant column: no Spearman), has nothing to compare: no row (the rank treats the
    # pair as untested, and an arm without a value is not ranked)
    keep = ((np.asarray(tests.n) > 0) & np.isfinite(np.asarray(tests.value_a, dtype=float))
            & np.isfinite(np.asarray(tests.value_b, dtype=float)))
    return _rows(benchmark, metric, family, labels, ia, ib, tests, keep)


def _concat_tests(parts: list[tuple[np.ndarray, PairTests]], size: int) -> PairTests:
    """Pair results computed in groups, back in the pairs' order."""
    fields = PairTests.__dataclass_fields__
    out = {}
    for name in fields:
        kind = object if name == "method" else (np.int64 if name == "n" else float)
        column = np.empty(size, dtype=kind)
        for where, tests in parts:
            column[where] = getattr(tests, name)
        out[name] = column
    return PairTests(**out)


def compare_metric(benchmark: str, metric: ItemMetric | SetMetric, bootstrap,
                   notes: list[str] | None = None,
                   max_family_arms: int = FAMILY_ARMS_LIMIT) -> pd.DataFrame:
    """Every family's pairs of one (dataset, metric), Holm-adjusted within the family; a
    family of more than ``max_family_arms`` arms is left out (and said in ``notes``)."""
    seed = int((bootstrap or {}).get("seed", 0))
    todo = [(metric, family) for family in families(metric.arms)]
    if isinstance(metric, ItemMetric):
        pooled_metric = pooled(metric)
        if pooled_metric is not None:
            todo.append((pooled_metric, Family(POOLED, POOLED_SCOPE,
                                               tuple(range(len(pooled_metric.arms))))))
    frames = []
    for of, family in todo:
        if len(family.members) > max_family_arms:
            if notes is not None:
                notes.append(f"{metric.dataset} {metric.metric}: the {family.name} family "
                             f"{family.scope!r} has {len(family.members):,} arms, over the "
                             f"{max_family_arms:,} that are compared pairwise: no "
                             "comparisons and no ranks there (compare a subset of the files, "
                             "or raise comparisons.max_family_arms: the pairs grow with the "
                             "square of the arms)")
            continue
        frames.append(_family_rows(benchmark, of, family, seed))
    return _stacked(frames)


def comparison_table(benchmark: str, metrics: Sequence[ItemMetric | SetMetric], bootstrap,
                     ranking: str | None = None, all_pairs: bool = False,
                     notes: list[str] | None = None,
                     max_family_arms: int = FAMILY_ARMS_LIMIT) -> pd.DataFrame:
    """The comparisons of every metric. Above :data:`ALL_PAIRS_LIMIT` pairs in a dataset
    (and without ``all_pairs``), only the ``ranking`` metric's pairs are computed; what was
    left out is appended to ``notes``; so is a family over ``max_family_arms`` arms, which is
    not compared."""
    frames = []
    for metric in metrics:
        pairs = _pair_count(metric)
        if (not all_pairs and ranking is not None and metric.metric != ranking
                and pairs > ALL_PAIRS_LIMIT):
            if notes is not None:
                notes.append(f"{metric.dataset} {metric.metric}: {pairs:,} pairs not written "
                             f"(over {ALL_PAIRS_LIMIT:,}; only the ranking metric {ranking} "
                             "is compared, for the ranks); set comparisons.all_pairs: true to "
                             "write them")
            continue
        frames.append(compare_metric(benchmark, metric, bootstrap, notes, max_family_arms))
    return _stacked(frames)


def _stacked(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The rows of every non-empty frame, in the table's columns."""
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(frames, ignore_index=True)[COLUMNS]


def _pair_count(metric: ItemMetric | SetMetric) -> int:
    return sum(f.pair_count() for f in families(metric.arms))


def write_comparisons(path: str | os.PathLike, frame: pd.DataFrame) -> None:
    write_csv(path, frame[COLUMNS])


def read_comparisons(path: str | os.PathLike) -> pd.DataFrame:
    """A comparisons.csv, checked: one clear error naming the file otherwise."""
    try:
        frame = pd.read_csv(user_file(path), dtype={"arm_a": str, "arm_b": str, "scope": str,
                                                    "family": str, "dataset": str,
                                                    "method": str},
                            keep_default_na=False, na_values=[""])
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ScievalsError(path, f"not a readable CSV ({exc})",
                            "re-run the workflow to rewrite it") from None
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ScievalsError(path, f"lacks columns {missing}",
                            "comparisons.csv is written by the workflow's comparisons rule; "
                            "re-run the workflow to rewrite it")
    frame["scope"] = frame["scope"].fillna("")
    return frame[COLUMNS]


# ---------------------------------------------------------------------------
# Ranks and footers
# ---------------------------------------------------------------------------


def significance_tiers(values: Mapping[str, float], pairs: pd.DataFrame,
                       alpha: float = ALPHA) -> dict[str, str]:
    """Leaderboard ranks from one metric's comparisons (higher is better).

    Arms are ordered by value; a tier boundary is drawn between two neighbours only where
    EVERY arm above it is significantly better (``p_holm`` < ``alpha`` with a positive
    difference) than every arm below it. A tier's rank is 1 + the number of arms in the
    tiers above, written ``k=`` when the tier holds several arms. So an arm is ranked above
    another only when a test says it is better: a pair that was not tested (no common
    item, different model and condition) or not significant stays in one tier. Arms with
    an undefined value are not ranked ("-")."""
    better = _significantly_better(pairs, alpha)
    ranked = sorted((arm for arm, v in values.items() if _finite(v)),
                    key=lambda arm: (-float(values[arm]), arm))
    ranks = {arm: "-" for arm, v in values.items() if not _finite(v)}
    m = len(ranked)
    # first_fail[b]: the first arm above b that is not significantly better than b; a
    # boundary after position i holds when no arm below it has first_fail <= i.
    first_fail = np.array([next((a for a in range(b) if (ranked[a], ranked[b]) not in better),
                                b) for b in range(m)], dtype=np.int64)
    lowest_after = np.minimum.accumulate(first_fail[::-1])[::-1]  # min over b >= i
    start = 0
    for i in range(m):
        if i == m - 1 or lowest_after[i + 1] > i:  # boundary after i
            label = f"{start + 1}=" if i > start else str(start + 1)
            for arm in ranked[start:i + 1]:
                ranks[arm] = label
            start = i + 1
    return ranks


def _significantly_better(pairs: pd.DataFrame, alpha: float) -> set[tuple[str, str]]:
    """(winner, loser) of every pair whose Holm-adjusted p is below ``alpha``."""
    out = set()
    significant = pairs[pd.to_numeric(pairs["p_holm"], errors="coerce") < alpha]
    for a, b, diff in zip(significant["arm_a"], significant["arm_b"], significant["diff"]):
        if diff > 0:
            out.add((str(a), str(b)))
        elif diff < 0:
            out.add((str(b), str(a)))
    return out


def _finite(value) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def ranking_pairs(pairs: pd.DataFrame, metric: str, arms: Iterable[str]) -> pd.DataFrame:
    """The comparisons the leaderboard's ranks read: the metric's pairs between two of the
    shown ``arms`` (models within a condition, conditions within a model; not the pooled
    family, whose arms are not rows)."""
    arms = set(arms)
    rows = pairs[(pairs["metric"] == metric) & (pairs["family"] != POOLED)]
    return rows[rows["arm_a"].isin(arms) & rows["arm_b"].isin(arms)]


def mdd_footer(pairs: pd.DataFrame, metric: str, item_noun: str) -> str | None:
    """"With N <items>, differences in <metric> below X cannot be told apart (...)": X is the
    median of the pairs' ``mdd`` (:mod:`scievals.stats.paired`: the smallest difference the
    test used detects with 80 % power at the 5 % level, from the observed paired variance).
    Where the test cannot reach p < 0.05 at that n (``mdd`` infinite for every pair), the
    line says so. None without a pair."""
    rows = pairs[pairs["metric"] == metric] if "metric" in pairs else pairs
    mdd = pd.to_numeric(rows["mdd"], errors="coerce").to_numpy(dtype=float)
    ns = rows["n"].to_numpy(dtype=float)
    if not len(rows):
        return None
    n = _count(ns[np.isfinite(ns)])
    if np.all(np.isposinf(mdd)):
        method = str(rows["method"].iloc[0])
        return (f"With {n} {item_noun}, the test used ({method}) cannot detect any difference "
                f"in {metric}: its smallest possible p-value is above 0.05.")
    finite = mdd[np.isfinite(mdd) & (mdd > 0)]
    if not finite.size:
        return None
    return (f"With {n} {item_noun}, differences in {metric} below {float(np.median(finite)):.3g} "
            "cannot be told apart (80 % power, 5 % level, from the observed paired variance).")


def _count(ns: np.ndarray) -> str:
    if not ns.size:
        return "0"
    low, high = int(ns.min()), int(ns.max())
    return f"{low}" if low == high else f"{low}-{high}"


# ---------------------------------------------------------------------------
# Items of the per-item benchmarks
# ---------------------------------------------------------------------------


def per_item_metrics(frame: pd.DataFrame, item: str, metrics: Mapping[str, str],
                     dataset: str, ranges: Mapping | None = None) -> list[ItemMetric]:
    """:class:`ItemMetric` per metric from a per-sample frame with ``model``, ``condition``,
    the ``item`` column and one column per metric: each arm's per-item mean over its samples
    (so repeated samples count once per item). ``metrics`` maps metric -> kind, ``ranges``
    are the benchmark's declared metric ranges (default [0, 1])."""
    frame = frame.assign(_arm=arm_labels(frame))
    arms = {label: Arm(str(label), str(model), str(condition)) for label, model, condition
            in zip(frame["_arm"], frame["model"], frame["condition"].fillna(""))}
    out = []
    for metric, kind in metrics.items():
        if metric not in frame.columns:
            continue
        values = (frame.assign(_v=pd.to_numeric(frame[metric], errors="coerce"))
                  .groupby(["_arm", item])["_v"].mean().unstack("_arm"))
        low, high = bounds(ranges, metric)
        out.append(ItemMetric(dataset, metric, kind, values,
                              tuple(arms[c] for c in values.columns), high - low, low))
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
                   item: str, metrics: Mapping[str, str],
                   ranges: Mapping | None = None) -> list[ItemMetric]:
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
            for metric in per_item_metrics(rows, item, metrics, str(dataset), ranges)]


def per_case_means(inputs: Mapping[str, Sequence[str]], models: Sequence[str],
                   headline: Sequence[str], section: Mapping, bootstrap: Mapping | None = None,
                   ranges: Mapping | None = None) -> list[ItemMetric]:
    """The registry's default items: cases (``case_id``) of each model's per_case.csv, every
    headline metric a per-item mean (the shape the template benchmark writes), each within
    its declared range; where a model answered items k times, also each headline metric's
    best-of-k, consensus, consensus gain and within-item SD, and the samples' agreement
    (:mod:`scievals.stats.samples`; absent columns are skipped)."""
    names = tuple(headline) + derived_metrics(headline)
    declared = {"*": (0.0, 1.0)} if ranges is None else ranges  # bounds(): None is [0, 1]
    return per_item_files(inputs["per_case"], inputs["table"], "case_id",
                          {metric: "mean" for metric in names},
                          derived_ranges(declared))


def bounds(ranges: Mapping | None, metric: str) -> tuple[float, float]:
    """The metric's declared (low, high) range; [0, 1] when none is declared (``ranges``
    None: a caller without ranges, the per-item scores of a template benchmark); a
    metric the declared ranges leave unbounded is (-inf, inf) or (low, inf)."""
    if ranges is None:
        return (0.0, 1.0)
    return metric_range(ranges, metric)


def spans(ranges: Mapping | None, metrics: Iterable[str]) -> dict[str, float]:
    """metric -> width of its declared range (inf where unbounded): a difference of two arms
    lies within +-width."""
    out = {}
    for metric in metrics:
        low, high = bounds(ranges, metric)
        out[metric] = high - low
    return out
