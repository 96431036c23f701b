"""95 % confidence intervals that hold at the benchmarks' sizes (docs/statistics.md).

- per-item means (gating cases, autogkb articles, waza tasks): Student-t interval on the
  per-item values (``method: auto``) or a seeded bootstrap (``bca``/``percentile``);
- proportions over independent items (waza pass rates): Wilson score interval;
- statistics of a whole set (Spearman, top-10 % recall): seeded bootstrap resampling
  clusters of items (abdev's sequence clusters) within strata (CV folds); percentile by
  default (``auto``), BCa on request.

Every interval comes with the label written to the tables' ``ci_method`` column. The
``bootstrap:`` config section (``n_resamples``, ``seed``, ``method``) chooses the method.
Also here: the unbiased pass@k / pass^k estimators for repeated pass/fail trials.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np

LEVEL = 0.95
# bootstrap.method: auto = t for per-item means, cluster percentile for set statistics.
METHODS = ("auto", "bca", "percentile")


def bootstrap_ci(
    data: Sequence[np.ndarray],
    statistic: Callable[..., np.ndarray],
    n_resamples: int,
    seed: int,
    paired: bool = True,
    method: str = "percentile",
) -> tuple[float, float]:
    """95 % CI of ``statistic`` over resampled rows of ``data`` (``method``: ``percentile``
    or ``bca``; a BCa interval that scipy cannot compute falls back to the percentile one).

    ``statistic`` must be vectorised (take ``axis``). Returns (nan, nan) when
    resampling is off or there are fewer than two rows; a resample whose
    statistic is NaN (e.g. constant ranks) is ignored rather than poisoning the
    interval.
    """
    from scipy import stats  # here, not at the top: percentile_interval users skip a 0.4 s import

    n = len(data[0]) if data else 0
    if n_resamples <= 0 or n < 2:
        return (math.nan, math.nan)
    result = stats.bootstrap(
        tuple(np.asarray(d, dtype=float) for d in data),
        statistic,
        n_resamples=n_resamples,
        paired=paired,
        vectorized=True,
        method="BCa" if method == "bca" else "percentile",
        confidence_level=LEVEL,
        rng=np.random.default_rng(seed),
    )
    if method == "bca" and np.all(np.isfinite(result.confidence_interval)):
        return (float(result.confidence_interval.low), float(result.confidence_interval.high))
    return percentile_interval(result.bootstrap_distribution)


def percentile_interval(distribution) -> tuple[float, float]:
    """Central 95 % of a bootstrap distribution, ignoring NaN replicates."""
    dist = np.asarray(distribution, dtype=float)
    dist = dist[np.isfinite(dist)]
    if dist.size == 0:
        return (math.nan, math.nan)
    alpha = (1 - LEVEL) / 2
    low, high = np.quantile(dist, [alpha, 1 - alpha])
    return (float(low), float(high))


def mean_ci(values: Sequence[float], n_resamples: int, seed: int) -> tuple[float, float]:
    """Percentile 95 % CI of the mean of ``values`` (e.g. per-case scores).

    The replicates are scipy.stats.bootstrap's (``n_resamples`` rows of ``n`` indices drawn
    with ``rng.integers`` from the seeded generator, the mean of each row), made here so a
    waza score job need not import scipy.stats (0.3 CPU-s); the interval equals
    ``bootstrap_ci(..., method="percentile")`` to the last bit
    (tests/common/test_common_stats.py)."""
    arr = np.asarray(values, dtype=float)
    if arr.size >= 2 and np.all(arr == arr[0]):
        return (float(arr[0]), float(arr[0]))
    if n_resamples <= 0 or arr.size < 2:
        return (math.nan, math.nan)
    rows = np.random.default_rng(seed).integers(0, arr.size, (n_resamples, arr.size))
    return percentile_interval(np.mean(arr[rows], axis=-1))


def metric_means(columns: Mapping[str, Sequence[float]], bootstrap: Mapping) -> list[dict]:
    """Per metric: the mean of its finite values (e.g. one per case) with a seeded 95 % CI.

    ``bootstrap`` is the config's section (``n_resamples``, ``seed``). Returns the metric
    dicts :func:`scievals.common.tables.result_rows` takes; a metric without a finite
    value gets NaN and ``n`` = 0.
    """
    items = []
    for metric, column in columns.items():
        values = np.asarray(column, dtype=float)
        values = values[np.isfinite(values)]
        if values.size == 0:
            items.append({"metric": metric, "value": math.nan, "n": 0})
            continue
        low, high, method = mean_interval(values, bootstrap)
        items.append({"metric": metric, "value": float(values.mean()), "ci_low": low,
                      "ci_high": high, "n": int(values.size), "ci_method": method})
    return items


def means_by_condition(per_sample, metrics: Sequence[str], bootstrap: Mapping) -> dict[str, list[dict]]:
    """condition -> :func:`metric_means` over cases of each case's mean (so a case scored in
    several samples counts once, and the CI resamples cases).

    ``per_sample`` is a DataFrame with ``condition``, ``case_id`` and one column per metric."""
    out: dict[str, list[dict]] = {}
    for condition, frame in per_sample.groupby("condition", sort=True):
        per_case = frame.groupby("case_id")[list(metrics)].mean()
        out[str(condition)] = (metric_means({m: per_case[m] for m in metrics}, bootstrap)
                               + sample_spread(frame, metrics))
    return out


def sample_spread(per_sample, metrics: Sequence[str]) -> list[dict]:
    """``<metric>:sample_sd`` rows: the mean over cases of the standard deviation (ddof 1)
    across one case's samples, when some case was sampled more than once (``n_samples``);
    ``n`` is the number of such cases. Nothing when every case has one sample."""
    grouped = per_sample.groupby("case_id")[list(metrics)]
    repeated = grouped.count().max(axis=1) > 1
    if not repeated.any():
        return []
    spread = grouped.std(ddof=1)[repeated]
    rows = []
    for metric in metrics:
        values = spread[metric].dropna()
        if len(values):
            rows.append({"metric": f"{metric}:sample_sd", "value": float(values.mean()),
                         "n": int(len(values))})
    return rows


def interval_method(bootstrap: Mapping) -> str:
    """The configured ``bootstrap.method`` (``auto`` when absent)."""
    method = str(bootstrap.get("method", "auto"))
    if method not in METHODS:
        raise ValueError(f"bootstrap.method {method!r} is not one of {METHODS}")
    return method


def t_interval(values: Sequence[float]) -> tuple[float, float]:
    """Student-t 95 % interval of the mean: mean -+ t(0.975, n-1) * sd / sqrt(n).

    The t quantile is scipy.special's ``stdtrit``, which ``scipy.stats.t.interval`` calls
    too, with the same operations, so the bounds equal ``stats.t.interval(0.95, n - 1,
    loc=mean, scale=stats.sem(values))`` to the last bit (tests/common/test_common_stats.py)
    without importing scipy.stats (0.3 CPU-s more than scipy.special in every score job)."""
    from scipy.special import stdtrit  # lazily: see bootstrap_ci

    arr = np.asarray(values, dtype=float)
    if arr.size < 2:
        return (math.nan, math.nan)
    if np.all(arr == arr[0]):
        return (float(arr[0]), float(arr[0]))
    sem = np.std(arr, ddof=1) / arr.size ** 0.5
    df, mean = arr.size - 1, arr.mean()
    low = stdtrit(df, (1.0 - LEVEL) / 2) * sem + mean
    high = stdtrit(df, (1.0 + LEVEL) / 2) * sem + mean
    return (float(low), float(high))


def mean_interval(values: Sequence[float], bootstrap: Mapping) -> tuple[float, float, str]:
    """95 % interval of the mean of per-item values and its ``ci_method`` label.

    ``auto`` gives the t-interval: at 15-17 items the bootstrap intervals of a mean are too
    narrow (BCa covered 0.92-0.94 in a first simulation, t 0.94-0.95: docs/statistics.md)."""
    method = interval_method(bootstrap)
    n_resamples, seed = int(bootstrap.get("n_resamples", 1000)), int(bootstrap.get("seed", 0))
    if n_resamples <= 0:
        return (math.nan, math.nan, "")
    if method == "auto":
        return (*t_interval(values), "t")
    arr = np.asarray(values, dtype=float)
    if arr.size >= 2 and np.all(arr == arr[0]):
        return (float(arr[0]), float(arr[0]), method)
    return (*bootstrap_ci((arr,), lambda x, axis: np.mean(x, axis=axis), n_resamples, seed,
                          paired=False, method=method), method)


def wilson_interval(successes: int, n: int) -> tuple[float, float]:
    """Wilson score 95 % interval of a proportion, in Newcombe's (1998) form:
    (2np + z^2 -+ z sqrt(z^2 + 4npq)) / (2(n + z^2)), the bound at 0 (1) exact when no
    (every) trial succeeded. z is scipy.special's normal quantile; the bounds equal
    ``scipy.stats.binomtest(k, n).proportion_ci(0.95, method="wilson")`` to the last bit
    (tests/common/test_common_stats.py) without importing scipy.stats (0.3 CPU-s)."""
    from scipy.special import ndtri  # lazily: see bootstrap_ci

    if n <= 0:
        return (math.nan, math.nan)
    k, n = int(successes), int(n)
    p = k / n
    z = float(ndtri(0.5 + 0.5 * LEVEL))
    denominator = 2 * (n + z**2)
    centre = (2 * n * p + z**2) / denominator
    half = z / denominator * math.sqrt(4 * n * p * (1 - p) + z**2)
    return (0.0 if k == 0 else centre - half, 1.0 if k == n else centre + half)


def cluster_bootstrap(statistic: Callable[[list[np.ndarray]], np.ndarray],
                      clusters: Sequence[np.ndarray], bootstrap: Mapping,
                      ) -> tuple[float, float, np.ndarray]:
    """Seeded bootstrap 95 % interval of a set statistic, resampling whole clusters.

    ``clusters`` has one array per stratum (abdev: a CV fold) giving each of its rows a
    cluster code 0..k-1. A replicate draws, in every stratum, k clusters with replacement
    (scipy.stats.bootstrap with one sample of cluster codes per stratum, not paired); a
    row's multiplicity is its cluster's draw count. ``statistic(weights)`` gets one
    (B, rows) multiplicity array per stratum and returns B values (vectorised: e.g.
    :func:`weighted_spearman`; :func:`expanded` runs a row-based statistic per replicate).
    ``auto`` gives the percentile interval: for a biased statistic such as a fold-average
    Spearman of ~50 antibodies per fold it covered the expected score 0.95, BCa (which
    corrects towards the infinite-population value) 0.905 (docs/statistics.md). With ``bca``,
    the acceleration comes from scipy's leave-one-cluster-out jackknife, and the percentile
    interval stands in where BCa is undefined (every replicate equal). Returns (low, high,
    bootstrap distribution)."""
    method = "BCa" if interval_method(bootstrap) == "bca" else "percentile"
    n_resamples, seed = int(bootstrap.get("n_resamples", 1000)), int(bootstrap.get("seed", 0))
    sizes = [int(codes.max()) + 1 if len(codes) else 0 for codes in clusters]
    if n_resamples <= 0 or any(k < 2 for k in sizes):
        return (math.nan, math.nan, np.array([]))
    if method == "percentile":
        # The default: the same draws and interval as scipy.stats.bootstrap without importing
        # scipy.stats (0.4-0.5 CPU-s, more than an abdev score job's own work).
        rng = np.random.default_rng(seed)
        picked = [rng.integers(0, k, (n_resamples, k)) for k in sizes]
        weights = [cluster_counts(p, k)[:, codes] for p, k, codes in zip(picked, sizes, clusters)]
        with np.errstate(all="ignore"):
            dist = np.asarray(statistic(weights), dtype=float).reshape(n_resamples)
            low, high = scipy_percentile_interval(dist)
        if not (np.isfinite(low) and np.isfinite(high)):
            low, high = percentile_interval(dist)
        return (float(low), float(high), dist)

    from scipy import stats  # lazily: see bootstrap_ci

    def on_codes(*picked, axis=-1):
        shape = np.broadcast_shapes(*(p.shape[:-1] for p in picked))
        weights = [cluster_counts(np.broadcast_to(p, (*shape, p.shape[-1])).reshape(
            -1, p.shape[-1]), k)[:, codes] for p, k, codes in zip(picked, sizes, clusters)]
        return np.asarray(statistic(weights), dtype=float).reshape(shape)

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # BCa of a degenerate distribution warns, gives NaN
        result = stats.bootstrap(tuple(np.arange(k) for k in sizes), on_codes,
                                 n_resamples=n_resamples, paired=False, vectorized=True,
                                 method=method, confidence_level=LEVEL,
                                 rng=np.random.default_rng(seed))
    low, high = result.confidence_interval
    dist = np.asarray(result.bootstrap_distribution, dtype=float)
    if not (np.isfinite(low) and np.isfinite(high)):
        low, high = percentile_interval(dist)
    return (float(low), float(high), dist)


def scipy_percentile_interval(dist: np.ndarray) -> tuple[float, float]:
    """scipy.stats.bootstrap's percentile interval, operation for operation (scipy 1.17:
    ``stats.quantile(theta_hat_b, [alpha, 1 - alpha])``, Hyndman-Fan linear; NaN if any
    replicate is NaN). Not :func:`percentile_interval`: np.quantile interpolates in another
    order and can differ in the last digit."""
    if np.isnan(dist).any():
        return (math.nan, math.nan)
    y = np.sort(dist)
    n = len(y)
    alpha = np.asarray((1 - LEVEL) / 2, dtype=y.dtype)
    p = np.stack((alpha, 1 - alpha))
    jg = p * n + (1 - p)  # Hyndman-Fan type 7: m = 1 - p
    j = jg // 1 - 1
    jp1 = jg // 1
    g = jg % 1
    g[j < 0] = 0
    j, jp1 = np.clip(j, 0.0, n - 1), np.clip(jp1, 0.0, n - 1)
    low, high = (1 - g) * y[j.astype(np.int64)] + g * y[jp1.astype(np.int64)]
    return (float(low), float(high))


def cluster_counts(picked: np.ndarray, k: int) -> np.ndarray:
    """(B, k) draw counts of each cluster code 0..k-1 in each row of ``picked`` (B, draws)."""
    picked = np.asarray(picked, dtype=np.int64)
    offsets = (np.arange(len(picked)) * k)[:, None]
    return np.bincount((picked + offsets).ravel(), minlength=len(picked) * k).reshape(-1, k)


def weighted_spearman(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Spearman correlation of every resample given as row multiplicities ``weights``
    (B, n): the same number as scipy.stats.spearmanr on the rows repeated that often
    (average ranks for ties), without building the resamples. NaN where one side is
    constant."""
    w = np.atleast_2d(np.asarray(weights, dtype=float))
    rx, ry = _weighted_ranks(np.asarray(x, dtype=float), w), _weighted_ranks(
        np.asarray(y, dtype=float), w)
    total = w.sum(axis=1, keepdims=True)
    dx = rx - (w * rx).sum(axis=1, keepdims=True) / total
    dy = ry - (w * ry).sum(axis=1, keepdims=True) / total
    with np.errstate(invalid="ignore", divide="ignore"):
        return (w * dx * dy).sum(axis=1) / np.sqrt((w * dx * dx).sum(axis=1)
                                                  * (w * dy * dy).sum(axis=1))


