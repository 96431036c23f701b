"""95 % confidence intervals that hold at the benchmarks' sizes (docs/statistics.md).

- per-item means of a bounded metric (gating cases, autogkb articles, waza tasks): the
  effective-n Wilson interval inside the metric's declared range (``wilson-ess``,
  :func:`bounded_mean_interval`; ranges: :func:`metric_range`), never zero-width; an
  unbounded metric the Student-t interval; or a seeded bootstrap (``bca``/``percentile``);
- proportions over independent items (waza pass rates): Wilson score interval, or
  Clopper-Pearson with ``bootstrap.proportion: clopper-pearson``;
- statistics of a whole set (Spearman, top-10 % recall): seeded bootstrap resampling
  clusters of items (abdev's sequence clusters) within strata (CV folds); percentile by
  default (``auto``), BCa on request;
- repeated samples of one item: the within/between variance split (:func:`sample_spread`).

Every interval comes with the label written to the tables' ``ci_method`` column. The
``bootstrap:`` config section (``n_resamples``, ``seed``, ``method``, ``proportion``)
chooses the method. Also here: the unbiased pass@k / pass^k estimators for repeated
pass/fail trials.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from fnmatch import fnmatchcase

import numpy as np

LEVEL = 0.95
# bootstrap.method: auto = the effective-n Wilson interval for per-item means of a bounded
# metric (the t-interval for an unbounded one), cluster percentile for set statistics.
METHODS = ("auto", "bca", "percentile")
# bootstrap.proportion: the interval of a pass rate over independent items; auto = the exact
# (Clopper-Pearson) interval up to EXACT_PROPORTION_MAX_N items, Wilson above: Wilson's
# pointwise coverage falls to 0.82-0.83 at 2-5 items (0.88-0.89 at rates in [0.1, 0.9]), the
# exact one's never below 0.975 there (benchmarks/interval_coverage.py).
PROPORTION_METHODS = ("auto", "wilson", "clopper-pearson")
EXACT_PROPORTION_MAX_N = 5
# The effective-n Wilson interval's quantile: Student t with this many degrees of freedom per
# item beyond the first (5 (n - 1)); chosen by simulation (benchmarks/interval_coverage.py):
# the normal quantile covered 0.933-0.938 at 15-17 lumpy items, n - 1 df 0.99 at 5 items.
ESS_DF_PER_ITEM = 5
# The two-part interval (:func:`two_part_bounds`) of level L combines two parts of level
# 1 - 2 (1 - L) (90 % for 95 %): at 95 % the log-scale MOVER of two 90 % parts covered
# 0.955-0.975 where one bound holds most items, two 95 % parts 0.98-0.99 (too wide), two 85 %
# parts 0.94-0.96 (benchmarks/interval_coverage.py; docs/statistics.md).
TWO_PART_ALPHA_FACTOR = 2


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
    (tests/stats/test_stats_intervals.py)."""
    arr = np.asarray(values, dtype=float)
    if arr.size >= 2 and np.all(arr == arr[0]):
        return (float(arr[0]), float(arr[0]))
    if n_resamples <= 0 or arr.size < 2:
        return (math.nan, math.nan)
    rows = np.random.default_rng(seed).integers(0, arr.size, (n_resamples, arr.size))
    return percentile_interval(np.mean(arr[rows], axis=-1))


def metric_range(ranges: Mapping[str, tuple[float, float]] | None,
                 metric: str) -> tuple[float, float]:
    """The declared (low, high) range of ``metric``: ``ranges`` maps exact names or fnmatch
    patterns (``field_similarity.*``, ``*spearman*``) to ranges, first match wins (each
    benchmark's ``metrics.METRIC_RANGES``); the full name is tried, then the part after the
    last ``:`` (abdev's ``HIC:spearman``). (-inf, inf) when nothing matches (unbounded)."""
    for name in dict.fromkeys((metric, metric.rpartition(":")[2])):
        for pattern, bounds in (ranges or {}).items():
            if fnmatchcase(name, pattern):
                low, high = (float(b) for b in bounds)
                if not low < high:
                    raise ValueError(f"metric range {pattern!r}: {bounds} is not low < high")
                return (low, high)
    return (-math.inf, math.inf)


