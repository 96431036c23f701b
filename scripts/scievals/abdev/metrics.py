"""GDPa1 scoring on loaded data: Spearman and top-10 % recall exactly as the reference.

Pure functions on data frames and arrays, no file I/O (reading lives in
:mod:`scievals.abdev.data`, the score step in :mod:`scievals.abdev.score`).

The reference is ``abdev_core.evaluation_metrics`` (ginkgobioworks/abdev-benchmark
@ cc6d3b6); its semantics are written down in ``specs/abdev.md`` section 3 and
reproduced here operation by operation, because the numbers depend on them:

- left join of the predictions onto the truth by ``antibody_name`` (truth rows
  without a prediction get NaN, unknown names are ignored, duplicates duplicate);
- pairwise NaN deletion per assay and subset;
- ``scipy.stats.spearmanr`` (average ranks for ties), never sign-flipped;
- top-10 % recall on negated values for lower-is-better assays, with
  ``k = int(n * 0.1)`` and the tied elements ``numpy.argsort`` (default kind)
  happens to put last: with GDPa1's heavy ties this choice decides many values;
- cross-validation rows per fold (sorted, stringified), ``aggregated`` (all rows
  pooled) and ``average`` (unweighted ``np.mean`` of the fold values).

Where the reference crashes with a bare exception (k == 0, an all-NaN or
non-numeric column, a missing ``antibody_name``) this module raises one
:class:`ScievalsError` naming the file, assay and fold and what to do.

Beyond the reference, :func:`extended_table` adds seeded bootstrap 95 % CIs
and a tie-robust recall (the exact expectation of the recall over random
tie-breaking), so a reader can tell how much of a recall is luck of the sort.

Ranks are computed with numpy (:func:`doubled_ranks`, the same numbers as
``scipy.stats.rankdata``): importing ``scipy.stats`` costs a scoring job more
CPU than the scoring itself.
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from scievals.abdev.constants import (
    ASSAY_HIGHER_IS_BETTER,
    CV_DATASET,
    DEFAULT_FOLD_COL,
    PROPERTY_LIST,
)
from scievals.common.errors import ScievalsError
from scievals.stats.intervals import (
    SHARED,
    cluster_bootstrap,
    ess_quantile,
    expanded,
    group_weights,
    percentile_interval,
    value_groups,
    weighted_spearman,
    wilson_ess_bounds,
)

log = logging.getLogger(__name__)

TOP_FRAC = 0.1
MIN_ROWS = 10  # int(n * 0.1) == 0 below this: the reference divides by zero
# Bump when a change moves any score: re-runs every abdev_score job and nothing else.
METRICS_VERSION = "abdev-metrics-v4"  # v4: recall intervals hold their point value
# Spearman correlations and top-10 % recall (docs/statistics.md: ranges)
METRIC_RANGES = {"*spearman*": (-1.0, 1.0), "*recall*": (0.0, 1.0)}


# ---------------------------------------------------------------------------
# Ranks (numpy only)
# ---------------------------------------------------------------------------


def doubled_ranks(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Twice the average ranks of ``values[idx]`` along its last axis, as integers.

    ``values`` is 1-D and NaN-free; ``idx`` holds integer positions, one sample
    per row (``np.arange(n)`` for the data itself, a bootstrap index matrix for
    resamples). An item's average rank in its row (``scipy.stats.rankdata``'s
    default) is (items below it) + (items equal to it + 1) / 2, so twice it is
    ``2 * (items at or below) - (items equal) + 1``: counted per row over the
    distinct values, no row is sorted, and the result is exact.
    """
    distinct, codes = np.unique(values, return_inverse=True)
    m = len(distinct)
    flat = codes.reshape(-1)[idx].reshape(-1, idx.shape[-1])
    flat += (np.arange(len(flat)) * m)[:, None]  # row r's codes live in [r * m, (r + 1) * m)
    counts = np.bincount(flat.ravel(), minlength=flat.size // idx.shape[-1] * m)
    # In place: chains of large temporaries cost several times the arithmetic here.
    doubled = np.cumsum(counts.reshape(-1, m), axis=1).ravel()
    doubled *= 2
    doubled -= counts
    doubled += 1
    return doubled[flat].reshape(idx.shape)


# ---------------------------------------------------------------------------
# Reference semantics
# ---------------------------------------------------------------------------


def recall_at_k(y_true, y_pred, frac: float = TOP_FRAC) -> float:
    """Share of the true top ``k`` found in the predicted top ``k`` (largest values).

    ``k = int(len(y_true) * frac)``; the top sets are the last ``k`` positions of
    ``np.argsort`` (default kind), so ties at the boundary are broken the way
    numpy's sort leaves them, as in the reference.
    """
    top_k = int(len(y_true) * frac)
    true_arr = np.array(y_true).flatten()
    pred_arr = np.array(y_pred).flatten()
    if top_k == 0:
        raise ScievalsError(
            "top-10% recall",
            f"only {len(true_arr)} scored rows, so k = int({len(true_arr)} * {frac}) = 0 "
            "(the reference divides by zero here)",
            f"score at least {math.ceil(1 / frac)} antibodies with both a prediction and a measurement",
        )
    true_top = np.argsort(true_arr)[-top_k:]
    pred_top = np.argsort(pred_arr)[-top_k:]
    return len(set(true_top.tolist()) & set(pred_top.tolist())) / top_k


def _check_numeric(series: pd.Series, where: str, what: str) -> None:
    if not (pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)):
        bad = series[pd.to_numeric(series, errors="coerce").isna() & series.notna()]
        example = f" (e.g. {bad.iloc[0]!r})" if len(bad) else ""
        raise ScievalsError(
            where,
            f"{what} is not numeric{example}; the reference would rank it as text",
            "write plain numbers (empty cell for a missing value) in every property column; "
            "run `python -m scievals abdev validate` to list the bad cells",
        )


