"""Calibration of stated confidences: is a model right when it says it is sure?

Inputs are scored units (common.experiments.Unit: a gate, an annotation) nested in cases:
per unit its case, whether it is right (0/1) and its confidence in [0, 1]. Units without a
valid confidence enter only ``confidence_coverage``; every other metric is over the units
that state one. Definitions (docs/statistics.md, "Calibration"):

- ``calibration_brier``: mean of (confidence - correct)^2;
- ``calibration_ece``: 10 equal-width bins on [0, 1] (a confidence of exactly 1 in the
  last), sum over bins of (bin units / units) x |mean confidence - accuracy| (Guo et al.
  2017). The plug-in is biased upwards at our sizes (a calibrated model of ~400 units shows
  ~0.03); ``calibration_ece_debiased`` subtracts each bin's sampling noise from its squared
  gap (gap^2 - acc (1 - acc) / (n_b - 1), floored at 0; Kumar et al. 2019's correction of
  the squared error, per bin) before the square root and the weighting;
- ``calibration_auroc``: P(a right unit states more than a wrong one), ties half: Mann-Whitney's
  U / (right x wrong), U counted exactly in integers (scipy.stats.mannwhitneyu's statistic to
  the bit, a test checks; NaN when all units are right or all wrong);
- ``selective_precision@50`` / ``@80``: precision of the 50 % / 80 % most confident units
  (ceil of the share); units tied at the cut count with their tie group's accuracy (the
  expectation over random tie-breaking, so the order of the file does not matter);
- ``aurc``: mean over k = 1..n of the risk (1 - precision) of the k most confident units,
  ties as above: the area under the risk-coverage curve (lower is better);
- ``confidence_coverage``: share of a case's units that state a valid confidence, averaged
  over cases (``n`` = cases, the interval of every per-case mean: a case counts once, and an
  arm that states every confidence gets Wilson's [lower bound, 1], not [1, 1]).

Intervals: the cluster bootstrap over cases (a case's units are drawn together), percentile,
with the spread around the point widened by sqrt(K / (K - 1)) for K cases
(stats.intervals.cluster_variance_factor: the bootstrap's plug-in variance is (K - 1) / K of
the truth) and by t(0.975, K - 1) / z(0.975), widened to hold the point and kept in [0, 1]. Paired comparisons of arms: :func:`set_metrics` gives stats.comparisons.SetMetric
objects whose arms share the same case resamples (benchmarks/interval_coverage.py and
docs/statistics.md give the coverage).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from scievals.stats.intervals import (
    cluster_counts,
    cluster_variance_factor,
    metric_means,
)

N_BINS = 10
SELECTIVE_SHARES = {"selective_precision@50": 0.5, "selective_precision@80": 0.8}
METRICS = ("calibration_brier", "calibration_ece", "calibration_ece_debiased",
           "calibration_auroc", *SELECTIVE_SHARES, "aurc", "confidence_coverage")
LOWER_IS_BETTER = ("calibration_brier", "calibration_ece", "calibration_ece_debiased", "aurc")
# The table's metric name of a source: verbal (stated in the reply) has no suffix, so the
# headline rows read ``calibration_ece``; agreement confidence (share of samples) is
# ``calibration_ece:agreement``.
SOURCES = ("verbal", "agreement")
CI_METHOD = "cluster bootstrap (cases)"


def metric_name(metric: str, source: str = "verbal") -> str:
    if source not in SOURCES:
        raise ValueError(f"calibration source {source!r} is not one of {SOURCES}")
    return metric if source == "verbal" else f"{metric}:{source}"


# ---------------------------------------------------------------------------
# Point statistics (numpy arrays: confidence in [0, 1], correct 0/1)
# ---------------------------------------------------------------------------


def bins(confidence: np.ndarray) -> np.ndarray:
    """Bin of each confidence: floor(10 c), with c == 1 in bin 9."""
    return np.minimum((np.asarray(confidence, dtype=float) * N_BINS).astype(np.int64),
                      N_BINS - 1)


def brier(confidence, correct) -> float:
    c, y = _arrays(confidence, correct)
    return float(np.mean((c - y) ** 2)) if c.size else math.nan


def reliability(confidence, correct) -> list[dict]:
    """Per bin: ``bin`` (0..9), ``low``/``high`` edges, ``count``, ``mean_confidence``,
    ``accuracy`` (NaN for an empty bin): the reliability diagram's data."""
    c, y = _arrays(confidence, correct)
    b = bins(c)
    out = []
    for k in range(N_BINS):
        inside = b == k
        n = int(inside.sum())
        out.append({"bin": k, "low": k / N_BINS, "high": (k + 1) / N_BINS, "count": n,
                    "mean_confidence": float(c[inside].mean()) if n else math.nan,
                    "accuracy": float(y[inside].mean()) if n else math.nan})
    return out


