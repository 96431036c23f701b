"""Seeded bootstrap confidence intervals (scipy.stats.bootstrap, percentile method)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

LEVEL = 0.95


def bootstrap_ci(
    data: Sequence[np.ndarray],
    statistic: Callable[..., np.ndarray],
    n_resamples: int,
    seed: int,
    paired: bool = True,
) -> tuple[float, float]:
    """Percentile 95 % CI of ``statistic`` over resampled rows of ``data``.

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
        method="percentile",
        confidence_level=LEVEL,
        rng=np.random.default_rng(seed),
    )
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
    """Percentile 95 % CI of the mean of ``values`` (e.g. per-case scores)."""
    arr = np.asarray(values, dtype=float)
    if arr.size >= 2 and np.all(arr == arr[0]):
        return (float(arr[0]), float(arr[0]))
    return bootstrap_ci((arr,), lambda x, axis: np.mean(x, axis=axis), n_resamples, seed, paired=False)


def metric_means(columns: Mapping[str, Sequence[float]], bootstrap: Mapping) -> list[dict]:
    """Per metric: the mean of its finite values (e.g. one per case) with a seeded 95 % CI.

    ``bootstrap`` is the config's section (``n_resamples``, ``seed``). Returns the metric
    dicts :func:`scievals.common.tables.result_rows` takes; a metric without a finite
    value gets NaN and ``n`` = 0.
    """
    n_resamples, seed = int(bootstrap.get("n_resamples", 1000)), int(bootstrap.get("seed", 0))
    items = []
    for metric, column in columns.items():
        values = np.asarray(column, dtype=float)
        values = values[np.isfinite(values)]
        if values.size == 0:
            items.append({"metric": metric, "value": math.nan, "n": 0})
            continue
        low, high = mean_ci(values, n_resamples, seed)
        items.append({"metric": metric, "value": float(values.mean()), "ci_low": low,
                      "ci_high": high, "n": int(values.size)})
    return items


def means_by_condition(per_sample, metrics: Sequence[str], bootstrap: Mapping) -> dict[str, list[dict]]:
    """condition -> :func:`metric_means` over cases of each case's mean (so a case scored in
    several samples counts once, and the CI resamples cases).

    ``per_sample`` is a DataFrame with ``condition``, ``case_id`` and one column per metric."""
    out: dict[str, list[dict]] = {}
    for condition, frame in per_sample.groupby("condition", sort=True):
        per_case = frame.groupby("case_id")[list(metrics)].mean()
        out[str(condition)] = metric_means({m: per_case[m] for m in metrics}, bootstrap)
    return out