def wilson_ess_bounds(mean, sum_sq, n, z) -> tuple[np.ndarray, np.ndarray]:
    """The effective-n Wilson interval of the mean of n values in [0, 1], elementwise.

    Wilson's score interval with n replaced by Kish's effective sample size
    n_eff = n m (1 - m) / s^2 (the n a pass/fail sample would need for the same standard
    error; Korn & Graubard 1998 use it for survey proportions), where the per-item variance
    s^2 = (sum_sq + m (1 - m)) / (n + 1) adds one pseudo-item of pass/fail spread: 0/1 data
    give s^2 = m (1 - m), so n_eff = n and the interval is Wilson's; all-equal values give
    n_eff = n (n + 1), never a zero width; m = 0 or 1 gives n_eff = n (Wilson's
    [0, z^2 / (n + z^2)]). ``sum_sq`` is the sum of squared deviations from the mean,
    ``z`` the quantile. Always inside [0, 1]."""
    m, ss, n = (np.asarray(x, dtype=float) for x in (mean, sum_sq, n))
    v = m * (1 - m)
    with np.errstate(invalid="ignore", divide="ignore"):
        # a mean within rounding of 0 or 1 counts as one (the 0/0 of n_eff: pass/fail's n)
        neff = np.where(v > 1e-12, n * v / ((ss + v) / (n + 1)), n)
        z2 = np.asarray(z, dtype=float) ** 2
        den = 1 + z2 / neff
        centre = (m + z2 / (2 * neff)) / den
        half = np.sqrt(z2) * np.sqrt(v / neff + z2 / (4 * neff * neff)) / den
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def ess_quantile(n, level: float = LEVEL) -> np.ndarray:
    """The two-sided quantile :func:`bounded_mean_interval` uses at n items:
    Student t with ESS_DF_PER_ITEM * max(n - 1, 1) degrees of freedom."""
    from scipy.special import stdtrit  # lazily: see bootstrap_ci

    df = ESS_DF_PER_ITEM * np.maximum(np.asarray(n, dtype=float) - 1, 1)
    return stdtrit(df, 0.5 + level / 2)


