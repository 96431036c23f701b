"""GDPa1 scoring: Spearman and top-10 % recall, exactly as the reference.

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

Beyond the reference, :func:`extended_scores` adds seeded bootstrap 95 % CIs
and a tie-robust recall (the exact expectation of the recall over random
tie-breaking), so a reader can tell how much of a recall is luck of the sort.
"""

from __future__ import annotations

import csv
import logging
import math
import os
import warnings
from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from scievals.abdev.constants import (
    ASSAY_HIGHER_IS_BETTER,
    CV_DATASET,
    DEFAULT_FOLD_COL,
    PROPERTY_LIST,
)
from scievals.common.errors import ScievalsError
from scievals.common.stats import bootstrap_ci, percentile_interval

log = logging.getLogger(__name__)

TOP_FRAC = 0.1
MIN_ROWS = 10  # int(n * 0.1) == 0 below this: the reference divides by zero
# Bump when a change moves any score: re-runs every abdev_score job and nothing else.
METRICS_VERSION = "abdev-metrics-v1"


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

    The same operations as scipy 1.17's ``spearmanr`` (stack the two columns,
    ``rankdata`` each, ``np.corrcoef`` of the ranks; NaN for constant input), so
    the value is bit-identical (tested); skipping its t-distribution p-value and
    input checks makes cross-validation scoring about twice as fast.
    """
    stacked = np.column_stack((pred, true))
    if (stacked[:, 0][0] == stacked[:, 0]).all() or (stacked[:, 1][0] == stacked[:, 1]).all():
        log.warning("%s: constant input, Spearman is undefined (NaN)", where or "spearman")
        return np.float64(np.nan)
    ranked = stats.rankdata(stacked, axis=0)  # each column ranked on its own, average ties
    return np.corrcoef(ranked, rowvar=False)[1, 0]


def _evaluate_arrays(pred: np.ndarray, true: np.ndarray, assay: str, where: str) -> dict[str, float]:
    """:func:`evaluate` on the columns' numpy values (same dtypes as the reference's ``.values``)."""
    mask = ~(pd.isna(pred) | pd.isna(true))
    pred_clean = pred[mask]
    true_clean = true[mask]
    n = int(mask.sum())
    if n < MIN_ROWS:
        if not (~pd.isna(pred)).any():
            problem = "every prediction is missing (NaN), nothing to score"
            fix = f"fill the {assay} column, or drop it from the prediction file"
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


def csv_header(path: str | os.PathLike) -> list[str]:
    """Column names from the first line (``pd.read_csv(nrows=0)`` costs as much as 1/3 of a full read)."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return next(csv.reader(handle), [])


def read_csv_checked(path: str | os.PathLike, role: str, columns: set[str] | None = None) -> pd.DataFrame:
    """``pd.read_csv`` with the default parser (as the reference) and clear errors.

    ``columns`` restricts parsing to those columns (others are skipped, which
    halves the time for GDPa1's long DNA columns; parsed values are the same).
    """
    try:
        if columns is None:
            frame = pd.read_csv(path)
        else:  # a list is much faster than a callable; pandas rejects names it lacks
            header = csv_header(path)
            frame = pd.read_csv(path, usecols=[c for c in header if c in columns] or None)
    except FileNotFoundError:
        raise ScievalsError(str(path), f"{role} file not found", "check the path") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise ScievalsError(
            str(path), f"cannot read {role} CSV ({exc})", "write a comma-separated file with a header row"
        ) from None
    if "antibody_name" not in frame.columns:
        header = list(header) if columns is not None else list(frame.columns)
        raise ScievalsError(
            str(path),
            f"{role} file has no 'antibody_name' column (columns: {header[:8]})",
            "name the column holding the antibody names exactly 'antibody_name'",
        )
    return frame


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


def _load(
    preds_path, target_path, cross_validation: bool, fold_col: str | None
) -> tuple[pd.DataFrame, list[str], str]:
    preds = read_csv_checked(preds_path, "prediction")
    truth = read_csv_checked(target_path, "truth", {"antibody_name", *PROPERTY_LIST, fold_col or ""})
    properties = [c for c in preds.columns if c in PROPERTY_LIST]
    where = f"{preds_path} vs {target_path}"
    merged = merge_predictions(truth, preds, properties, fold_col if cross_validation else None, where)
    return merged, properties, str(preds_path)