def _weighted_ranks(values: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Average rank of each row's value among the repeated rows: (total weight of smaller
    values) + (weight of equal values + 1) / 2."""
    order = np.argsort(values, kind="stable")
    distinct, starts, codes = np.unique(values[order], return_index=True, return_inverse=True)
    per_value = np.add.reduceat(w[:, order], starts, axis=1)  # weight of each distinct value
    codes = codes[np.argsort(order)]  # back to the rows' own order
    below = np.cumsum(per_value, axis=1) - per_value
    return (below + (per_value + 1) / 2)[:, codes]


def expanded(statistic: Callable[[np.ndarray], np.ndarray], weights: np.ndarray) -> np.ndarray:
    """A statistic of row positions on every resample of ``weights`` (B, n), for statistics
    with no weighted form (e.g. top-k recall). ``statistic(idx)`` takes a (G, m) matrix of
    row positions (G resamples of m rows) and returns G values; resamples are grouped by
    their size m, so it is called once per distinct size."""
    weights = np.atleast_2d(np.asarray(weights, dtype=np.int64))
    sizes = weights.sum(axis=1)
    out = np.full(len(weights), np.nan)
    # Every resample's rows repeated by its weights, in row order, with the resamples sorted
    # by size: one repeat for all, then each size is a contiguous block (an abdev score job
    # has ~7,000 size groups, so per-group numpy calls are what costs).
    order = np.argsort(sizes, kind="stable")
    sizes = sizes[order]
    idx = np.repeat(np.tile(np.arange(weights.shape[1]), len(weights)), weights[order].ravel())
    bounds = np.flatnonzero(np.diff(sizes)) + 1
    start = 0
    for first, last in zip(np.r_[0, bounds], np.r_[bounds, len(sizes)]):
        size = int(sizes[first])
        block = idx[start:start + size * (last - first)]
        start += size * (last - first)
        if size:
            out[order[first:last]] = statistic(block.reshape(last - first, size))
    return out


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one item with ``c`` passes in ``n`` trials: the chance that at least
    one of ``k`` trials drawn without replacement passed, 1 - C(n-c, k) / C(n, k)."""
    if not 0 < k <= n:
        raise ValueError(f"k={k} needs 0 < k <= n={n}")
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k: the chance that all ``k`` trials drawn without replacement passed,
    C(c, k) / C(n, k)."""
    if not 0 < k <= n:
        raise ValueError(f"k={k} needs 0 < k <= n={n}")
    return math.comb(c, k) / math.comb(n, k)