def bounded_mean_interval(values: Sequence[float], low: float, high: float,
                          level: float = LEVEL) -> tuple[float, float]:
    """95 % interval of the mean of per-item values of a metric with range [low, high]:
    :func:`wilson_ess_bounds` on the values rescaled to [0, 1]. Never zero-width, never
    outside the range; a single value gets the Wilson interval of one pass/fail item.
    A value outside [low, high] is a ValueError (the range is declared wrongly)."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return (math.nan, math.nan)
    span = high - low
    y = (arr - low) / span
    if np.any(y < -1e-9) or np.any(y > 1 + 1e-9):
        raise ValueError(f"values {arr.min():g}..{arr.max():g} leave the declared range "
                         f"[{low:g}, {high:g}]")
    y = np.clip(y, 0.0, 1.0)
    lo, hi = _ess_bounds(y, level)
    parts = two_part_bounds(y, level)
    if parts is not None:  # a point mass at one bound: the hull of both intervals
        lo, hi = min(lo, parts[0]), max(hi, parts[1])
    return (float(low + span * lo), float(low + span * hi))


def _ess_bounds(y: np.ndarray, level: float) -> tuple[float, float]:
    m = y.mean()
    return wilson_ess_bounds(m, ((y - m) ** 2).sum(), y.size, ess_quantile(y.size, level))


def two_part_bounds(y: np.ndarray, level: float = LEVEL) -> tuple[float, float] | None:
    """The interval of a mean of values in [0, 1] with a point mass at exactly one bound
    (some values exactly 0 and none exactly 1, or the mirror), else None.

    With the mass at 0, the mean is m = pi * mu: pi the share of non-zero items (Wilson's
    interval over n items), mu their mean (the effective-n Wilson interval of the k non-zero
    values); the two combine by MOVER on the log scale, ln m = ln pi + ln mu (as the McNemar
    interval does, docs/statistics.md), each part at level 1 - 2 (1 - ``level``):
    low = m exp(-sqrt(ln^2(pi / pi_l) + ln^2(mu / mu_l))), high likewise with the upper ends.
    No non-zero item: [0, pi_u]. Why: when most items sit at 0, the few others carry the
    whole mean, and the effective n (about 2.7 n at 80 % zeros with the rest Beta(1, 3))
    understates how lopsided its sampling distribution is; the interval fell short below the
    truth (coverage 0.906-0.918 at 15-17 items)."""
    at_floor, at_ceiling = bool((y <= 0).any()), bool((y >= 1).any())
    if at_floor == at_ceiling:
        return None
    x = y if at_floor else 1.0 - y
    n, positive = x.size, x[x > 0]
    k = positive.size
    from scipy.special import ndtri  # lazily: see bootstrap_ci

    part = 1.0 - TWO_PART_ALPHA_FACTOR * (1.0 - level)
    z = float(ndtri(0.5 + part / 2))
    share = k / n
    # a 0/1 sample's sum of squares makes n_eff = n: Wilson's own interval of the share
    pi_l, pi_u = wilson_ess_bounds(share, k * (1 - share) ** 2 + (n - k) * share**2, n, z)
    if k == 0:
        low, high = 0.0, float(pi_u)
    else:
        # on the log scale throughout: a mean of tiny values must not overflow a ratio
        ln_pi, ln_mu = math.log(share), math.log(max(float(positive.mean()), 1e-300))
        mu_l, mu_u = (math.log(max(float(b), 1e-300))
                      for b in _ess_bounds(positive, part))
        ln_low = ln_pi + ln_mu - math.hypot(ln_pi - math.log(pi_l), ln_mu - mu_l)
        ln_high = ln_pi + ln_mu + math.hypot(math.log(pi_u) - ln_pi, mu_u - ln_mu)
        low, high = math.exp(ln_low), math.exp(min(ln_high, 0.0))
    return (low, high) if at_floor else (1.0 - high, 1.0 - low)


def metric_means(columns: Mapping[str, Sequence[float]], bootstrap: Mapping,
                 ranges: Mapping[str, tuple[float, float]] | None = None) -> list[dict]:
    """Per metric: the mean of its finite values (e.g. one per case) with a 95 % CI.

    ``bootstrap`` is the config's section (``n_resamples``, ``seed``, ``method``);
    ``ranges`` the benchmark's declared metric ranges (:func:`metric_range`). Returns the
    metric dicts :func:`scievals.common.tables.result_rows` takes; a metric without a
    finite value gets NaN and ``n`` = 0.
    """
    items = []
    for metric, column in columns.items():
        values = np.asarray(column, dtype=float)
        values = values[np.isfinite(values)]
        if values.size == 0:
            items.append({"metric": metric, "value": math.nan, "n": 0})
            continue
        try:
            low, high, method = mean_interval(values, bootstrap, metric_range(ranges, metric))
        except ValueError as exc:
            raise ValueError(f"metric {metric}: {exc}") from None
        items.append({"metric": metric, "value": float(values.mean()), "ci_low": low,
                      "ci_high": high, "n": int(values.size), "ci_method": method})
    return items


def means_by_condition(per_sample, metrics: Sequence[str], bootstrap: Mapping,
                       ranges: Mapping[str, tuple[float, float]] | None = None,
                       spread: Sequence[str] | None = None) -> dict[str, list[dict]]:
    """condition -> :func:`metric_means` over cases of each case's mean (so a case scored in
    several samples counts once, and the CI is over cases), plus :func:`sample_spread` of
    the ``spread`` metrics (default: all; per-item columns such as best-of-k have none).

    ``per_sample`` is a DataFrame with ``condition``, ``case_id`` and one column per metric;
    ``ranges`` the metrics' declared ranges (:func:`metric_range`)."""
    out: dict[str, list[dict]] = {}
    for condition, frame in per_sample.groupby("condition", sort=True):
        per_case = frame.groupby("case_id")[list(metrics)].mean()
        out[str(condition)] = (metric_means({m: per_case[m] for m in metrics}, bootstrap,
                                            ranges)
                               + sample_spread(frame, metrics if spread is None else spread))
    return out