def reference_spearman(pred: np.ndarray, true: np.ndarray, where: str = "") -> float:
    """``scipy.stats.spearmanr(pred, true).correlation`` for NaN-free 1-D data, without the p-value.

    The same operations as scipy 1.17's ``spearmanr`` (rank each column with
    average ties, ``np.corrcoef`` of the ranks; NaN for constant input), so the
    value is bit-identical (tested); skipping its p-value, input checks and the
    ``scipy.stats`` import makes scoring several times cheaper.
    """
    if (pred[0] == pred).all() or (true[0] == true).all():
        log.warning("%s: constant input, Spearman is undefined (NaN)", where or "spearman")
        return np.float64(np.nan)
    identity = np.arange(len(pred))[None, :]
    # Ranks as the rows of one C-ordered array: the layout np.corrcoef sees from scipy's path.
    ranked = np.concatenate((doubled_ranks(pred, identity), doubled_ranks(true, identity))) / 2
    return np.corrcoef(ranked)[1, 0]


def _evaluate_arrays(pred: np.ndarray, true: np.ndarray, assay: str, where: str) -> dict[str, float]:
    """:func:`evaluate` on the columns' numpy values (same dtypes as the reference's ``.values``)."""
    mask = ~(pd.isna(pred) | pd.isna(true))
    pred_clean = pred[mask]
    true_clean = true[mask]
    n = int(mask.sum())
    if n < MIN_ROWS:
        if not (~pd.isna(pred)).any():
            problem = ("no antibody here has a prediction (the file leaves them out, or their "
                       "cells are empty), nothing to score")
            fix = (f"predict every antibody of the truth file (in every fold), or drop the {assay} "
                   "column")
        else:
            problem = (
                f"only {n} antibodies have both a prediction and a measurement; "
                f"top-10% recall needs at least {MIN_ROWS} (k = int({n} * 0.1) = 0)"
            )
            fix = "predict every antibody of the truth file (missing predictions are not scored)"
        raise ScievalsError(where or assay, problem, fix)
    spearman = reference_spearman(pred_clean, true_clean, where)
    y_true, y_pred = true_clean, pred_clean
    if not ASSAY_HIGHER_IS_BETTER[assay]:
        y_true = -1 * y_true
        y_pred = -1 * y_pred
    return {"spearman": spearman, "top_10_recall": recall_at_k(y_true, y_pred, frac=TOP_FRAC)}


