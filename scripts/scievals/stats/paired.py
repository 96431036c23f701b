"""Paired tests of arms scored on the same items (docs/statistics.md).

The comparison engine (:mod:`scievals.stats.comparisons`) calls these functions, each
vectorised over P pairs of arms and each returning a :class:`PairTests` whose interval and
p-value come from ONE test, so ``p_value < 0.05`` exactly when 0 lies outside
``[ci_low, ci_high]``:

- :func:`paired_mean_tests` - per-item scores (gating cases, autogkb articles, waza task
  scores): the sign-flip (permutation) test of the mean paired difference, exact by
  enumeration of all 2^n sign patterns up to ``EXACT_MAX_ITEMS`` items and seeded
  Monte-Carlo beyond; the interval inverts it (Hartigan 1969: order statistics of the
  subset means of the differences); guarded by the range-aware MOVER-Wilson interval
  (one-sided at 5 %), which keeps the level when one arm is all-or-nothing.
- :func:`paired_pass_fail_tests` - per-item pass/fail (waza tasks): exact McNemar test;
  the interval combines the Clopper-Pearson interval of the discordant split with the
  interval of the discordant share (on the log scale away from 0), so it excludes 0 exactly
  when the McNemar p is below 0.05.
- :func:`paired_set_tests` - statistics of a whole set (abdev Spearman, top-10 % recall)
  from both arms' values on shared bootstrap resamples: the normal test of the difference
  with the standard deviation of the paired replicate differences;
  :func:`paired_jackknife_tests` the same normal test with the delete-one-cluster
  jackknife's standard error, for pairs of arms that scored different items (abdev files
  that skip antibodies: no shared resamples to difference without recomputing every arm).

``mdd`` is the smallest true difference the pair's test detects with 80 % power at the 5 %
level; +inf where that test can never reach p < 0.05 with the pair's n, NaN where every
difference is the same (a copy: no spread to scale, never 0). :func:`holm` adjusts
a family's p-values.

The per-pair functions below them (:func:`paired_means`, :func:`mcnemar_exact`,
:func:`paired_bootstrap`, :func:`min_detectable_difference`) are the former one-pair API,
kept for callers that compare a single pair.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

# _LAZY_SCIPY: scipy.stats is imported inside the functions that use it: the Snakefile's parse
# imports this module (rules/comparisons.smk: COMPARISONS_VERSION, through
# scievals.stats.comparisons), and scipy.stats would add about 0.4 CPU-s to every run,
# no-op re-runs included (benchmarks/workflow_startup.py).
from scievals.stats.intervals import (
    ESS_DF_PER_ITEM,
    LEVEL,
    cluster_bootstrap,
    ess_quantile,
    interval_method,
    wilson_ess_bounds,
    wilson_interval,
)

ALPHA = round(1 - LEVEL, 12)  # 0.05 exactly (1 - 0.95 is 0.050000000000000044)
POWER = 0.80

# Sign-flip test: every one of the 2^n - 1 non-empty item subsets up to EXACT_MAX_ITEMS items
# (8,191 subsets); beyond, as many seeded random subsets (Monte-Carlo: the test keeps its
# level exactly, its p-value moves by about +-0.005 at 0.05). Exact enumeration at 17 items
# (131,071 subsets) took ~20 s per 10,000 pairs: the engine compares every pair of arms.
EXACT_MAX_ITEMS = 13
MC_SUBSETS = 2**EXACT_MAX_ITEMS - 1
_CHUNK_VALUES = 4_000_000  # subset sums held at once (32 MB of float64)
# Subset matrices up to this many items are kept (8,191 x 512 float64: 34 MB); beyond, the
# Monte-Carlo subsets are drawn in blocks of _CHUNK_VALUES entries for every test.
CACHED_MAX_ITEMS = 512
# Normal samples per item count behind the sign-flip test's minimum detectable difference.
MDD_DRAWS = 2000
# Beyond this many items the minimum detectable differences use the normal approximation.
LARGE_N = 150
# The McNemar interval takes the discordant share of items from its Wilson interval: at
# PASS_FAIL_SHARE_LEVEL on a side that crosses 0 (0.80 covered 0.955-0.965 at 4-17 tasks;
# 0.95: 0.99), at PASS_FAIL_PRODUCT_LEVEL where it is combined with the exact split interval
# on the log scale (MOVER for a product: a difference away from 0). The former product of
# the ends covered only 0.83-0.87 at large differences between 10 tasks, where the share's
# uncertainty dominates (benchmarks/interval_coverage.py; docs/statistics.md)
PASS_FAIL_SHARE_LEVEL = 0.80
PASS_FAIL_PRODUCT_LEVEL = 0.90
# The range guard of the paired mean test rejects one-sided at 5 % in the direction of the
# difference: its MOVER interval is the two-sided 90 % one. The failure it guards against (an
# arm at its bound looks better on every item) inflates one side only, and the sign-flip test
# carries the two-sided level; at 95 % the guard took almost all the power on all-or-nothing
# vs steady arms (0.035 at 15 items against 0.20; docs/statistics.md has the simulation).
GUARD_LEVEL = 0.90


@dataclass(frozen=True)
class PairTests:
    """Results for P pairs; every field an array of length P (docs/statistics.md)."""

    n: np.ndarray        # int: items both arms scored (the pair uses exactly those)
    value_a: np.ndarray  # arm a's value (mean / pass rate) on those items
    value_b: np.ndarray
    diff: np.ndarray     # value_a - value_b
    ci_low: np.ndarray   # 95 % interval of the difference, inside [-span, span]
    ci_high: np.ndarray
    p_value: np.ndarray  # two-sided; NaN = no test made
    method: np.ndarray   # object array of str: the comparisons.csv ``method`` label
    mdd: np.ndarray      # smallest |difference| detected with 80 % power at 5 %; +inf: never;
    #                      NaN: constant differences, no spread to scale (a copy)


def _blank(size: int) -> dict:
    nan = np.full(size, math.nan)
    return {"n": np.zeros(size, dtype=int), "value_a": nan.copy(), "value_b": nan.copy(),
            "diff": nan.copy(), "ci_low": nan.copy(), "ci_high": nan.copy(),
            "p_value": nan.copy(), "method": np.full(size, "", dtype=object), "mdd": nan.copy()}


def _pairs(values, ia, ib) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, both, n): each pair's two columns as rows (P, items), where both are finite,
    and how many such items."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"values must be (items, arms), got shape {values.shape}")
    ia, ib = np.asarray(ia, dtype=int).ravel(), np.asarray(ib, dtype=int).ravel()
    if ia.shape != ib.shape:
        raise ValueError("ia and ib must have the same length")
    a, b = values[:, ia].T, values[:, ib].T
    both = np.isfinite(a) & np.isfinite(b)
    return a, b, both, both.sum(axis=1)


def _compact(rows: np.ndarray, both: np.ndarray, m: int) -> np.ndarray:
    """The m finite entries of every row (rows with exactly m of them), in item order."""
    order = np.argsort(~both, axis=1, kind="stable")[:, :m]
    return np.take_along_axis(rows, order, axis=1)


def _means(x: np.ndarray, both: np.ndarray, n: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(both, x, 0.0).sum(axis=1) / n


def _wilson_zero_bound(n) -> np.ndarray:
    """Wilson's upper bound of a share never seen in n items, z^2 / (n + z^2): how far a
    difference that was the same on every item may still differ on the items not seen."""
    z2 = _z(1 - ALPHA / 2) ** 2
    return z2 / (np.asarray(n, dtype=float) + z2)


def _z(q: float) -> float:
    from scipy.special import ndtri  # lazily: see _LAZY_SCIPY
    return float(ndtri(q))


@lru_cache(maxsize=64)
def _subsets(n: int, seed: int) -> np.ndarray:
    """(M, n) 0/1 matrix of non-empty item subsets: all 2^n - 1 when n <= EXACT_MAX_ITEMS,
    else MC_SUBSETS drawn uniformly (each item in with probability 1/2; an empty draw is
    drawn again), seeded by (seed, n). Read-only: it is shared by every call. Only for
    n <= CACHED_MAX_ITEMS (the matrix is M x n float64): larger n go through
    :func:`_subset_blocks`."""
    if n <= EXACT_MAX_ITEMS:
        codes = np.arange(1, 2**n, dtype=np.int64)
        out = ((codes[:, None] >> np.arange(n)) & 1).astype(float)
    else:
        out = np.concatenate(list(_drawn_blocks(n, seed, MC_SUBSETS)))
    out.setflags(write=False)
    return out


def _drawn_blocks(n: int, seed: int, rows: int):
    """The Monte-Carlo subsets of :func:`_subsets`, ``rows`` at a time (float 0/1 blocks).

    The generator's stream is read in the same order as one (MC_SUBSETS, n) draw, so the
    subsets are the same at every block size: rows that came out empty are left out of their
    block and drawn again at the end, exactly as the whole matrix's redraw loop drew them.
    The statistics (counts and order statistics of subset sums) do not depend on the rows'
    order, so a blocked test gives the p and interval of the whole matrix."""
    rng = np.random.default_rng([seed, n])
    empty = 0
    for start in range(0, MC_SUBSETS, rows):
        block = rng.random((min(rows, MC_SUBSETS - start), n)) < 0.5
        keep = block.any(axis=1)
        empty += int(block.shape[0] - keep.sum())
        yield block[keep].astype(float)
    while empty:  # the whole matrix's loop: all empty rows drawn again at once, until none
        block = rng.random((empty, n)) < 0.5
        keep = block.any(axis=1)
        empty = int(empty - keep.sum())
        yield block[keep].astype(float)


def _subset_blocks(n: int, seed: int):
    """The subsets of :func:`_subsets` as blocks of at most _CHUNK_VALUES entries: the cached
    matrix for small n, else drawn afresh block by block, so the memory of a test stays
    flat in the number of items (a whole 8,191 x 200,000 matrix is 13 GB)."""
    if n <= CACHED_MAX_ITEMS:
        yield _subsets(n, seed)
    else:
        yield from _drawn_blocks(n, seed, max(1, _CHUNK_VALUES // n))


def sign_flip(d: np.ndarray, span: float, seed: int = 0, alpha: float = ALPHA,
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sign-flip test of the mean of each row of ``d`` (P, n) paired differences, n >= 1,
    and the interval inverting it: (p, low, high), each (P,).

    Flipping the signs of the items in a subset S changes the sum by -2 sum_S d, so a sign
    pattern is at least as extreme (upwards) as the observed one exactly when sum_S d <= 0.
    With T = 2^n patterns (exact) or M + 1 (M random subsets plus the observed pattern),
    the one-sided p-values are p_up = (1 + #{S: sum_S d <= 0}) / T and p_down likewise
    with >= 0, and p = min(1, 2 min(p_up, p_down)). Testing "mean = delta" instead shifts
    every d by delta, and the subsets with sum_S (d - delta) <= 0 are those whose mean is
    <= delta; so the values not rejected at level alpha form [low, high] = the k-th
    smallest and k-th largest subset mean, k = floor(T alpha / 2) (Hartigan 1969), and
    (T alpha / 2 never being an integer) p < alpha exactly when 0 is outside. With k = 0
    (n <= 5 at 5 %: the smallest p is 2 / 2^n) the interval is [-span, span]."""
    d = np.asarray(d, dtype=float)
    size, n = d.shape
    count = 2**n - 1 if n <= EXACT_MAX_ITEMS else MC_SUBSETS
    total = count + 1
    k = int(total * alpha / 2)
    tol = 1e-9 * span  # sums that are 0 up to rounding count as 0 (e.g. 0.1 + 0.2 - 0.3)
    p = np.empty(size)
    low, high = np.full(size, -float(span)), np.full(size, float(span))
    step = max(1, _CHUNK_VALUES // count)
    for start in range(0, size, step):
        rows = d[start:start + step]
        sums, sizes = np.empty((len(rows), count)), np.empty(count)
        at = 0
        for block in _subset_blocks(n, seed):  # (P, M) sums, never an M x n matrix at once
            sums[:, at:at + len(block)] = rows @ block.T
            sizes[at:at + len(block)] = block.sum(axis=1)
            at += len(block)
        below = np.count_nonzero(sums <= tol, axis=1)
        above = np.count_nonzero(sums >= -tol, axis=1)
        p[start:start + step] = np.minimum(1.0, 2.0 * (1 + np.minimum(below, above)) / total)
        if k:
            means = sums / sizes
            part = np.partition(means, (k - 1, count - k), axis=1)
            low[start:start + step] = part[:, k - 1]
            high[start:start + step] = part[:, count - k]
    # rounding: an end within tol of 0 is 0 when the p-value says "not significant"
    keep = p >= alpha
    low[keep & (low > 0)] = 0.0
    high[keep & (high < 0)] = 0.0
    return p, low, high


@lru_cache(maxsize=64)
def sign_flip_mdd_factor(n: int, seed: int = 0) -> float:
    """The sign-flip test's minimum detectable difference at n items in units of the
    differences' standard deviation, for normal differences: the test shifts with the data,
    so with [L_j, U_j] the intervals of MDD_DRAWS standard normal samples, the power at a
    true mean delta > 0 is about the share of L_j > -delta; the factor is the smallest delta
    where that share reaches 80 %. +inf where the test cannot reject at all (n <= 5)."""
    total = (2**n if n <= EXACT_MAX_ITEMS else MC_SUBSETS + 1)
    if n < 2 or int(total * ALPHA / 2) == 0:
        return math.inf
    if n > LARGE_N:  # the permutation test is the t-test here: (t_0.975 + t_0.8) / sqrt(n)
        from scipy.special import stdtrit  # lazily: see _LAZY_SCIPY
        return float((stdtrit(n - 1, 1 - ALPHA / 2) + stdtrit(n - 1, POWER)) / math.sqrt(n))
    z = np.random.default_rng([seed, n, 1]).standard_normal((MDD_DRAWS, n))
    _, low, _ = sign_flip(z, float(np.abs(z).max()) * n, seed)
    return float(np.sort(-low)[math.ceil(POWER * MDD_DRAWS) - 1])


def paired_mean_tests(values: np.ndarray, ia: np.ndarray, ib: np.ndarray, *,
                      span: float, seed: int = 0, low: float = 0.0) -> PairTests:
    """Per-item means of a metric with range [low, low + span], on the items both arms
    scored: the sign-flip test of the mean difference (:func:`sign_flip`), guarded by the
    range-aware MOVER-Wilson interval (:func:`mover_wilson`) at GUARD_LEVEL.

    The sign-flip test is exact when the differences are symmetric under "no difference",
    but when one arm is all-or-nothing and the other steady they are not: an arm that
    passes a case 90 % of the time passes all 15 with probability 0.2, beats the steady arm
    on every case, and every test of the differences alone rejects (sign-flip type-I 0.2;
    the studentized sign-flip is the same test: sum d^2 does not change when signs flip, so
    t is an increasing function of the sum). MOVER combines the two arms' own bounded
    intervals, so a mean of 1.0 over 15 cases still admits 0.84. That failure makes one side
    too likely, so the guard tests one-sided at 5 % in the direction of the difference: its
    interval is the two-sided 90 % one and its p the one-sided P(T > z*). A pair is
    significant only when both reject: p = max(p_signflip, p_guard), interval = the hull of
    the sign-flip's 95 % interval and the guard's; both hold the point difference, so 0 is
    outside the hull exactly when it is outside both, i.e. p < 0.05 exactly when the
    interval excludes 0 (docs/statistics.md has the simulation).

    ``values``: (items, arms), NaN where an arm has no value; ``ia``/``ib``: (P,) column
    indices. n == 0 gives NaN everywhere; n == 1 the test's own answer (p = 1). Never
    zero-width (the MOVER part is not); inside [-span, span]. ``span`` = inf (a metric with
    no upper bound): the sign-flip test alone, with the spread of the values seen standing in
    for the span."""
    span, low = float(span), float(low)
    if not span > 0:
        raise ValueError(f"span must be positive, got {span}")
    a, b, both, n = _pairs(values, ia, ib)
    bounded = math.isfinite(span)
    for x in (a, b):
        seen = x[np.isfinite(x)]
        if bounded and seen.size and (seen.min() < low - 1e-9 * span
                                      or seen.max() > low + span * (1 + 1e-9)):
            raise ValueError(f"values {seen.min():g}..{seen.max():g} leave the metric's range "
                             f"[{low:g}, {low + span:g}]")
    if not bounded:
        # no upper bound (autogkb's reference score): the range guard needs one, so it is
        # off, and the spread of the values seen stands in for the span (rounding tolerance,
        # the interval of a test that cannot reject, the widening of constant differences)
        seen = np.asarray(values, dtype=float)
        seen = seen[np.isfinite(seen)]
        span = float(seen.max() - seen.min()) if seen.size and seen.max() > seen.min() else 1.0
    out = _blank(len(n))
    out["n"] = n
    with np.errstate(invalid="ignore"):
        out["value_a"], out["value_b"] = _means(a, both, n), _means(b, both, n)
    out["diff"] = out["value_a"] - out["value_b"]
    if bounded:
        mv_p, mv_low, mv_high = mover_wilson(a, b, both, n, low, span, GUARD_LEVEL)
        # two-sided at 10 % -> one-sided at 5 %: the factor is exactly 0.5, so p < 0.05
        # exactly where mover_wilson's p < 0.10, i.e. where its 90 % interval excludes 0
        mv_p = mv_p * (ALPHA / round(1 - GUARD_LEVEL, 12))
    else:  # neutral in max(p) and in the hull
        mv_p, mv_low, mv_high = np.zeros(len(n)), np.full(len(n), np.inf), np.full(len(n), -np.inf)
    d_all = a - b
    for m in np.unique(n[n > 0]):
        rows = np.flatnonzero(n == m)
        d = _compact(d_all[rows], both[rows], int(m))
        p, sf_low, sf_high = sign_flip(d, span, seed)
        diff = d.mean(axis=1)
        ci_low = np.minimum(np.minimum(sf_low, diff), mv_low[rows])
        ci_high = np.maximum(np.maximum(sf_high, diff), mv_high[rows])
        p = np.maximum(p, mv_p[rows])
        # every difference the same value c (a copy: c = 0): neither test sees any spread,
        # so the interval keeps at least Wilson's bound of a share never seen,
        # h = span z^2 / (n + z^2), on the sides the test leaves open
        constant = np.ptp(d, axis=1) <= 1e-9 * span
        h = span * _wilson_zero_bound(m)
        open_low = constant & ~((p < ALPHA) & (diff > 0))
        open_high = constant & ~((p < ALPHA) & (diff < 0))
        ci_low[open_low] = np.minimum(ci_low[open_low], diff[open_low] - h)
        ci_high[open_high] = np.maximum(ci_high[open_high], diff[open_high] + h)
        # a bounded metric's differences lie in [-span, span]; an unbounded one's do not
        # (the spread seen stands in for its span: clipping there made [c, c] of a
        # constant difference c = -span zero-width)
        limit = span if bounded else math.inf
        out["ci_low"][rows] = np.clip(ci_low, -limit, limit)
        out["ci_high"][rows] = np.clip(ci_high, -limit, limit)
        out["p_value"][rows] = p
        kind = ("exact" if m <= EXACT_MAX_ITEMS else f"Monte-Carlo, {MC_SUBSETS} subsets")
        out["method"][rows] = f"sign-flip ({kind})" + (" with range guard" if bounded else "")
        sd = d.std(axis=1, ddof=1) if m > 1 else np.zeros(len(rows))
        factor = sign_flip_mdd_factor(int(m), seed)
        # constant differences (a copy) show no spread to scale: NaN, "not estimable",
        # never 0 (which would claim that any difference is detectable)
        out["mdd"][rows] = (math.inf if math.isinf(factor)
                            else np.where(constant, math.nan, factor * sd))
    return PairTests(**out)


def mover_wilson(a: np.ndarray, b: np.ndarray, both: np.ndarray, n: np.ndarray,
                 low: float, span: float, level: float = LEVEL,
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(p, ci_low, ci_high) per row pair of the MOVER interval at ``level`` of a difference
    of means (Zou & Donner 2008; Newcombe's 1998 method 10 is its pass/fail case): with each arm's
    bounded interval [l, u] around its mean m (:func:`scievals.stats.intervals.wilson_ess_bounds`
    on the common items rescaled to [0, 1]) and r the arms' Pearson correlation there,
    low = d - sqrt((m_a - l_a)^2 + (u_b - m_b)^2 - 2 r (m_a - l_a)(u_b - m_b)), high likewise.
    p is the level at which the interval's end reaches 0: the quantile z* solving
    low(z*) = 0 (high(z*) = 0 when d < 0), found by bisection, p = 2 P(T > z*) with T the
    Student t of :func:`scievals.stats.intervals.ess_quantile`; d = 0 gives p = 1; so
    p < 1 - level exactly when the interval excludes 0."""
    from scipy.special import stdtr  # lazily: see _LAZY_SCIPY

    size = len(n)
    with np.errstate(invalid="ignore", divide="ignore"):
        ya = np.where(both, (a - low) / span, 0.0)
        yb = np.where(both, (b - low) / span, 0.0)
        ma, mb = ya.sum(axis=1) / n, yb.sum(axis=1) / n
        da, db = np.where(both, ya - ma[:, None], 0.0), np.where(both, yb - mb[:, None], 0.0)
        ssa, ssb, sab = (da * da).sum(axis=1), (db * db).sum(axis=1), (da * db).sum(axis=1)
        r = np.nan_to_num(np.clip(sab / np.sqrt(ssa * ssb), -1.0, 1.0))
    d = ma - mb

    def ends(z):
        la, ua = wilson_ess_bounds(ma, ssa, n, z)
        lb, ub = wilson_ess_bounds(mb, ssb, n, z)
        below = (ma - la) ** 2 + (ub - mb) ** 2 - 2 * r * (ma - la) * (ub - mb)
        above = (ua - ma) ** 2 + (mb - lb) ** 2 - 2 * r * (ua - ma) * (mb - lb)
        return d - np.sqrt(np.maximum(below, 0.0)), d + np.sqrt(np.maximum(above, 0.0))

    df = ESS_DF_PER_ITEM * np.maximum(n - 1, 1)
    ci_low, ci_high = ends(ess_quantile(n, level))
    # bisection for z*: the end nearer 0 moves towards it as z grows
    lo_z, hi_z = np.zeros(size), np.full(size, 60.0)
    for _ in range(60):
        mid = (lo_z + hi_z) / 2
        e_low, e_high = ends(mid)
        inside = np.where(d > 0, e_low > 0, e_high < 0)  # 0 still outside at this z
        lo_z, hi_z = np.where(inside, mid, lo_z), np.where(inside, hi_z, mid)
    p = np.where(d == 0, 1.0, np.minimum(1.0, 2 * stdtr(df, -lo_z)))
    # one test: agree with the interval exactly where bisection's last digit might not
    alpha = round(1 - level, 12)
    excluded = (ci_low > 0) | (ci_high < 0)
    p = np.where(excluded & (p >= alpha), np.nextafter(alpha, 0), p)
    p = np.where(~excluded & (p < alpha), alpha, p)
    none = n == 0
    p[none], ci_low[none], ci_high[none] = math.nan, math.nan, math.nan
    return p, ci_low * span, ci_high * span


def paired_pass_fail_tests(values: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> PairTests:
    """Per-item pass (1) / fail (0): exact McNemar test on the items both arms have.

    With n10 items only a passed and n01 only b passed (m = n10 + n01 discordant), under
    "no difference" n10 ~ Binomial(m, 1/2); p = min(1, 2 min(P(X <= n10), P(X >= n10)))
    (the binomial is symmetric, so this is also scipy's two-sided binomtest). The
    difference of pass rates is psi (2 pi - 1), psi = m / n the discordant share and
    pi = n10 / m; its interval combines the Clopper-Pearson 95 % interval [pi_l, pi_u] (the
    one that inverts the same binomial test) with Wilson intervals of psi. An end on the
    far side of d from 0, or a near end that stays on d's side (d = psi q > 0, q = 2 pi - 1;
    d < 0 mirrors it with q = 1 - 2 pi): MOVER on the log scale with [psi_l, psi_u] at
    PASS_FAIL_PRODUCT_LEVEL, high = d exp(sqrt(ln(q_u / q)^2 + ln(psi_u / psi)^2)),
    q_u = 2 pi_u - 1, and low = d exp(-sqrt(ln(q / q_l)^2 + ln(psi / psi_l)^2)) when
    q_l = 2 pi_l - 1 > 0. An end that crosses 0 (q_l <= 0), and both ends at d = 0:
    low = (2 pi_l - 1) psi_u', high = (2 pi_u - 1) psi_u' with psi_u' the Wilson upper end
    at PASS_FAIL_SHARE_LEVEL. So low > 0 exactly when 1/2 is below [pi_l, pi_u], i.e. 0 is
    outside exactly when p < 0.05. m = 0 gives p = 1 and [-psi_u', psi_u']."""
    from scipy.special import bdtr, betaincinv  # lazily: see _LAZY_SCIPY

    a, b, both, n = _pairs(values, ia, ib)
    finite = np.concatenate([a[np.isfinite(a)], b[np.isfinite(b)]])
    if not np.all((finite == 0.0) | (finite == 1.0)):
        raise ValueError("the exact McNemar test needs pass/fail values 0 or 1")
    out = _blank(len(n))
    out["n"] = n
    out["method"][:] = "exact McNemar"
    n10 = np.count_nonzero(both & (a == 1) & (b == 0), axis=1)
    n01 = np.count_nonzero(both & (a == 0) & (b == 1), axis=1)
    m = n10 + n01
    some = n > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        out["value_a"], out["value_b"] = _means(a, both, n), _means(b, both, n)
        out["diff"] = np.where(some, (n10 - n01) / np.maximum(n, 1), math.nan)
        lower = bdtr(n10, m, 0.5)          # P(X <= n10)
        upper = bdtr(m - n10, m, 0.5)      # P(X >= n10) = P(X <= m - n10) by symmetry
        p = np.where(m > 0, np.minimum(1.0, 2 * np.minimum(lower, upper)), 1.0)
        pi_low = np.where(n10 > 0, betaincinv(n10, m - n10 + 1, ALPHA / 2), 0.0)
        pi_high = np.where(n10 < m, betaincinv(n10 + 1, m - n10, 1 - ALPHA / 2), 1.0)
    pi_low, pi_high = np.nan_to_num(pi_low), np.nan_to_num(pi_high, nan=1.0)
    share_low, share_high = _wilson_arrays(m, n, PASS_FAIL_SHARE_LEVEL)
    low = (2 * pi_low - 1) * np.where(pi_low < 0.5, share_high, share_low)
    high = (2 * pi_high - 1) * np.where(pi_high > 0.5, share_high, share_low)
    # a difference away from 0: combine the two factors' intervals on the log scale (MOVER
    # for a product): the product of both ends understated a large difference's range
    # (pointwise 0.83-0.87 at 10 tasks), where the share's uncertainty dominates
    share_low, share_high = _wilson_arrays(m, n, PASS_FAIL_PRODUCT_LEVEL)
    with np.errstate(invalid="ignore", divide="ignore"):
        up = n10 > n01
        share = m / np.maximum(n, 1)
        q = np.abs(2 * n10 / np.maximum(m, 1) - 1)              # |2 pi - 1|
        q_far = np.where(up, 2 * pi_high - 1, 1 - 2 * pi_low)
        q_near = np.where(up, 2 * pi_low - 1, 1 - 2 * pi_high)  # > 0 exactly when p < 0.05
        size = share * q
        far = size * np.exp(np.hypot(np.log(q_far / q), np.log(share_high / share)))
        near = np.where(q_near > 0,
                        size * np.exp(-np.hypot(np.log(q / q_near), np.log(share / share_low))),
                        np.where(up, low, -high))
    moved = n10 != n01
    low = np.where(moved, np.where(up, near, -far), low)
    high = np.where(moved, np.where(up, far, -near), high)
    # the same test: agree with p exactly where rounding of the beta quantile might not
    significant = p < ALPHA
    low[~significant & (low > 0)] = 0.0
    high[~significant & (high < 0)] = 0.0
    out["ci_low"] = np.where(some, np.clip(low, -1.0, 1.0), math.nan)
    out["ci_high"] = np.where(some, np.clip(high, -1.0, 1.0), math.nan)
    out["p_value"] = np.where(some, p, math.nan)
    out["mdd"] = np.where(some, _mcnemar_mdd(n, m), math.nan)
    return PairTests(**out)


def _wilson_arrays(k, n, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson interval of k successes in n trials, elementwise (NaN where n = 0)."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    z2 = _z(0.5 + level / 2) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = math.sqrt(z2) * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
        low = np.where(k == 0, 0.0, centre - half)
        high = np.where(k == n, 1.0, centre + half)
    return low, high


def _mcnemar_mdd(n: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per pair: :func:`mcnemar_mdd` of its item count and discordant count."""
    out = np.full(len(n), math.nan)
    for key in set(zip(n.tolist(), m.tolist())):
        if key[0] > 0:
            out[(n == key[0]) & (m == key[1])] = mcnemar_mdd(*key)
    return out


@lru_cache(maxsize=1024)
def mcnemar_mdd(n: int, discordant: int) -> float:
    """The exact McNemar test's minimum detectable difference of pass rates at n items
    with the observed discordant share psi = discordant / n: the smallest true difference
    delta (on a 0.0025 grid) whose power reaches 80 %, when every item is discordant with
    probability max(psi, delta) (two arms that differ by delta disagree on at least that
    share) and a discordant item favours a with probability (1 + delta / share) / 2; the
    power sums the binomial probabilities of every (m, n10) the test rejects. +inf when no
    delta <= 1 reaches 80 % (n <= 5: the smallest p is 2 / 2^n > 0.05)."""
    from scipy.special import bdtr, comb, ndtri  # lazily: see _LAZY_SCIPY

    if n > LARGE_N:  # normal approximation: Var(n10 - n01) / n^2 ~ psi / n
        share = max(discordant / n, 1e-12)
        delta = (ndtri(1 - ALPHA / 2) + ndtri(POWER)) * math.sqrt(share / n)
        if delta > share:  # the arms must then disagree on more items: psi = delta
            delta = (ndtri(1 - ALPHA / 2) + ndtri(POWER)) ** 2 / n
        return float(delta) if delta <= 1 else math.inf
    counts = np.arange(n + 1)
    m_, x_ = counts[:, None], counts[None, :]
    valid = x_ <= m_
    tail = np.minimum(bdtr(x_, m_, 0.5), bdtr(m_ - x_, m_, 0.5))
    reject = valid & (2 * tail < ALPHA)
    if not reject.any():
        return math.inf
    delta = np.arange(1, 401) / 400
    share = np.maximum(discordant / n, delta)
    pi = (1 + delta / share) / 2

    def pmf(k, trials, prob):  # binomial probabilities, 0 where k > trials (0^0 = 1)
        k, trials = np.broadcast_arrays(k, trials)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = comb(trials, k) * prob**k * (1 - prob) ** np.maximum(trials - k, 0)
        return np.where(k <= trials, out, 0.0)

    p_m = pmf(counts[None, :], n, share[:, None])                            # (G, n+1)
    p_x = pmf(x_[None], m_[None], pi[:, None, None])                         # (G, m, x)
    power = np.einsum("gm,gmx,mx->g", p_m, p_x, reject.astype(float))
    reached = np.flatnonzero(power >= POWER)
    return float(delta[reached[0]]) if reached.size else math.inf


def paired_set_tests(point: np.ndarray, dist: np.ndarray, ia: np.ndarray, ib: np.ndarray, *,
                     n: np.ndarray, label: str, span: float,
                     testable: bool = True, variance_factor: float = 1.0) -> PairTests:
    """Set statistics (abdev Spearman, top-10 % recall) from every arm's values on the same
    B resamples: ``point`` (arms,), ``dist`` (arms, B); pair (a, b)'s bootstrap
    distribution is D = dist[a] - dist[b] (NaN replicates ignored, R = the finite ones).

    The test is the bootstrap's normal one: with d the point difference and s the standard
    deviation of D, z = d / s, p = 2 Phi(-|z|) and the interval d -+ z(0.975) s, so p < 0.05
    exactly when 0 is outside, and the interval always holds the point difference. Unlike a
    p-value counted from the resamples (never below 2 / (R + 1): with 1,000 resamples no pair
    of a Holm family of ten or more arms could be significant), it has no floor, so ranks
    stay possible with many models; on clustered antibodies it covered and rejected as the
    percentile interval did (docs/statistics.md). All-equal differences c (s = 0): a zero c
    gets p = 1 and the interval -+ span * the Wilson bound of n items; a non-zero c the
    resample-count p, 2 / (R + 1), and an interval from c of that width. ``testable=False``:
    p and mdd NaN (reported without a significance claim). ``variance_factor`` multiplies
    s^2: a cluster bootstrap's small-K correction
    (:func:`scievals.stats.intervals.cluster_variance_factor`)."""
    span = float(span)
    out, diffs = _set_pairs(point, dist, ia, ib, n, label)
    if not diffs.size:  # no pair, or no resample (bootstrap.n_resamples: 0): no interval
        return PairTests(**out)
    finite = np.isfinite(diffs)
    r = np.count_nonzero(finite, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a pair with < 2 finite replicates
        sd = np.nanstd(diffs, axis=1, ddof=1) * math.sqrt(float(variance_factor))
        first = np.nanmax(diffs, axis=1)
        constant = (r > 0) & (first - np.nanmin(diffs, axis=1) <= 1e-12 * span)
    return _normal_tests(out, sd, first, constant, r, span, testable)


def paired_jackknife_tests(point: np.ndarray, leave_out: np.ndarray, strata: np.ndarray,
                           ia: np.ndarray, ib: np.ndarray, *, n: np.ndarray, label: str,
                           span: float, testable: bool = True) -> PairTests:
    """Set statistics from every arm's values with one cluster left out (the delete-one-
    cluster jackknife; abdev's pairs of arms that predicted different antibodies, both
    recomputed on the antibodies both predicted): ``point`` (arms,), ``leave_out`` (arms, C),
    column c the statistic without cluster c (NaN: no such cluster on the pair's rows),
    ``strata`` (C,) the stratum (CV fold) each cluster belongs to.

    Pair (a, b): D = leave_out[a] - leave_out[b]; with k_f the finite columns of stratum f,
    the stratified jackknife variance s^2 = sum_f (k_f - 1) / k_f sum_{c in f} (D_c - mean_f
    D)^2, and then the normal test of :func:`paired_set_tests` with s for the bootstrap's
    standard deviation (z = d / s, interval d -+ z(0.975) s: p < 0.05 exactly when 0 is
    outside). Every leave-out difference the same (s = 0): a zero difference gets p = 1
    and the Wilson-width interval, a non-zero one p = 2 / (R + 1) with R the finite columns,
    as the bootstrap's all-equal resamples do. Linear in the clusters, where the bootstrap
    is linear in its resamples (docs/statistics.md)."""
    span = float(span)
    strata = np.asarray(strata).ravel()
    out, diffs = _set_pairs(point, leave_out, ia, ib, n, label)
    size = len(diffs)
    if not size:
        return PairTests(**out)
    finite = np.isfinite(diffs)
    variance, spread = np.zeros(size), np.zeros(size)
    for stratum in np.unique(strata):
        cols = strata == stratum
        d, keep = diffs[:, cols], finite[:, cols]
        k = np.count_nonzero(keep, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            centred = np.where(keep, d - np.where(keep, d, 0.0).sum(axis=1, keepdims=True)
                               / k[:, None], 0.0)
            variance += np.where(k > 1, (k - 1) / k * (centred**2).sum(axis=1), 0.0)
        spread = np.maximum(spread, np.abs(centred).max(axis=1, initial=0.0))
    r = np.count_nonzero(finite, axis=1)
    constant = (r > 0) & (spread <= 1e-12 * span)
    return _normal_tests(out, np.sqrt(variance), out["diff"], constant, r, span, testable)


def _set_pairs(point, values, ia, ib, n, label: str) -> tuple[dict, np.ndarray]:
    """What the set-statistic tests share: the fields of P pairs (n, method, both arms'
    values and the difference) and the pairs' differences of ``values`` (arms, R) rows."""
    point = np.asarray(point, dtype=float)
    values = np.asarray(values, dtype=float)
    ia, ib = np.asarray(ia, dtype=int).ravel(), np.asarray(ib, dtype=int).ravel()
    size = len(ia)
    out = _blank(size)
    out["n"] = np.broadcast_to(np.asarray(n, dtype=int), (size,)).copy()
    out["method"][:] = f"{label} (normal)"
    out["value_a"], out["value_b"] = point[ia], point[ib]
    out["diff"] = out["value_a"] - out["value_b"]
    return out, values[ia] - values[ib]


def _normal_tests(out: dict, sd: np.ndarray, first: np.ndarray, constant: np.ndarray,
                  r: np.ndarray, span: float, testable: bool) -> PairTests:
    """The normal test of ``out["diff"]`` with standard error ``sd`` (P pairs), filling
    ``out``'s interval, p and mdd: z = d / sd, p = 2 Phi(-|z|), d -+ z(0.975) sd. Pairs whose
    replicate differences are all equal (``constant``, ``first`` one of them, ``r`` their
    count): a zero one p = 1 and the Wilson-width interval; else p = 2 / (r + 1)."""
    from scipy.special import ndtr  # lazily: see _LAZY_SCIPY

    diff = out["diff"]
    size = len(diff)
    with np.errstate(invalid="ignore", divide="ignore"):
        critical = _z(1 - ALPHA / 2)
        half = critical * sd
        p = 2.0 * ndtr(-np.abs(diff) / sd)
    low, high = diff - half, diff + half
    h = span * _wilson_zero_bound(out["n"])
    zero = constant & (np.abs(first) <= 1e-12 * span)
    p[zero] = 1.0
    low[zero], high[zero] = np.minimum(-h[zero], diff[zero]), np.maximum(h[zero], diff[zero])
    shifted = constant & ~zero
    p[shifted] = np.minimum(1.0, 2.0 / (r[shifted] + 1))
    significant = shifted & (p < ALPHA)
    low[significant] = np.where(first[significant] > 0, first[significant],
                                first[significant] - h[significant])
    high[significant] = low[significant] + h[significant]
    unclear = shifted & ~significant
    low[unclear] = np.minimum(-h[unclear], diff[unclear])
    high[unclear] = np.maximum(h[unclear], diff[unclear])
    undefined = (r < 2) | ~np.isfinite(diff)
    out["ci_low"] = np.where(undefined, math.nan, np.clip(low, -span, span))
    out["ci_high"] = np.where(undefined, math.nan, np.clip(high, -span, span))
    out["p_value"] = np.where(undefined, math.nan, p)
    mdd = np.where(sd > 0, (critical + _z(POWER)) * sd, math.inf)
    out["mdd"] = np.where(undefined, math.nan, mdd)
    if not testable:
        out["p_value"] = np.full(size, math.nan)
        out["mdd"] = np.full(size, math.nan)
    return PairTests(**out)


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
    (see :func:`scievals.stats.intervals.cluster_bootstrap`); the point values use weight 1
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