def sample_spread(per_sample, metrics: Sequence[str]) -> list[dict]:
    """Rows on repeated samples of one case (``n_samples``), when some case was sampled more
    than once; nothing otherwise. Per metric:

    - ``<metric>:sample_sd``: the mean over cases of the standard deviation (ddof 1) across
      one case's samples; ``n`` the number of such cases;
    - ``<metric>:within_var`` (s_w^2): the mean over those cases of that variance;
    - ``<metric>:between_var`` (s_b^2): the variance of the case means (ddof 1, over every
      case) less the within part each mean still carries, mean over cases of s_w^2 / K_i
      (K_i the case's samples), floored at 0 - the one-way random-effects split;
    - ``<metric>:second_sample_gain``: by how much a second sample per case would cut the
      variance of the mean, against one sample: Var(mean) = (s_b^2 + s_w^2 / K) / n
      (Miller 2024, eq. 4), so 1 - (s_b^2 + s_w^2 / 2) / (s_b^2 + s_w^2)
      = s_w^2 / (2 (s_b^2 + s_w^2)); 0 when the model always answers alike, at most 0.5.
    """
    grouped = per_sample.groupby("case_id")[list(metrics)]
    counts = grouped.count()
    repeated = counts.max(axis=1) > 1
    if not repeated.any():
        return []
    variance = grouped.var(ddof=1)
    spread = np.sqrt(variance[repeated])
    means = grouped.mean()
    rows = []
    for metric in metrics:
        values = spread[metric].dropna()
        if not len(values):
            continue
        n = len(values)
        within = float((values ** 2).mean())
        case_means = means[metric].dropna()
        samples = counts[metric].reindex(case_means.index)
        between = math.nan
        if len(case_means) > 1:
            between = max(0.0, float(case_means.var(ddof=1)) - within * float(
                (1.0 / samples).mean()))
        total = between + within
        gain = within / (2 * total) if total > 0 else 0.0
        rows += [{"metric": f"{metric}:sample_sd", "value": float(values.mean()), "n": n},
                 {"metric": f"{metric}:within_var", "value": within, "n": n},
                 {"metric": f"{metric}:between_var", "value": between,
                  "n": len(case_means)},
                 {"metric": f"{metric}:second_sample_gain",
                  "value": gain if math.isfinite(between) else math.nan,
                  "n": len(case_means)}]
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
    loc=mean, scale=stats.sem(values))`` to the last bit (tests/stats/test_stats_intervals.py)
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


def mean_interval(values: Sequence[float], bootstrap: Mapping,
                  value_range: tuple[float, float] = (-math.inf, math.inf),
                  ) -> tuple[float, float, str]:
    """95 % interval of the mean of per-item values and its ``ci_method`` label.

    ``auto`` with a bounded ``value_range``: :func:`bounded_mean_interval`
    (``wilson-ess``), which covered 0.937-0.976 on lumpy bounded scores at 4-17 items
    where the t-interval fell to 0.79-0.91 (docs/statistics.md). ``auto`` unbounded: the
    t-interval. ``bca``/``percentile``: that bootstrap, clipped to the range; all-equal
    values (a zero-width bootstrap) get the ``wilson-ess`` interval instead."""
    method = interval_method(bootstrap)
    n_resamples, seed = int(bootstrap.get("n_resamples", 1000)), int(bootstrap.get("seed", 0))
    if n_resamples <= 0:
        return (math.nan, math.nan, "")
    low, high = (float(b) for b in value_range)
    bounded = math.isfinite(low) and math.isfinite(high)
    arr = np.asarray(values, dtype=float)
    if bounded and (method == "auto" or (arr.size >= 1 and np.all(arr == arr[0]))):
        return (*bounded_mean_interval(arr, low, high), "wilson-ess")
    if method == "auto":  # no finite range (e.g. bounded below only): t, clipped to it
        t_low, t_high = t_interval(arr)
        return (max(low, t_low), min(high, t_high), "t")
    if arr.size >= 2 and np.all(arr == arr[0]):
        return (float(arr[0]), float(arr[0]), method)
    ci_low, ci_high = bootstrap_ci((arr,), lambda x, axis: np.mean(x, axis=axis),
                                   n_resamples, seed, paired=False, method=method)
    return (max(low, ci_low), min(high, ci_high), method)