def evaluate(pred: pd.Series, true: pd.Series, assay: str, where: str = "") -> dict[str, float]:
    """Spearman and top-10 % recall of one assay on one subset (pairwise NaN deletion)."""
    where = where or assay
    _check_numeric(pred, where, f"prediction column {assay!r}")
    _check_numeric(true, where, f"truth column {assay!r}")
    return _evaluate_arrays(pred.to_numpy(), true.to_numpy(), assay, where)


def evaluate_cross_validation(
    pred: pd.Series,
    true: pd.Series,
    folds: pd.Series,
    assay: str,
    num_folds: int = 5,
    where: str = "",
) -> list[dict]:
    """Per-fold rows (sorted, ``str(fold)``), then ``aggregated`` and ``average``."""
    where = where or assay
    _check_numeric(pred, where, f"prediction column {assay!r}")
    _check_numeric(true, where, f"truth column {assay!r}")
    actual = folds.nunique()
    if actual != num_folds:
        raise ScievalsError(
            where,
            f"Expected {num_folds} folds, got {actual} (fold column {folds.name!r})",
            "pass the number of folds the truth file has (--num-folds / abdev.num_folds) "
            "or fix the fold column",
        )
    if folds.isna().any():
        raise ScievalsError(
            where,
            f"fold column {folds.name!r} is empty for {int(folds.isna().sum())} antibodies",
            "give every truth antibody a fold",
        )
    pred_values, true_values, fold_values = pred.to_numpy(), true.to_numpy(), folds.to_numpy()
    rows: list[dict] = []
    per_fold: dict[str, list] = defaultdict(list)
    for fold in sorted(folds.unique()):
        in_fold = fold_values == fold
        result = _evaluate_arrays(pred_values[in_fold], true_values[in_fold], assay, f"{where}, fold {fold}")
        result["fold"] = str(fold)
        rows.append(result)
        for key in ("spearman", "top_10_recall"):
            per_fold[key].append(result[key])
    aggregated = _evaluate_arrays(pred_values, true_values, assay, f"{where}, all folds")
    aggregated["fold"] = "aggregated"
    rows.append(aggregated)
    average = {key: np.mean(values) for key, values in per_fold.items()}
    average["fold"] = "average"
    rows.append(average)
    return rows


def merge_predictions(
    truth: pd.DataFrame,
    preds: pd.DataFrame,
    properties: Sequence[str],
    fold_col: str | None = None,
    where: str = "",
) -> pd.DataFrame:
    """Left join of ``preds`` onto ``truth`` as in the reference (suffixes _true/_pred)."""
    truth_cols = ["antibody_name"] + PROPERTY_LIST
    missing = [c for c in truth_cols if c not in truth.columns]
    if missing:
        raise ScievalsError(where, f"truth file lacks columns {missing}", "use the GDPa1 CSV as truth")
    if fold_col:
        if fold_col not in truth.columns:
            raise ScievalsError(
                where,
                f"Fold column '{fold_col}' not found in target data",
                f"pass one of the truth's fold columns (e.g. {DEFAULT_FOLD_COL!r})",
            )
        truth_cols.insert(1, fold_col)
    try:
        return pd.merge(
            truth[truth_cols],
            preds[["antibody_name"] + list(properties)],
            on="antibody_name",
            how="left",
            suffixes=("_true", "_pred"),
        )
    except ValueError as exc:  # e.g. names are numbers in one file and text in the other
        raise ScievalsError(where, f"cannot join on antibody_name ({exc})", "write names as text") from None