def ece(confidence, correct) -> float:
    c, y = _arrays(confidence, correct)
    return float(_weighted_ece(c, y, np.ones((1, c.size)))[0]) if c.size else math.nan


def ece_debiased(confidence, correct) -> float:
    c, y = _arrays(confidence, correct)
    return float(_weighted_ece(c, y, np.ones((1, c.size)), debiased=True)[0]) if c.size \
        else math.nan


def auroc(confidence, correct) -> float:
    c, y = _arrays(confidence, correct)
    return float(_weighted_auroc(c, y, np.ones((1, c.size), dtype=np.int64))[0])


def precision_curve(confidence, correct) -> np.ndarray:
    """Precision of the k most confident units for k = 1..n, ties at the cut counted with
    their group's accuracy."""
    c, y = _arrays(confidence, correct)
    if not c.size:
        return np.array([])
    order = np.argsort(-c, kind="stable")
    c, y = c[order], y[order]
    starts = np.r_[0, np.flatnonzero(np.diff(c)) + 1]
    sizes = np.diff(np.r_[starts, c.size])
    hits = np.add.reduceat(y, starts)
    before = np.r_[0.0, np.cumsum(hits)[:-1]]
    group = np.repeat(np.arange(starts.size), sizes)
    k = np.arange(1, c.size + 1)
    correct_k = before[group] + (k - starts[group]) * (hits / sizes)[group]
    return correct_k / k


def selective_precision(confidence, correct, share: float) -> float:
    curve = precision_curve(confidence, correct)
    if not curve.size:
        return math.nan
    return float(curve[max(1, math.ceil(share * curve.size)) - 1])


def risk_coverage(confidence, correct) -> tuple[np.ndarray, np.ndarray]:
    """(coverage k/n, risk 1 - precision of the k most confident) for k = 1..n."""
    curve = precision_curve(confidence, correct)
    return np.arange(1, curve.size + 1) / max(curve.size, 1), 1.0 - curve


def aurc(confidence, correct) -> float:
    curve = precision_curve(confidence, correct)
    return float(np.mean(1.0 - curve)) if curve.size else math.nan


POINT = {"calibration_brier": brier, "calibration_ece": ece,
         "calibration_ece_debiased": ece_debiased, "calibration_auroc": auroc,
         **{name: (lambda c, y, s=share: selective_precision(c, y, s))
            for name, share in SELECTIVE_SHARES.items()},
         "aurc": aurc}


# ---------------------------------------------------------------------------
# Weighted forms for the bootstrap: weights (B, n) are unit multiplicities
# ---------------------------------------------------------------------------


def _weighted_ece(c: np.ndarray, y: np.ndarray, w: np.ndarray, debiased: bool = False
                  ) -> np.ndarray:
    onehot = np.zeros((c.size, N_BINS))
    onehot[np.arange(c.size), bins(c)] = 1.0
    count = w @ onehot
    conf = w @ (onehot * c[:, None])
    hits = w @ (onehot * y[:, None])
    total = count.sum(axis=1)
    with np.errstate(all="ignore"):
        if not debiased:
            gap = np.abs(conf - hits)  # count x |mean conf - accuracy|
        else:
            acc = hits / count
            noise = np.where(count > 1, acc * (1 - acc) / (count - 1), 0.0)
            squared = (conf / count - acc) ** 2 - noise
            gap = count * np.sqrt(np.clip(np.nan_to_num(squared), 0.0, None))
        return np.nansum(np.where(count > 0, gap, 0.0), axis=1) / total


def _value_groups(c: np.ndarray, w: np.ndarray, y: np.ndarray):
    """Every replicate's units pooled by distinct confidence, in ascending order: (B, G)
    integer-valued totals of the weights of all, right (y == 1) and wrong (y == 0) units and
    of w * y (the hits :func:`precision_curve` adds up)."""
    w = w.astype(float)  # integer-valued: every sum below is exact, in any order
    if not c.size:
        empty = np.zeros((len(w), 0))
        return empty, empty, empty, empty
    _, group = np.unique(c, return_inverse=True)
    # units sorted by group, each group's columns summed: O(B n), where a one-hot product
    # was O(B n G) and n x G of memory (continuous confidences: G = n, quadratic)
    order = np.argsort(group, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(group[order]) != 0])

    def totals(weights: np.ndarray) -> np.ndarray:
        return np.add.reduceat(weights[:, order], starts, axis=1)

    return totals(w), totals(w * (y == 1)), totals(w * (y == 0)), totals(w * y)