def proportion_interval(successes: int, n: int, method: str = "wilson") -> tuple[float, float]:
    """95 % interval of a pass rate over n independent items: ``wilson``
    (:func:`wilson_interval`) or ``clopper-pearson`` (:func:`clopper_pearson_interval`)."""
    if method == "wilson":
        return wilson_interval(successes, n)
    if method == "clopper-pearson":
        return clopper_pearson_interval(successes, n)
    raise ValueError(f"bootstrap.proportion {method!r} is not one of {PROPORTION_METHODS}")


def proportion_method(bootstrap: Mapping, n: int | None = None) -> str:
    """The pass-rate interval for n items: the configured ``bootstrap.proportion`` (``auto``
    when absent), ``auto`` resolved to ``clopper-pearson`` up to EXACT_PROPORTION_MAX_N
    items and ``wilson`` above (and when n is not given)."""
    method = str(bootstrap.get("proportion", "auto"))
    if method not in PROPORTION_METHODS:
        raise ValueError(f"bootstrap.proportion {method!r} is not one of {PROPORTION_METHODS}")
    if method == "auto":
        small = n is not None and 0 < n <= EXACT_PROPORTION_MAX_N
        return "clopper-pearson" if small else "wilson"
    return method


def clopper_pearson_interval(successes: int, n: int) -> tuple[float, float]:
    """The exact (Clopper-Pearson) 95 % interval of a proportion: the beta quantiles
    B(0.025; k, n - k + 1) and B(0.975; k + 1, n - k), 0 at k = 0 and 1 at k = n. It covers
    at least 0.95 at every true rate (the guarantee Wilson lacks near 0 and 1) and equals
    ``scipy.stats.binomtest(k, n).proportion_ci(0.95, "exact")``."""
    from scipy.special import betaincinv  # lazily: see bootstrap_ci

    if n <= 0:
        return (math.nan, math.nan)
    k, n = int(successes), int(n)
    alpha = 1 - LEVEL
    low = 0.0 if k == 0 else float(betaincinv(k, n - k + 1, alpha / 2))
    high = 1.0 if k == n else float(betaincinv(k + 1, n - k, 1 - alpha / 2))
    return (low, high)


def wilson_interval(successes: int, n: int) -> tuple[float, float]:
    """Wilson score 95 % interval of a proportion, in Newcombe's (1998) form:
    (2np + z^2 -+ z sqrt(z^2 + 4npq)) / (2(n + z^2)), the bound at 0 (1) exact when no
    (every) trial succeeded. z is scipy.special's normal quantile; the bounds equal
    ``scipy.stats.binomtest(k, n).proportion_ci(0.95, method="wilson")`` to the last bit
    (tests/stats/test_stats_intervals.py) without importing scipy.stats (0.3 CPU-s)."""
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
        weights = SHARED.weights(clusters, n_resamples, seed)
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