def reference_rows(
    merged: pd.DataFrame,
    properties: Sequence[str],
    model_name: str,
    dataset_name: str | None = None,
    fold_col: str | None = None,
    num_folds: int = 5,
    split: str = "test",
    where: str = "",
) -> list[dict]:
    """The reference's ``evaluate_model`` rows for a merged frame (:func:`merge_predictions`).

    ``dataset_name == "GDPa1_cross_validation"`` gives 7 rows per scored assay
    (folds, ``aggregated``, ``average``) with keys ``spearman, top_10_recall,
    fold, dataset, assay, model, split``; any other name gives one row per assay
    with keys ``spearman, top_10_recall, dataset, assay, model, fold (None),
    split``. Assays are ``properties`` (the prediction file's, in its column
    order); no property gives ``[]``.
    """
    cross_validation = dataset_name == CV_DATASET
    results: list[dict] = []
    for assay in properties:
        pred, true = merged[assay + "_pred"], merged[assay + "_true"]
        if cross_validation:
            if not fold_col:
                raise ScievalsError(
                    where,
                    "fold_col is required for cross-validation evaluation",
                    f"pass the truth's fold column, e.g. {DEFAULT_FOLD_COL!r}",
                )
            for row in evaluate_cross_validation(
                pred, true, merged[fold_col], assay, num_folds, where=f"{where}: {assay}"
            ):
                row.update(dataset=dataset_name, assay=assay, model=model_name, split=split)
                results.append(row)
        else:
            row = evaluate(pred, true, assay, where=f"{where}: {assay}")
            row.update(dataset=dataset_name, assay=assay, model=model_name, fold=None, split=split)
            results.append(row)
    return results


# ---------------------------------------------------------------------------
# Beyond the reference: tie-robust recall and bootstrap CIs
# ---------------------------------------------------------------------------


def _top_k(n: int) -> int:
    return int(n * TOP_FRAC)


def top_inclusion_probability(values: np.ndarray, k: int, axis: int = -1) -> np.ndarray:
    """P(item is in the top ``k``) when ties are broken uniformly at random.

    Items above the k-th largest value are in for sure; the ``e`` items equal to
    it share the ``k - g`` remaining places (``g`` = items strictly above), so
    each is in with probability ``(k - g) / e``; the rest are out.
    """
    v = np.asarray(values)
    last = axis in (-1, v.ndim - 1)  # the bootstrap's case: skip moveaxis, called ~7,000x a job
    if not last:
        v = np.moveaxis(v, axis, -1)
    n = v.shape[-1]
    threshold = np.partition(v, n - k, axis=-1)[..., n - k : n - k + 1]  # the k-th largest value
    above = v > threshold
    tied = v == threshold
    share = (k - np.count_nonzero(above, axis=-1, keepdims=True)) / np.count_nonzero(
        tied, axis=-1, keepdims=True)
    prob = tied * share  # share where tied, else 0.0
    prob[above] = 1.0
    return prob if last else np.moveaxis(prob, -1, axis)


def tie_robust_recall(y_true, y_pred, axis: int = -1, frac: float = TOP_FRAC) -> np.ndarray:
    """Expected top-10 % recall over independent uniform tie-breaking of both rankings.

    ``E|T & P| = sum_i P(i in T) * P(i in P)`` because the two tie-breakings are
    independent; divided by ``k``. Equals :func:`recall_at_k` when neither
    ranking has a tie at its top-k boundary. Values must already be oriented so
    that larger is better. Vectorised along ``axis``.
    """
    y_true = np.asarray(y_true)
    n = y_true.shape[axis]
    k = int(n * frac)
    if k == 0:
        raise ScievalsError("tie-robust recall", f"only {n} scored rows, k = 0", "score at least 10 rows")
    p_true = top_inclusion_probability(y_true, k, axis)
    p_true *= top_inclusion_probability(np.asarray(y_pred), k, axis)
    return p_true.sum(axis=axis) / k


