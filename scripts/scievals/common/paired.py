"""Paired tests of two arms scored on the same items (docs/statistics.md).

Each function returns a :class:`PairedResult`: the difference a - b, its 95 % interval,
a two-sided p-value and the ``method`` label that ``comparisons.csv`` carries.

- :func:`paired_means`: per-item means (gating cases, autogkb articles, waza task scores):
  paired t-test (``scipy.stats.ttest_rel``) with its t-interval; it covered 0.94-0.95 at
  15-17 items in benchmarks/interval_coverage.py, where bootstrap intervals were narrower.
- :func:`mcnemar_exact`: per-item pass/fail (waza tasks): exact McNemar test, a binomial
  test of the discordant pairs; the interval of the difference is Newcombe's hybrid score
  interval for paired proportions (his method 10, built from the two Wilson intervals).
- :func:`paired_bootstrap`: set statistics (abdev Spearman, top-10 % recall): both arms
  recomputed on the same resampled clusters; percentile (or BCa) interval and a bootstrap
  p-value.
- :func:`holm`: Holm's step-down adjustment over the pairs of one metric.
- :func:`min_detectable_difference`: the difference a pair's item count can detect.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

# _LAZY_SCIPY: scipy.stats is imported inside the functions that use it: the Snakefile's parse
# imports this module (rules/comparisons.smk: COMPARISONS_VERSION, through
# scievals.common.comparisons), and scipy.stats would add about 0.4 CPU-s to every run,
# no-op re-runs included (benchmarks/workflow_startup.py).
from scievals.common.stats import LEVEL, cluster_bootstrap, interval_method, wilson_interval

ALPHA = 1 - LEVEL
POWER = 0.80


@dataclass(frozen=True)
class PairedResult:
    n: int
    value_a: float
    value_b: float
    diff: float
    ci_low: float
    ci_high: float
    p_value: float
    method: str


def paired_means(a: Sequence[float], b: Sequence[float]) -> PairedResult:
    """Paired t-test on per-item values of two arms (NaN pairs dropped).

    When every difference is the same, t is undefined: a difference of 0 everywhere gives
    p = 1, a constant non-zero one the exact sign-flip p-value 2 / 2**n (every one of the
    2**n sign assignments but the observed two is less extreme)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    n = int(a.size)
    if n == 0:
        return PairedResult(0, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan,
                            "paired t")
    d = a - b
    diff = float(d.mean())
    if n < 2:
        return PairedResult(n, float(a.mean()), float(b.mean()), diff, math.nan, math.nan,
                            math.nan, "paired t")
    if np.all(d == d[0]):
        p = 1.0 if d[0] == 0 else min(1.0, 2.0 / 2.0**n)
        return PairedResult(n, float(a.mean()), float(b.mean()), diff, diff, diff, p,
                            "paired t (constant differences: exact sign-flip p)")
    from scipy import stats  # here, not at the top: see _LAZY_SCIPY
    test = stats.ttest_rel(a, b)
    ci = test.confidence_interval(LEVEL)
    return PairedResult(n, float(a.mean()), float(b.mean()), diff, float(ci.low),
                        float(ci.high), float(test.pvalue), "paired t")