def cluster_variance_factor(cluster_sizes: Sequence[int]) -> float:
    """What the cluster bootstrap's variance of a stratum-average statistic is multiplied by
    to undo its small-sample shrinkage. Resampling K clusters with replacement gives (K - 1) /
    K of a cluster mean's variance (the plug-in, not the unbiased, estimator), so the
    average of F strata statistics of similar spread gets sum_f (K_f - 1) / K_f / F of it:
    the factor is F / sum_f (1 - 1 / K_f) (1.07 at 15 clusters per fold, 1.2 at 6;
    docs/statistics.md, "Set statistics"). 1 when no stratum has two
    clusters (the bootstrap then has no spread to correct)."""
    sizes = [int(k) for k in cluster_sizes if int(k) > 0]
    kept = sum(1.0 - 1.0 / k for k in sizes)
    return len(sizes) / kept if kept > 0 else 1.0


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


class SharedResamples:
    """Cluster resamples and the statistics' truth side, computed once per process.

    Every file of an abdev score batch is scored against the same truth, clusters and seed,
    so for files that predict the same rows the resample weights of a (subset, statistic) are
    the same, and so is the truth's half of each statistic (its weighted ranks, its top-k
    shares): :meth:`weights` draws them once per (cluster codes, n_resamples, seed) and
    :meth:`truth_side` computes a value derived from (a column, weights drawn here) once;
    each file then computes its prediction's half only (docs/scale.md). Everything is keyed by
    content, never by position, so a file scoring other rows gets its own entries; the arrays
    are read-only. Bounded: past ``limit`` weight sets everything is dropped (a batch needs
    one per assay and subset, ~35 for abdev)."""

    def __init__(self, limit: int = 64):
        self.limit = limit
        self.clear()

    def clear(self) -> None:
        self._weights: dict[tuple, list[np.ndarray]] = {}
        self._owner: dict[int, tuple[np.ndarray, int]] = {}  # id(weights) -> (them, token)
        self._derived: dict[tuple, object] = {}

    def weights(self, clusters: Sequence[np.ndarray], n_resamples: int, seed: int,
                ) -> list[np.ndarray]:
        """One (n_resamples, rows) multiplicity array per stratum: in every stratum of k
        clusters, k draws with replacement, the strata drawn in order from one generator
        seeded with ``seed`` (as ``scipy.stats.bootstrap`` with one sample per stratum)."""
        key = (n_resamples, seed, *((c.dtype.str, c.tobytes()) for c in clusters))
        if key not in self._weights:
            if len(self._weights) >= self.limit:
                self.clear()
            rng = np.random.default_rng(seed)
            sizes = [int(codes.max()) + 1 for codes in clusters]
            picked = [rng.integers(0, k, (n_resamples, k)) for k in sizes]
            weights = [cluster_counts(p, k)[:, codes] for p, k, codes in zip(picked, sizes, clusters)]
            for w in weights:
                w.flags.writeable = False
                self._owner[id(w)] = (w, len(self._owner))
            self._weights[key] = weights
        return self._weights[key]

    def truth_side(self, what: str, values: np.ndarray, weights: np.ndarray,
                   compute: Callable[[], np.ndarray]) -> np.ndarray:
        """``compute()``, a value named ``what`` derived from ``values`` and ``weights``
        alone, computed once if ``weights`` were drawn here (else every call)."""
        owned = self._owner.get(id(weights))
        if owned is None or owned[0] is not weights:  # not ours: an id can be reused
            return compute()
        key = (what, owned[1], values.dtype.str, values.tobytes())
        if key not in self._derived:
            value = compute()
            for array in value if isinstance(value, tuple) else (value,):
                if isinstance(array, np.ndarray):
                    array.flags.writeable = False
            self._derived[key] = value
        return self._derived[key]


SHARED = SharedResamples()


def cluster_counts(picked: np.ndarray, k: int) -> np.ndarray:
    """(B, k) draw counts of each cluster code 0..k-1 in each row of ``picked`` (B, draws)."""
    picked = np.asarray(picked, dtype=np.int64)
    offsets = (np.arange(len(picked)) * k)[:, None]
    return np.bincount((picked + offsets).ravel(), minlength=len(picked) * k).reshape(-1, k)


