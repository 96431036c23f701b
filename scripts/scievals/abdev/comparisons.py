"""abdev's items for the paired comparisons: antibodies, in sequence clusters, in CV folds.

The headline metrics (``<assay>:spearman``, ``<assay>:top_10_recall`` of ``fold=average``)
are statistics of a whole set, so two models are compared by a paired bootstrap that
recomputes both on the same resampled antibodies. Antibodies are not independent: GDPa1's
folds were made by clustering sequences so that near-identical antibodies share a fold. The
bootstrap therefore resamples whole clusters (:mod:`scievals.abdev.clusters`), within each fold,
and averages the fold values like the reference's ``average`` row.

Only antibodies with a truth value and a prediction from every compared model count (the
pairs share their items), so ``value_a``/``value_b`` equal the leaderboard's values when
the models predict the same antibodies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from scievals.abdev.clusters import truth_clusters
from scievals.abdev.constants import ASSAY_HIGHER_IS_BETTER
from scievals.abdev.metrics import EXTENDED_METRICS, resampled_recall
from scievals.abdev.score import raise_on_errors, read_checked_predictions, read_truth
from scievals.common.comparisons import SetMetric, model_datasets
from scievals.common.stats import expanded, weighted_spearman

METHOD = "paired cluster bootstrap"


def item_metrics(inputs: Mapping[str, Sequence[str]], models: Sequence[str],
                 headline: Sequence[str], section: Mapping) -> list[SetMetric]:
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
    out = []
    for name in headline:
        assay, _, metric = name.partition(":")
        if metric not in EXTENDED_METRICS or assay not in truth.columns:
            continue
        out += _set_metric(name, assay, metric, truth, preds, folds, cluster, dataset)
    return out


def _set_metric(name, assay, metric, truth, preds, folds, cluster, dataset) -> list[SetMetric]:
    arms = [m for m, frame in preds.items() if assay in frame.columns]
    if len(arms) < 2:
        return []
    sign = 1.0 if ASSAY_HIGHER_IS_BETTER[assay] else -1.0
    true = sign * pd.to_numeric(truth[assay], errors="coerce").to_numpy(dtype=float)
    pred = {m: sign * pd.to_numeric(preds[m][assay].reindex(truth["antibody_name"]),
                                    errors="coerce").to_numpy(dtype=float) for m in arms}
    keep = np.isfinite(true) & np.all([np.isfinite(p) for p in pred.values()], axis=0)
    rows = np.flatnonzero(keep)
    strata = [rows[folds[rows] == fold] for fold in sorted(set(folds[rows]))]
    codes = [pd.factorize(cluster[s])[0] for s in strata]

    def fold_value(arm: str, s: np.ndarray, weights: np.ndarray) -> np.ndarray:
        p, t = pred[arm][s], true[s]
        if metric == "spearman":
            return weighted_spearman(p, t, weights)
        return expanded(lambda idx: resampled_recall(metric, p, t, idx), weights)

    def value(arm: str, weights: list[np.ndarray]) -> np.ndarray:
        # the reference's "average" row: unweighted mean of the per-fold values
        return np.mean([fold_value(arm, s, w) for s, w in zip(strata, weights)], axis=0)

    return [SetMetric(dataset, name, tuple(arms), codes, value, int(rows.size), METHOD)]