def evaluate_model(
    preds_path,
    target_path,
    model_name: str,
    dataset_name: str | None = None,
    fold_col: str | None = None,
    num_folds: int = 5,
    split: str = "test",
) -> list[dict]:
    """Score a prediction CSV against a truth CSV; the reference's public API.

    ``dataset_name == "GDPa1_cross_validation"`` gives 7 rows per scored assay
    (folds, ``aggregated``, ``average``) with keys ``spearman, top_10_recall,
    fold, dataset, assay, model, split``; any other name gives one row per assay
    with keys ``spearman, top_10_recall, dataset, assay, model, fold (None),
    split``. Assays are those of the prediction file, in its column order; a
    file without any assay column gives ``[]``.
    """
    cross_validation = dataset_name == CV_DATASET
    merged, properties, where = _load(preds_path, target_path, cross_validation, fold_col)
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
    v = np.moveaxis(np.asarray(values), axis, -1)
    n = v.shape[-1]
    threshold = np.sort(v, axis=-1)[..., n - k : n - k + 1]
    above = v > threshold
    tied = v == threshold
    share = (k - above.sum(axis=-1, keepdims=True)) / tied.sum(axis=-1, keepdims=True)
    prob = np.where(above, 1.0, np.where(tied, share, 0.0))
    return np.moveaxis(prob, -1, axis)


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
    p_pred = top_inclusion_probability(np.asarray(y_pred), k, axis)
    return (p_true * p_pred).sum(axis=axis) / k


def spearman_statistic(x, y, axis: int = -1) -> np.ndarray:
    """Vectorised Spearman: Pearson correlation of average ranks along ``axis`` (NaN if constant)."""
    rx = stats.rankdata(x, axis=axis)
    ry = stats.rankdata(y, axis=axis)
    rx = rx - rx.mean(axis=axis, keepdims=True)
    ry = ry - ry.mean(axis=axis, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rx * ry).sum(axis=axis) / np.sqrt((rx * rx).sum(axis=axis) * (ry * ry).sum(axis=axis))


def recall_statistic(y_true, y_pred, axis: int = -1) -> np.ndarray:
    """Vectorised top-10 % recall with numpy argsort tie handling (oriented values)."""
    t = np.moveaxis(np.asarray(y_true), axis, -1)
    p = np.moveaxis(np.asarray(y_pred), axis, -1)
    k = _top_k(t.shape[-1])
    in_true = np.zeros(t.shape, dtype=bool)
    in_pred = np.zeros(p.shape, dtype=bool)
    np.put_along_axis(in_true, np.argsort(t, axis=-1)[..., -k:], True, axis=-1)
    np.put_along_axis(in_pred, np.argsort(p, axis=-1)[..., -k:], True, axis=-1)
    return (in_true & in_pred).sum(axis=-1) / k


def _spearman_of(pred, true, axis=-1):
    return spearman_statistic(pred, true, axis=axis)


def _recall_of(pred, true, axis=-1):
    return recall_statistic(true, pred, axis=axis)


def _tie_robust_of(pred, true, axis=-1):
    return tie_robust_recall(true, pred, axis=axis)


# metric suffix -> vectorised statistic of (oriented pred, oriented true)
EXTENDED_METRICS: dict[str, Callable] = {
    "spearman": _spearman_of,
    "top_10_recall": _recall_of,
    "top_10_recall_tie_robust": _tie_robust_of,
}


def _stratified_mean_ci(
    subsets: Sequence[tuple[np.ndarray, np.ndarray]],
    statistic: Callable,
    n_resamples: int,
    seed: int,
) -> tuple[float, float]:
    """Percentile 95 % CI of the mean over folds, resampling rows within each fold.

    The fold assignment is part of the benchmark design, so it stays fixed: each
    bootstrap replicate resamples every fold's rows with replacement (its size
    kept), computes the statistic per fold and averages the fold values like the
    reference's ``average`` row. Replicates where a fold's statistic is undefined
    (a constant resample) are dropped.
    """
    if n_resamples <= 0 or any(len(p) < 2 for p, _ in subsets):
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    per_fold = []
    for pred, true in subsets:
        idx = rng.integers(0, len(pred), size=(n_resamples, len(pred)))
        per_fold.append(statistic(pred[idx], true[idx], axis=-1))
    return percentile_interval(np.mean(per_fold, axis=0))