def weighted_spearman(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Spearman correlation of every resample given as row multiplicities ``weights``
    (B, n): the same number as scipy.stats.spearmanr on the rows repeated that often
    (average ranks for ties), without building the resamples. NaN where one side is
    constant. ``x`` (A, n) gives the (A, B) correlations of A columns against the same
    ``y`` at once (the comparisons' jackknife: every arm on one set of rows); hold A * B * n
    floats, so a few weight rows (integer-valued: the same numbers as one column at a time)."""
    y = np.asarray(y, dtype=float)
    # y's half: the same for every x scored on these resamples (SHARED)
    w, total, dy, syy = SHARED.truth_side("spearman", y, weights,
                                          lambda: _spearman_truth(y, weights))
    x = np.asarray(x, dtype=float)
    ranks = _weighted_ranks(x, w) if x.ndim == 1 else _weighted_ranks_of_rows(x, w)
    dx = ranks - (w * ranks).sum(axis=-1, keepdims=True) / total
    wdx = w * dx
    with np.errstate(invalid="ignore", divide="ignore"):
        return (wdx * dy).sum(axis=-1) / np.sqrt((wdx * dx).sum(axis=-1) * syy)


def _spearman_truth(y: np.ndarray, weights: np.ndarray) -> tuple:
    """The y side of :func:`weighted_spearman`: the weights (B, n), their row totals, y's
    centred weighted ranks and their weighted sum of squares."""
    w = np.atleast_2d(np.asarray(weights, dtype=float))
    total = w.sum(axis=1, keepdims=True)
    ranks = _weighted_ranks(y, w)
    dy = ranks - (w * ranks).sum(axis=1, keepdims=True) / total
    return w, total, dy, (w * dy * dy).sum(axis=1)


def _weighted_ranks_of_rows(values: np.ndarray, w: np.ndarray) -> np.ndarray:
    """:func:`_weighted_ranks` of every row of ``values`` (A, n) at once: (A, B, n). In each
    row's ascending order, a tie group's first and last positions give the weight below it
    and its own weight from one cumulative sum (exact for integer-valued weights)."""
    size = values.shape[1]
    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1)
    position = np.arange(size)
    starts = np.ones(values.shape, dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    ends = np.ones(values.shape, dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=1)[:, None, :]
    last = np.minimum.accumulate(np.where(ends, position, size - 1)[:, ::-1],
                                 axis=1)[:, ::-1][:, None, :]
    picked = np.ascontiguousarray(np.transpose(w.T[order], (0, 2, 1)))  # (A, B, n) in order
    through = np.cumsum(picked, axis=2)
    below = np.take_along_axis(through - picked, first, axis=2)
    per_value = np.take_along_axis(through, last, axis=2) - below
    ranks = below + (per_value + 1) / 2
    return np.take_along_axis(ranks, np.argsort(order, axis=1)[:, None, :], axis=2)


def _weighted_ranks(values: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Average rank of each row's value among the repeated rows: (total weight of smaller
    values) + (weight of equal values + 1) / 2."""
    order, starts, codes = value_groups(values)
    per_value = group_weights(w, order, starts)  # weight of each distinct value
    below = np.cumsum(per_value, axis=1) - per_value
    return (below + (per_value + 1) / 2)[:, codes]


def value_groups(values: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """The rows in ascending order of value (stable), where each distinct value's run starts
    in that order (None when every value is distinct, the usual prediction column), and
    each row's distinct-value index."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    if not (ordered[1:] == ordered[:-1]).any() and not np.isnan(ordered).any():
        return order, None, np.argsort(order)
    _, starts, codes = np.unique(ordered, return_index=True, return_inverse=True)
    return order, starts, codes[np.argsort(order)]


def group_weights(w: np.ndarray, order: np.ndarray, starts: np.ndarray | None) -> np.ndarray:
    """(B, distinct values): the total weight of each value group of :func:`value_groups`
    (with every value distinct, each row's weight: the same numbers without the reduceat)."""
    picked = w[:, order]
    return picked if starts is None else np.add.reduceat(picked, starts, axis=1)


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
