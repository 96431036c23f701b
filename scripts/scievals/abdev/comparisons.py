"""abdev's items for the paired comparisons: antibodies, in sequence clusters, in CV folds.

The headline metrics (``<assay>:spearman``, ``<assay>:top_10_recall`` of ``fold=average``)
are statistics of a whole set, so two models are compared by a paired bootstrap that
recomputes both on the same resampled antibodies. Antibodies are not independent: GDPa1's
folds were made by clustering sequences so that near-identical antibodies share a fold. The
bootstrap therefore resamples whole clusters (:mod:`scievals.abdev.clusters`), within each
fold, and averages the fold values like the reference's ``average`` row.

The resamples are drawn once per assay over every antibody with a measured value (cluster
draws within folds: a row's weight is its cluster's draw count); every arm's statistic is
computed once on them, restricted to the antibodies the arm predicted, so a pair is a
difference of two arms' replicates (linear in the arms). A pair of arms that predicted
different antibodies (own files that skip some) is computed on the antibodies both
predicted, tested by the delete-one-cluster jackknife there: recomputing both arms' B
resamples for every such pair's antibodies made the comparisons quadratic in the arms
(docs/statistics.md, "Arms that scored different items").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from scievals.abdev.clusters import truth_clusters
from scievals.abdev.constants import ASSAY_HIGHER_IS_BETTER
from scievals.abdev.metrics import (
    EXTENDED_METRICS,
    MIN_ROWS,
    resampled_recall,
    weighted_recall,
)
from scievals.abdev.score import raise_on_errors, read_checked_predictions, read_truth
from scievals.stats.comparisons import Arm, SetMetric, model_datasets, spans
from scievals.stats.intervals import (
    cluster_counts,
    cluster_variance_factor,
    expanded,
    weighted_spearman,
)

METHOD = "paired cluster bootstrap"
# pairs of files that predicted different antibodies (stats.comparisons.SetMetric.leave_out)
JACKKNIFE_METHOD = "paired cluster jackknife"


def item_metrics(inputs: Mapping[str, Sequence[str]], models: Sequence[str],
                 headline: Sequence[str], section: Mapping,
                 bootstrap: Mapping | None = None, ranges: Mapping | None = None,
                 ) -> list[SetMetric]:
    fold_col = section.get("fold_col") or None
    truth_path = inputs["truth"][0]
    truth = read_truth(truth_path, fold_col).drop_duplicates("antibody_name")
    clusters_path = (inputs.get("clusters") or [None])[0]  # the download job's clusters file
    cluster = truth["antibody_name"].astype(str).map(truth_clusters(truth_path, fold_col,
                                                                    clusters_path))
    cluster = cluster.to_numpy(dtype=np.int64)
    folds = truth[fold_col].to_numpy() if fold_col else np.zeros(len(truth))
    # the score tables first: an own file its score job could not score stops here with its
    # own error (common.table_files.write_not_scored), naming the user's file
    datasets = model_datasets(inputs["table"])
    preds = {}
    for model, path in zip(models, inputs["pred"]):
        frame, report = read_checked_predictions(path, truth, fold_col)
        raise_on_errors(report)
        preds[model] = frame.drop_duplicates("antibody_name").set_index("antibody_name")
    dataset = datasets.get(models[0], "") if models else ""
    bootstrap = dict(bootstrap or {})
    out = []
    for assay in dict.fromkeys(name.partition(":")[0] for name in headline):
        if assay not in truth.columns:
            continue
        draws = None
        for name in headline:
            head, _, metric = name.partition(":")
            if head != assay or metric not in EXTENDED_METRICS:
                continue
            set_metric, draws = _set_metric(name, assay, metric, truth, preds, folds, cluster,
                                            dataset, bootstrap, draws,
                                            spans(ranges, [name])[name])
            if set_metric is not None:
                out.append(set_metric)
    return out


class _Draws:
    """Cluster multiplicities of the assay's measured antibodies, drawn once: per fold, k
    cluster codes with replacement per resample (``rng.integers(0, k, (B, k))``, fold by
    fold from one seeded generator, as :func:`scievals.stats.intervals.cluster_bootstrap`
    draws them); ``weights[f]`` is the (B, rows of fold f) multiplicity of each row, and
    ``left_out[f]`` the jackknife's (k, rows of fold f): cluster j's rows weight 0, the rest 1."""

    def __init__(self, strata: list[np.ndarray], codes: list[np.ndarray], bootstrap: Mapping):
        self.strata = strata
        n_resamples = int(bootstrap.get("n_resamples", 1000))
        rng = np.random.default_rng(int(bootstrap.get("seed", 0)))
        sizes = [int(c.max()) + 1 if len(c) else 0 for c in codes]
        self.variance_factor = cluster_variance_factor(sizes)
        self.left_out = [(c[None, :] != np.arange(k)[:, None]).astype(float)
                         for k, c in zip(sizes, codes)]
        self.weights = []
        for k, c in zip(sizes, codes):
            if n_resamples <= 0 or k < 2:
                self.weights.append(np.zeros((0, len(c))))
                continue
            self.weights.append(cluster_counts(rng.integers(0, k, (n_resamples, k)), k)[:, c])


def _set_metric(name, assay, metric, truth, preds, folds, cluster, dataset, bootstrap, draws,
                span):
    models = [m for m, frame in preds.items() if assay in frame.columns]
    if len(models) < 2:
        return None, draws
    sign = 1.0 if ASSAY_HIGHER_IS_BETTER[assay] else -1.0
    true = sign * pd.to_numeric(truth[assay], errors="coerce").to_numpy(dtype=float)
    base = np.flatnonzero(np.isfinite(true))  # the rows the resamples are drawn over
    pred = np.stack([sign * pd.to_numeric(preds[m][assay].reindex(truth["antibody_name"]),
                                           errors="coerce").to_numpy(dtype=float)[base]
                     for m in models])
    true = true[base]
    if draws is None:
        strata = [np.flatnonzero(folds[base] == fold) for fold in sorted(set(folds[base]))]
        draws = _Draws(strata, [pd.factorize(cluster[base][s])[0] for s in strata], bootstrap)
    available = np.isfinite(pred)

    def fold_values(p: np.ndarray, t: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """The statistic on the point (row 0: weight 1 everywhere) and every resample; of
        every row of a 2-D ``p`` (arms, rows) at once."""
        if metric == "spearman":
            return weighted_spearman(p, t, weights)
        if p.ndim == 2:
            return np.stack([fold_values(row, t, weights) for row in p])
        # the point as the reference computes it; the resamples with the weighted tie-robust
        # form (abdev.metrics.weighted_recall: copies of a resampled antibody tie)
        point = resampled_recall(metric, p, t, np.arange(p.size)[None, :])
        if metric == "top_10_recall":
            return np.r_[point, weighted_recall(p, t, weights[1:])]
        return np.r_[point, expanded(lambda idx: resampled_recall(metric, p, t, idx),
                                     weights[1:].astype(np.int64))]

    def fold_by_fold(arm, mask: np.ndarray, weights: list[np.ndarray]) -> list[np.ndarray]:
        """Per fold, the statistic on the mask's rows of the fold with weight 1 (row 0) and
        with each row of the fold's ``weights`` (its rows restricted to the mask); of one
        arm, or (arms, 1 + resamples) of an array of arms."""
        per_fold = []
        for rows, fold_weights in zip(draws.strata, weights):
            keep = rows[mask[rows]]
            local = mask[rows]
            w = np.vstack([np.ones((1, keep.size)), fold_weights[:, local]])
            if keep.size < (MIN_ROWS if metric != "spearman" else 2):
                per_fold.append(np.full((*np.shape(arm), len(w)), np.nan))
                continue
            with np.errstate(all="ignore"):
                per_fold.append(fold_values(pred[arm][..., keep], true[keep], w))
        return per_fold

    def replicates(arm: int, mask: np.ndarray) -> tuple[float, np.ndarray]:
        # the reference's "average" row: unweighted mean of the per-fold values
        per_fold = fold_by_fold(arm, mask, draws.weights)
        values = np.mean(per_fold, axis=0) if per_fold else np.full(1, np.nan)
        return float(values[0]), values[1:]

    def leave_out(arms: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # every arm's fold average with one fold's value replaced by its value without one
        # of its clusters, cluster by cluster; NaN for a cluster with no row in the mask
        per_fold = fold_by_fold(arms, mask, draws.left_out)
        if not per_fold:
            return np.full(len(arms), np.nan), np.zeros((len(arms), 0))
        points = np.stack([values[:, 0] for values in per_fold], axis=1)  # (arms, folds)
        total = points.sum(axis=1, keepdims=True)
        out = []
        for f, (values, rows) in enumerate(zip(per_fold, draws.strata)):
            left = (total - points[:, f:f + 1] + values[:, 1:]) / len(per_fold)
            left[:, draws.left_out[f][:, mask[rows]].all(axis=1)] = np.nan
            out.append(left)
        return total[:, 0] / len(per_fold), np.hstack(out)

    arms = tuple(Arm(m, m) for m in models)
    strata = np.repeat(np.arange(len(draws.left_out)), [len(w) for w in draws.left_out])
    # top-10 % recall is reported without a significance claim: no test of it came near its
    # nominal type-I error at GDPa1's size (docs/statistics.md, "Top-10 % recall")
    # bootstrap.n_resamples: 0 (no intervals) leaves the jackknife off too
    resampled = int(bootstrap.get("n_resamples", 1000)) > 0
    return (SetMetric(dataset, name, arms, available, replicates, span, METHOD,
                      testable=metric == "spearman", leave_out=leave_out if resampled else None,
                      strata=strata, jackknife_method=JACKKNIFE_METHOD,
                      variance_factor=draws.variance_factor), draws)