def _oriented(pred: pd.Series, true: pd.Series, assay: str) -> tuple[np.ndarray, np.ndarray]:
    """Masked values as float arrays, negated for lower-is-better assays.

    Spearman is invariant to negating both arrays, so one orientation serves all
    three statistics.
    """
    mask = ~(pred.isna() | true.isna())
    sign = 1.0 if ASSAY_HIGHER_IS_BETTER[assay] else -1.0
    return sign * pred[mask].to_numpy(dtype=float), sign * true[mask].to_numpy(dtype=float)


def score_frame(
    merged: pd.DataFrame,
    properties: Sequence[str],
    fold_col: str,
    num_folds: int = 5,
    n_resamples: int = 1000,
    seed: int = 0,
    where: str = "",
) -> pd.DataFrame:
    """Reference CV values plus CIs and tie-robust recall for a merged frame.

    Returns one row per (fold, assay, metric) with columns ``fold, assay,
    metric, value, ci_low, ci_high, n``; ``fold`` runs over the sorted folds as
    strings, then ``aggregated`` and ``average`` (as the reference); ``metric``
    is ``spearman``, ``top_10_recall`` or ``top_10_recall_tie_robust``.

    - ``spearman`` and ``top_10_recall`` values are the reference's numbers
      (:func:`evaluate_cross_validation` on the same frame).
    - CIs of fold and ``aggregated`` rows: paired percentile bootstrap over the
      scored rows (:func:`scievals.common.stats.bootstrap_ci`, ``n_resamples``,
      ``seed``). Resampled recall breaks ties with ``argsort`` like the point value.
    - ``average`` rows: value is the unweighted mean of the fold values; its CI
      comes from :func:`_stratified_mean_ci` (rows resampled within each fold,
      fold values averaged per replicate); ``n`` is the sum of the folds' scored rows.
    - ``top_10_recall_tie_robust``: :func:`tie_robust_recall`, exact.
    """
    records = []
    for assay in properties:
        pred, true = merged[assay + "_pred"], merged[assay + "_true"]
        folds = merged[fold_col]
        reference = evaluate_cross_validation(pred, true, folds, assay, num_folds, where=f"{where}: {assay}")
        by_fold = {row["fold"]: row for row in reference}
        fold_values = sorted(folds.unique())
        subsets = [(str(f), *_oriented(pred[folds == f], true[folds == f], assay)) for f in fold_values]
        pooled = ("aggregated", *_oriented(pred, true, assay))
        for label, p, t in subsets + [pooled]:
            for metric, statistic in EXTENDED_METRICS.items():
                if metric in by_fold[label]:
                    value = float(by_fold[label][metric])
                else:
                    value = float(statistic(p, t))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    low, high = bootstrap_ci((p, t), statistic, n_resamples, seed, paired=True)
                records.append((label, assay, metric, value, low, high, len(p)))
        for metric, statistic in EXTENDED_METRICS.items():
            if metric in by_fold["average"]:
                value = float(by_fold["average"][metric])
            else:
                value = float(np.mean([statistic(p, t) for _, p, t in subsets]))
            low, high = _stratified_mean_ci([(p, t) for _, p, t in subsets], statistic, n_resamples, seed)
            records.append(("average", assay, metric, value, low, high, sum(len(p) for _, p, _ in subsets)))
    return pd.DataFrame.from_records(
        records, columns=["fold", "assay", "metric", "value", "ci_low", "ci_high", "n"]
    )


def extended_scores(
    preds_path,
    target_path,
    fold_col: str = DEFAULT_FOLD_COL,
    num_folds: int = 5,
    n_resamples: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """:func:`score_frame` for a prediction CSV and a truth CSV (cross-validation mode)."""
    merged, properties, where = _load(preds_path, target_path, True, fold_col)
    return score_frame(merged, properties, fold_col, num_folds, n_resamples, seed, where=where)