def _weighted_auroc(c: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """AUROC of every replicate: U / (right x wrong) with Mann-Whitney's U = sum over the
    right units of the wrong ones below plus half the tied ones, all in integers (twice U),
    so each value is exactly scipy.stats.mannwhitneyu's U over the same division (the
    ranks' sums are exact half-integers there too; tests/stats/test_stats_calibration_vector.py
    compares them replicate by replicate)."""
    _, right, wrong, _ = _value_groups(c, w, y)
    below = np.cumsum(wrong, axis=1) - wrong
    twice_u = (right * (2 * below + wrong)).sum(axis=1)
    pairs = right.sum(axis=1) * wrong.sum(axis=1)
    with np.errstate(all="ignore"):
        return np.where(pairs > 0, (twice_u / 2) / pairs, math.nan)


def _descending(c: np.ndarray, y: np.ndarray, w: np.ndarray):
    """The groups of :func:`precision_curve` per replicate (most confident first): sizes
    (B, G) as integers, hits, hits before each group, each group's first position."""
    sizes, _, _, hits = _value_groups(c, w, y)
    sizes, hits = sizes[:, ::-1].astype(np.int64), hits[:, ::-1]
    before = np.cumsum(hits, axis=1) - hits
    starts = np.cumsum(sizes, axis=1) - sizes
    return sizes, hits, before, starts


def _weighted_selective(c: np.ndarray, y: np.ndarray, w: np.ndarray, share: float
                        ) -> np.ndarray:
    """:func:`selective_precision` of every replicate, the same operations at the cut k."""
    sizes, hits, before, starts = _descending(c, y, w)
    total = sizes.sum(axis=1)
    k = np.maximum(1, np.ceil(share * total).astype(np.int64))
    # the group holding position k: the last one starting before it
    g = np.maximum((starts < k[:, None]).sum(axis=1) - 1, 0)[:, None]
    at = (lambda a: np.take_along_axis(a, g, axis=1)[:, 0])
    with np.errstate(all="ignore"):
        value = (at(before) + (k - at(starts)) * (at(hits) / at(sizes))) / k
    return np.where(total > 0, value, math.nan)


# Positions of the risk-coverage curves held at once by :func:`_weighted_aurc` (~16 MB each
# of the few float arrays): replicates go in chunks of about this many curve points.
AURC_CHUNK = 2_000_000


def _weighted_aurc(c: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """:func:`aurc` of every replicate. Each replicate's curve point k is computed as
    :func:`precision_curve` does, then each curve is summed with numpy's pairwise summation
    over one contiguous row, as np.mean of one curve does (np.add.reduceat sums in another
    order); curves of one length are summed together."""
    sizes, hits, before, starts = _descending(c, y, w)
    total = sizes.sum(axis=1)
    out = np.full(len(w), math.nan)
    first = 0
    while first < len(w):  # replicates in chunks of about AURC_CHUNK curve points
        last = first + max(1, int(np.searchsorted(np.cumsum(total[first:]), AURC_CHUNK,
                                                  side="right")))
        rows = slice(first, last)
        out[rows] = _aurc_rows(sizes[rows], hits[rows], before[rows], starts[rows],
                               total[rows])
        first = last
    return out


def _aurc_rows(sizes, hits, before, starts, total) -> np.ndarray:
    # one flat curve: replicate after replicate, each group's cell repeated over its positions
    cell = np.repeat(np.arange(sizes.size), sizes.ravel())
    offset = np.cumsum(total) - total
    k = np.arange(cell.size) - np.repeat(offset, total) + 1
    with np.errstate(all="ignore"):
        ratio = (hits / sizes).ravel()[cell]
    curve = 1.0 - (before.ravel()[cell] + (k - starts.ravel()[cell]) * ratio) / k
    out = np.full(len(total), math.nan)
    for length in np.unique(total[total > 0]):
        picked = np.flatnonzero(total == length)
        block = curve[offset[picked][:, None] + np.arange(length)]
        out[picked] = np.add.reduce(block, axis=1) / length
    return out


def weighted(metric: str, c: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``metric`` on every row of the multiplicities ``w`` (B, n): the number
    :data:`POINT`'s function gives on the units repeated that often, without repeating them
    or a Python call per row."""
    w = np.atleast_2d(np.asarray(w))
    if metric == "calibration_brier":
        with np.errstate(all="ignore"):
            return (w @ (c - y) ** 2) / w.sum(axis=1)
    if metric in ("calibration_ece", "calibration_ece_debiased"):
        return _weighted_ece(c, y, w, debiased=metric == "calibration_ece_debiased")
    w = w.astype(np.int64)
    if metric == "calibration_auroc":
        return _weighted_auroc(c, y, w)
    if metric == "aurc":
        return _weighted_aurc(c, y, w)
    return _weighted_selective(c, y, w, SELECTIVE_SHARES[metric])


# ---------------------------------------------------------------------------
# One arm's table rows
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ArmUnits:
    """One arm's units as arrays: ``case`` (codes 0..K-1 over the arm's cases), ``correct``
    (0/1) and ``confidence`` (NaN where none was stated)."""

    case: np.ndarray
    correct: np.ndarray
    confidence: np.ndarray

    @classmethod
    def from_rows(cls, rows: Sequence[tuple[str, bool, float | None]]) -> ArmUnits:
        """From (case id, correct, confidence or None) per unit."""
        cases = {}
        codes = [cases.setdefault(str(case), len(cases)) for case, _, _ in rows]
        return cls(np.asarray(codes, dtype=np.int64),
                   np.asarray([float(bool(r[1])) for r in rows], dtype=float),
                   np.asarray([math.nan if r[2] is None else float(r[2]) for r in rows],
                              dtype=float))

    @property
    def stated(self) -> np.ndarray:
        return np.isfinite(self.confidence)


def case_weights(n_cases: int, bootstrap: Mapping) -> np.ndarray:
    """(B, K) draw counts of K cases: per resample K cases with replacement (one seeded
    generator, as stats.intervals.cluster_bootstrap draws); (0, K) without resamples."""
    n_resamples = int(bootstrap.get("n_resamples", 1000))
    if n_resamples <= 0 or n_cases < 2:
        return np.zeros((0, n_cases))
    rng = np.random.default_rng(int(bootstrap.get("seed", 0)))
    return cluster_counts(rng.integers(0, n_cases, (n_resamples, n_cases)), n_cases)


def small_k_factor(n_cases: int) -> float:
    """t(0.975, K - 1) / z(0.975): a percentile interval of K clusters has a normal
    quantile where its spread is estimated from K values (1.09 at 15 cases, 1.08 at 17)."""
    from scipy.special import ndtri, stdtrit  # scipy.special: cheap to import, unlike stats

    return float(stdtrit(n_cases - 1, 0.975) / ndtri(0.975)) if n_cases >= 2 else 1.0


def interval(point: float, dist: np.ndarray, n_cases: int) -> tuple[float, float]:
    """Percentile interval of ``dist``, its distances from ``point`` stretched by
    sqrt(K / (K - 1)) (the cluster bootstrap's small-K shrinkage undone) and by
    :func:`small_k_factor` (benchmarks/interval_coverage.py: 0.90-0.93 without it), then widened to
    hold the point (the bootstrap of a biased statistic such as the ECE sits above it) and
    kept within [0, 1], the range of every calibration metric."""
    dist = dist[np.isfinite(dist)]
    if not math.isfinite(point) or dist.size < 2:
        return (math.nan, math.nan)
    low, high = np.quantile(dist, [0.025, 0.975])
    stretch = math.sqrt(cluster_variance_factor([n_cases])) * small_k_factor(n_cases)
    low, high = point - stretch * (point - low), point + stretch * (high - point)
    return (float(max(0.0, min(low, point))), float(min(1.0, max(high, point))))


def arm_rows(units: ArmUnits, bootstrap: Mapping, source: str = "verbal",
             ranges: Mapping[str, tuple[float, float]] | None = None) -> list[dict]:
    """The calibration metric dicts of one arm (stats.intervals.metric_means' shape, for
    common.tables.result_rows): value, 95 % interval, ``n`` = units that state a confidence
    (all units for ``confidence_coverage``). Nothing when the arm has no unit."""
    if not units.case.size:
        return []
    stated = units.stated
    # coverage: a per-case share averaged over cases, with the tables' interval of a per-case
    # mean (an all-stated arm gets Wilson's [lower, 1], not a zero-width bootstrap [1, 1])
    shares = pd.Series(stated.astype(float)).groupby(units.case).mean()
    rows = metric_means({metric_name("confidence_coverage", source): shares}, bootstrap,
                        {"*": (0.0, 1.0)})
    n_cases = int(units.case.max()) + 1
    weights = case_weights(n_cases, bootstrap)[:, units.case]
    c, y = units.confidence[stated], units.correct[stated]
    w = weights[:, stated]
    cases_stated = np.unique(units.case[stated]).size
    for metric in METRICS[:-1]:
        name = metric_name(metric, source)
        if not c.size:
            rows.append({"metric": name, "value": math.nan, "n": 0})
            continue
        value = POINT[metric](c, y)
        low, high = interval(value, weighted(metric, c, y, w) if len(w) else np.array([]),
                             cases_stated)
        rows.append({"metric": name, "value": value, "ci_low": low, "ci_high": high,
                     "n": int(c.size), "ci_method": CI_METHOD})
    return rows


def _arrays(confidence, correct) -> tuple[np.ndarray, np.ndarray]:
    c = np.asarray(confidence, dtype=float).ravel()
    y = np.asarray(correct, dtype=float).ravel()
    if c.shape != y.shape:
        raise ValueError(f"{c.size} confidences for {y.size} outcomes")
    return c, y