def mcnemar_exact(a: Sequence[float], b: Sequence[float]) -> PairedResult:
    """Exact McNemar test of per-item pass (1) / fail (0) outcomes of two arms.

    With n10 items that only a passed and n01 that only b passed, the difference of pass
    rates is (n10 - n01) / n; under "no difference" n10 ~ Binomial(n10 + n01, 1/2), tested
    with scipy.stats.binomtest. The interval: :func:`newcombe_paired_interval`."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    if not np.all(np.isin(a, (0.0, 1.0)) & np.isin(b, (0.0, 1.0))):
        raise ValueError("the exact McNemar test needs pass/fail values 0 or 1")
    a, b = a == 1.0, b == 1.0
    n = int(a.size)
    method = "exact McNemar"
    if n == 0:
        return PairedResult(0, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan,
                            method)
    n11, n10 = int(np.sum(a & b)), int(np.sum(a & ~b))
    n01, n00 = int(np.sum(~a & b)), int(np.sum(~a & ~b))
    discordant = n10 + n01
    from scipy import stats  # here, not at the top: see _LAZY_SCIPY
    p = 1.0 if discordant == 0 else float(stats.binomtest(n10, discordant, 0.5).pvalue)
    low, high = newcombe_paired_interval(n11, n10, n01, n00)
    return PairedResult(n, float(a.mean()), float(b.mean()), (n10 - n01) / n, low, high, p,
                        method)


def newcombe_paired_interval(n11: int, n10: int, n01: int, n00: int) -> tuple[float, float]:
    """95 % interval of p_a - p_b for paired pass/fail (Newcombe 1998, method 10).

    With the Wilson intervals [l1, u1] of p_a = (n11 + n10) / n and [l2, u2] of
    p_b = (n11 + n01) / n and Newcombe's corrected phi of the 2x2 table, phi = C / sqrt(A)
    with A the product of the four margins, B = n11 n00 - n10 n01 and C = B - n/2 when
    B > n/2, B when B < 0, else 0 (phi = 0 when a margin is empty):
    low = d - sqrt((p_a - l1)^2 - 2 phi (p_a - l1)(u2 - p_b) + (u2 - p_b)^2),
    high = d + sqrt((u1 - p_a)^2 - 2 phi (u1 - p_a)(p_b - l2) + (p_b - l2)^2)."""
    n = n11 + n10 + n01 + n00
    pa, pb = (n11 + n10) / n, (n11 + n01) / n
    l1, u1 = wilson_interval(n11 + n10, n)
    l2, u2 = wilson_interval(n11 + n01, n)
    margins = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    b = n11 * n00 - n10 * n01
    c = b - n / 2 if b > n / 2 else (b if b < 0 else 0.0)
    phi = c / math.sqrt(margins) if margins else 0.0
    d = pa - pb
    below, above = pa - l1, u2 - pb  # the arms' own interval half-widths towards low
    low = d - math.sqrt(max(0.0, below**2 - 2 * phi * below * above + above**2))
    below, above = u1 - pa, pb - l2  # ... and towards high
    high = d + math.sqrt(max(0.0, below**2 - 2 * phi * below * above + above**2))
    return (low, high)


def paired_bootstrap(statistic_a: Callable[[list[np.ndarray]], np.ndarray],
                     statistic_b: Callable[[list[np.ndarray]], np.ndarray],
                     clusters: Sequence[np.ndarray], bootstrap, n: int,
                     method: str) -> PairedResult:
    """Difference of a set statistic between two arms over the same resampled clusters.

    ``statistic_x(weights)`` computes arm x's values from row multiplicities per stratum
    (see :func:`scievals.common.stats.cluster_bootstrap`); the point values use weight 1
    everywhere. The p-value is the two-sided bootstrap one, 2 * min(P*(diff <= 0),
    P*(diff >= 0)) with the +1 correction of Davison & Hinkley (so never 0; with R
    resamples at least 2 / (R + 1))."""
    ones = [np.ones((1, len(codes))) for codes in clusters]
    value_a, value_b = float(statistic_a(ones)[0]), float(statistic_b(ones)[0])
    low, high, dist = cluster_bootstrap(lambda w: statistic_a(w) - statistic_b(w),
                                        clusters, bootstrap)
    dist = dist[np.isfinite(dist)]
    if dist.size:
        tail = min(np.sum(dist <= 0), np.sum(dist >= 0))
        p = min(1.0, 2 * (tail + 1) / (dist.size + 1))
    else:
        p = math.nan
    interval = "BCa" if interval_method(bootstrap) == "bca" else "percentile"
    return PairedResult(n, value_a, value_b, value_a - value_b, low, high, p,
                        f"{method} ({interval})")


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (NaN stays NaN and does not count as a test).

    Sorted ascending, p_(i) becomes max over j <= i of min(1, (m - j + 1) * p_(j))."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, math.nan)
    finite = np.flatnonzero(np.isfinite(p))
    m = finite.size
    running = 0.0
    for rank, index in enumerate(finite[np.argsort(p[finite], kind="stable")]):
        running = max(running, min(1.0, (m - rank) * p[index]))
        out[index] = running
    return out.tolist()


def critical_values(method: str, n: int) -> tuple[float, float]:
    """(two-sided 5 % critical value, 80 % power quantile) of the method's reference
    distribution: Student t with n - 1 df for the paired t-test, else the normal.

    The quantile functions are scipy.special's, the ones scipy.stats' ``t.ppf`` and
    ``norm.ppf`` call (same values to the last bit), so a comparisons job of abdev, which
    needs no other part of scipy.stats, does not import it (0.3 CPU-s)."""
    from scipy.special import ndtri, stdtrit  # here, not at the top: see _LAZY_SCIPY
    if method.startswith("paired t") and n >= 2:
        return (float(stdtrit(n - 1, 1 - ALPHA / 2)), float(stdtrit(n - 1, POWER)))
    return (float(ndtri(1 - ALPHA / 2)), float(ndtri(POWER)))


def min_detectable_difference(ci_low: float, ci_high: float, method: str, n: int) -> float:
    """Smallest true difference detected with 80 % power at the 5 % level, from the
    observed standard error of a pair: SE = half the CI width / critical value, and
    MDD = (critical value + power quantile) * SE (e.g. (1.96 + 0.84) * SE for the normal)."""
    if not (np.isfinite(ci_low) and np.isfinite(ci_high)):
        return math.nan
    critical, power = critical_values(method, n)
    return (critical + power) * (ci_high - ci_low) / 2 / critical


# --- interim vectorised interface (replaced by the stats rewrite) ---------------------------
@dataclass(frozen=True)
class PairTests:
    """Results for P pairs; every field an array of length P."""
    n: np.ndarray
    value_a: np.ndarray
    value_b: np.ndarray
    diff: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray
    method: np.ndarray
    mdd: np.ndarray


def _collect(results: list[PairedResult]) -> PairTests:
    field = lambda name, kind=float: np.array([getattr(r, name) for r in results], dtype=kind)
    mdd = np.array([min_detectable_difference(r.ci_low, r.ci_high, r.method, r.n)
                    for r in results], dtype=float)
    return PairTests(field("n", int), field("value_a"), field("value_b"), field("diff"),
                     field("ci_low"), field("ci_high"), field("p_value"),
                     field("method", object), mdd)


def paired_mean_tests(values, ia, ib, *, span: float, seed: int) -> PairTests:
    values = np.asarray(values, dtype=float)
    return _collect([paired_means(values[:, a], values[:, b]) for a, b in zip(ia, ib)])


def paired_pass_fail_tests(values, ia, ib) -> PairTests:
    values = np.asarray(values, dtype=float)
    return _collect([mcnemar_exact(values[:, a], values[:, b]) for a, b in zip(ia, ib)])


def paired_set_tests(point, dist, ia, ib, *, n, label: str, span: float,
                     testable: bool = True) -> PairTests:
    from scievals.common.stats import scipy_percentile_interval
    out = []
    n = np.broadcast_to(np.asarray(n), (len(ia),))
    for a, b, size in zip(ia, ib, n):
        d = dist[a] - dist[b]
        low, high = scipy_percentile_interval(d)
        d = d[np.isfinite(d)]
        tail = min(np.sum(d <= 0), np.sum(d >= 0)) if d.size else 0
        p = min(1.0, 2 * (tail + 1) / (d.size + 1)) if d.size and testable else math.nan
        out.append(PairedResult(int(size), float(point[a]), float(point[b]),
                                float(point[a] - point[b]), low, high, p, f"{label} (percentile)"))
    return _collect(out)