def weighted_top_inclusion(values: np.ndarray, weights: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(B, n): for every resample given as row multiplicities ``weights`` (B, n), the chance
    that one copy of row i is in the top ``k[b]`` of the repeated rows when ties (copies
    included) are broken uniformly at random: with W the weight of row i's value and A the
    weight of larger values, clip((k - A) / W, 0, 1) (:func:`top_inclusion_probability`
    on the repeated rows, without building them)."""
    order, starts, codes = value_groups(-values)  # descending, ties in row order
    per_value = group_weights(weights, order, starts).astype(float)  # (B, G)
    above = np.cumsum(per_value, axis=1) - per_value
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.clip((k[:, None] - above) / per_value, 0.0, 1.0)
    share[np.isnan(share)] = 0.0  # 0 / 0: a value no row of the resample has
    return share[:, codes]


def weighted_recall(pred: np.ndarray, true: np.ndarray, weights: np.ndarray,
                    frac: float = TOP_FRAC) -> np.ndarray:
    """Tie-robust top-10 % recall of every resample given as row multiplicities
    ``weights`` (B, n) of oriented ``pred``/``true`` (larger is better): the same number as
    :func:`tie_robust_recall` on the rows repeated that often (copies of a row tie), with
    k = int(total weight * frac); NaN where k = 0. Vectorised over resamples, so the
    comparison engine's shared-resample bootstrap costs one call per arm."""
    true = np.asarray(true, dtype=float)

    def truth_side():  # true's half: the same for every pred scored on these resamples
        w = np.atleast_2d(np.asarray(weights, dtype=np.int64))
        k = (w.sum(axis=1) * frac).astype(np.int64)
        return w, k, w * weighted_top_inclusion(true, w, k)

    w, k, weighted_true = SHARED.truth_side(f"recall {frac!r}", true, weights, truth_side)
    hits = (weighted_true * weighted_top_inclusion(np.asarray(pred, dtype=float), w, k)).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(k > 0, hits / k, np.nan)


def recall_statistic(y_true, y_pred, axis: int = -1) -> np.ndarray:
    """Vectorised top-10 % recall with numpy argsort tie handling (oriented values)."""
    t = np.asarray(y_true)
    p = np.asarray(y_pred)
    if axis not in (-1, t.ndim - 1):
        t, p = np.moveaxis(t, axis, -1), np.moveaxis(p, axis, -1)
    k = _top_k(t.shape[-1])
    if t.ndim == 2:
        # the bootstrap's (G, m) case, ~3,500 calls a job: plain fancy indexing is cheaper
        # than put/take_along_axis and marks the same positions
        rows = np.arange(t.shape[0])[:, None]
        in_true = np.zeros(t.shape, dtype=bool)
        in_true[rows, np.argsort(t, axis=-1)[:, -k:]] = True
        hits = np.count_nonzero(in_true[rows, np.argsort(p, axis=-1)[:, -k:]], axis=-1)
        return hits / k
    in_true = np.zeros(t.shape, dtype=bool)
    np.put_along_axis(in_true, np.argsort(t, axis=-1)[..., -k:], True, axis=-1)
    # |T & P|: how many of the predicted top k (distinct positions) are in the true top k
    hits = np.take_along_axis(in_true, np.argsort(p, axis=-1)[..., -k:], axis=-1).sum(axis=-1)
    return hits / k


def spearman_statistic(pred: np.ndarray, true: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Spearman of every sample ``pred[idx[r]], true[idx[r]]`` (NaN where one is constant).

    Pearson correlation of the average ranks, in integers: with ``c = 2 * rank
    - (n + 1)`` (twice the centred rank, since the mean rank is ``(n + 1) / 2``)
    every sum is exact, so the value is the same float as the textbook
    floating-point formula on ``rankdata`` ranks, only cheaper.
    """
    n = idx.shape[-1]
    cx = doubled_ranks(pred, idx)
    cx -= n + 1
    cy = doubled_ranks(true, idx)
    cy -= n + 1
    sxy = np.einsum("...i,...i->...", cx, cy) / 4
    sxx = np.einsum("...i,...i->...", cx, cx) / 4
    syy = np.einsum("...i,...i->...", cy, cy) / 4
    with np.errstate(invalid="ignore", divide="ignore"):
        return sxy / np.sqrt(sxx * syy)


# metric suffix -> statistic of every sample idx[r] of (oriented pred, oriented true)
EXTENDED_METRICS: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]] = {
    "spearman": spearman_statistic,
    "top_10_recall": lambda pred, true, idx: recall_statistic(true[idx], pred[idx]),
    "top_10_recall_tie_robust": lambda pred, true, idx: tie_robust_recall(true[idx], pred[idx]),
}


class BootstrapDraws:
    """Resample index matrices, drawn exactly as ``scipy.stats.bootstrap`` draws them.

    A paired ``scipy.stats.bootstrap(..., n_resamples=R, rng=default_rng(seed))``
    of ``n`` rows draws ``rng.integers(0, n, (R, n))`` once and evaluates the
    statistic on those rows. Every (subset, metric) CI starts a generator with
    the same seed, so all subsets of one size share one matrix: it is drawn once
    here and reused, which gives the same intervals as calling scipy per metric.
    """

    def __init__(self, n_resamples: int, seed: int):
        if n_resamples < 0:
            raise ScievalsError(
                "bootstrap.n_resamples", f"{n_resamples} is negative", "use 0 (no CIs) or a positive count"
            )
        self.n_resamples = n_resamples
        self.seed = seed
        self._cache: dict[tuple[int, ...], list[np.ndarray]] = {}

    def paired(self, n: int) -> np.ndarray:
        """The index matrix of one paired bootstrap over ``n`` rows."""
        return self.stratified((n,))[0]

    def stratified(self, sizes: tuple[int, ...]) -> list[np.ndarray]:
        """One matrix per stratum, drawn in order from one generator seeded with ``seed``."""
        if sizes not in self._cache:
            rng = np.random.default_rng(self.seed)
            self._cache[sizes] = [rng.integers(0, n, size=(self.n_resamples, n)) for n in sizes]
        return self._cache[sizes]


def _paired_ci(pred, true, statistic, draws: BootstrapDraws) -> tuple[float, float]:
    """Percentile 95 % CI over resampled (pred, true) pairs; NaN replicates are ignored."""
    if draws.n_resamples == 0 or len(pred) < 2:
        return (math.nan, math.nan)
    return percentile_interval(statistic(pred, true, draws.paired(len(pred))))


def _stratified_mean_ci(subsets, statistic, draws: BootstrapDraws) -> tuple[float, float]:
    """Percentile 95 % CI of the mean over folds, resampling rows within each fold.

    The fold assignment is part of the benchmark design, so it stays fixed: each
    bootstrap replicate resamples every fold's rows with replacement (its size
    kept), computes the statistic per fold and averages the fold values like the
    reference's ``average`` row. Replicates where a fold's statistic is undefined
    (a constant resample) are dropped.
    """
    if draws.n_resamples == 0 or any(len(p) < 2 for p, _ in subsets):
        return (math.nan, math.nan)
    matrices = draws.stratified(tuple(len(p) for p, _ in subsets))
    per_fold = [statistic(p, t, idx) for (p, t), idx in zip(subsets, matrices)]
    return percentile_interval(np.mean(per_fold, axis=0))


def _cluster_statistic(metric: str, pred: np.ndarray, true: np.ndarray):
    """The metric of one subset as a function of row multiplicities (B, rows) -> B values."""
    if metric == "spearman":
        return lambda weights: weighted_spearman(pred, true, weights)
    if metric in ("top_10_recall", "top_10_recall_tie_robust"):
        # the tie-robust weighted recall: copies of a resampled antibody tie, so their order
        # at the top-k boundary is chance (the argsort recall of the expanded rows picks
        # copies by sort order); what docs/statistics.md's coverage figures were measured
        # with, and vectorised over resamples (no per-resample-size loop)
        return lambda weights: weighted_recall(pred, true, weights)
    return lambda weights: expanded(lambda idx: resampled_recall(metric, pred, true, idx), weights)


def resampled_recall(metric: str, pred: np.ndarray, true: np.ndarray, idx: np.ndarray):
    """A recall metric of resamples ``idx`` (G, m); NaN when a cluster resample has fewer
    than MIN_ROWS rows (k = 0: the recall is undefined there, not an error of the file)."""
    if idx.shape[-1] < MIN_ROWS:
        return np.full(idx.shape[0], np.nan)
    return EXTENDED_METRICS[metric](pred, true, idx)


def _cluster_ci(subsets, metric: str, bootstrap: dict) -> tuple[float, float]:
    """95 % CI of the mean over ``subsets`` (each ``(pred, true, cluster codes)``) of the
    metric, resampling whole sequence clusters within each subset (percentile by default,
    see :func:`scievals.stats.intervals.cluster_bootstrap`)."""
    statistics = [_cluster_statistic(metric, p, t) for p, t, _ in subsets]
    codes = [pd.factorize(c)[0] for _, _, c in subsets]
    low, high, _ = cluster_bootstrap(
        lambda weights: np.mean([f(w) for f, w in zip(statistics, weights)], axis=0),
        codes, bootstrap)
    if metric != "spearman" and np.isfinite(low) and high - low <= 1e-12:
        # every resample gave the same recall (e.g. no hit in any): a recall is a share of
        # the K top places, so keep at least that share's effective-n Wilson interval at
        # K = the top places of all subsets (docs/statistics.md) - never zero-width
        top = sum(_top_k(len(p)) for p, _, _ in subsets)
        wide_low, wide_high = wilson_ess_bounds(low, 0.0, top, ess_quantile(top))
        low, high = min(low, float(wide_low)), max(high, float(wide_high))
    return (low, high)


def _shared_key(label: str, metric: str) -> tuple[str, str]:
    """The key of a subset's cluster interval: both top-10 % recalls share one (their
    resamples are the same tie-robust weighted recall, :func:`_cluster_statistic`, drawn
    with the same seed, so the second would repeat the first to the last bit)."""
    recall = metric in ("top_10_recall", "top_10_recall_tie_robust")
    return (label, "recall" if recall else metric)


def _holding(value: float, low: float, high: float) -> tuple[float, float]:
    """The interval widened to hold the point value. The resampled recall breaks ties at the
    top-k boundary at random (copies of a resampled antibody tie), the reference's point
    value by sort order: with tied predictions (a constant column) the resamples can all sit
    on one side of it, and an interval must never exclude its own estimate."""
    if not (np.isfinite(value) and np.isfinite(low) and np.isfinite(high)):
        return (low, high)
    return (min(low, value), max(high, value))


def _oriented(pred: pd.Series, true: pd.Series, assay: str) -> tuple[np.ndarray, np.ndarray]:
    """Masked values as float arrays, negated for lower-is-better assays.

    Spearman is invariant to negating both arrays, so one orientation serves all
    three statistics.
    """
    mask = ~(pred.isna() | true.isna())
    sign = 1.0 if ASSAY_HIGHER_IS_BETTER[assay] else -1.0
    return sign * pred[mask].to_numpy(dtype=float), sign * true[mask].to_numpy(dtype=float)


def extended_table(
    merged: pd.DataFrame,
    properties: Sequence[str],
    fold_col: str,
    reference: Sequence[dict],
    n_resamples: int = 1000,
    seed: int = 0,
    clusters: np.ndarray | None = None,
    method: str = "auto",
) -> pd.DataFrame:
    """Reference CV values plus CIs and tie-robust recall for a merged frame.

    ``reference`` is :func:`reference_rows` of the same frame in
    cross-validation mode (computed once by the caller, reused here). Returns
    one row per (fold, assay, metric) with columns ``fold, assay, metric, value,
    ci_low, ci_high, n``; ``fold`` runs over the sorted folds as strings, then
    ``aggregated`` and ``average`` (as the reference); ``metric`` is
    ``spearman``, ``top_10_recall`` or ``top_10_recall_tie_robust``.

    - ``spearman`` and ``top_10_recall`` values are the reference's numbers.
    - CIs of fold and ``aggregated`` rows: paired percentile bootstrap over the
      scored rows (``n_resamples``, ``seed``; the draws of
      ``scipy.stats.bootstrap``, see :class:`BootstrapDraws`). Resampled recall
      breaks ties with ``argsort`` like the point value.
    - ``average`` rows: value is the unweighted mean of the fold values; its CI
      comes from :func:`_stratified_mean_ci` (rows resampled within each fold,
      fold values averaged per replicate); ``n`` is the sum of the folds' scored rows.
    - ``top_10_recall_tie_robust``: :func:`tie_robust_recall`, exact.
    - with ``clusters`` (a sequence-cluster code per row of ``merged``,
      :mod:`scievals.abdev.clusters`) every CI resamples whole clusters instead of rows
      (within each fold for ``average``), percentile unless ``method`` is ``bca``
      (:func:`_cluster_ci`): rows of one cluster are not independent.
    """
    draws = BootstrapDraws(n_resamples, seed)
    by_key = {(row["assay"], row["fold"]): row for row in reference}
    records = []
    folds = merged[fold_col]
    fold_values = sorted(folds.unique())
    for assay in properties:
        pred, true = merged[assay + "_pred"], merged[assay + "_true"]
        subsets = [(str(f), *_oriented(pred[folds == f], true[folds == f], assay)) for f in fold_values]
        pooled = ("aggregated", *_oriented(pred, true, assay))
        if clusters is not None:
            known = ~(pred.isna() | true.isna()).to_numpy()
            codes = {str(f): clusters[known & (folds == f).to_numpy()] for f in fold_values}
            codes["aggregated"] = clusters[known]
            cluster_boot = {"n_resamples": n_resamples, "seed": seed, "method": method}
        recall_cis: dict = {}  # (subset, statistic) -> cluster interval (_shared_key)
        for label, p, t in subsets + [pooled]:
            for metric, statistic in EXTENDED_METRICS.items():
                if metric in by_key[assay, label]:
                    value = float(by_key[assay, label][metric])
                else:
                    value = float(tie_robust_recall(t, p))
                if clusters is None:
                    low, high = _paired_ci(p, t, statistic, draws)
                elif _shared_key(label, metric) in recall_cis:
                    low, high = recall_cis[_shared_key(label, metric)]
                else:
                    low, high = _cluster_ci([(p, t, codes[label])], metric, cluster_boot)
                    recall_cis[_shared_key(label, metric)] = (low, high)
                low, high = _holding(value, low, high)
                records.append((label, assay, metric, value, low, high, len(p)))
        for metric, statistic in EXTENDED_METRICS.items():
            if metric in by_key[assay, "average"]:
                value = float(by_key[assay, "average"][metric])
            else:
                value = float(np.mean([tie_robust_recall(t, p) for _, p, t in subsets]))
            if clusters is None:
                low, high = _stratified_mean_ci([(p, t) for _, p, t in subsets], statistic, draws)
            elif _shared_key("average", metric) in recall_cis:
                low, high = recall_cis[_shared_key("average", metric)]
            else:
                low, high = _cluster_ci([(p, t, codes[f]) for f, p, t in subsets], metric,
                                        cluster_boot)
                recall_cis[_shared_key("average", metric)] = (low, high)
            low, high = _holding(value, low, high)
            records.append(("average", assay, metric, value, low, high, sum(len(p) for _, p, _ in subsets)))
    return pd.DataFrame.from_records(
        records, columns=["fold", "assay", "metric", "value", "ci_low", "ci_high", "n"]
    )
