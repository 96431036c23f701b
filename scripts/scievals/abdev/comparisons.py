"""abdev's items for the paired comparisons: antibodies, in sequence clusters, in CV folds.

The headline metrics (``<assay>:spearman``, ``<assay>:top_10_recall`` of ``fold=average``)
are statistics of a whole set, so two models are compared by a paired bootstrap that
recomputes both on the same resampled antibodies. Antibodies are not independent: GDPa1's
folds were made by clustering sequences so that near-identical antibodies share a fold. The
bootstrap therefore resamples whole clusters (:func:`sequence_clusters`), within each fold,
and averages the fold values like the reference's ``average`` row.

Only antibodies with a truth value and a prediction from every compared model count (the
pairs share their items), so ``value_a``/``value_b`` equal the leaderboard's values when
the models predict the same antibodies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import pdist

from scievals.abdev.constants import ASSAY_HIGHER_IS_BETTER
from scievals.abdev.data import read_csv_checked
from scievals.abdev.metrics import EXTENDED_METRICS
from scievals.abdev.score import raise_on_errors, read_checked_predictions, read_truth
from scievals.common.comparisons import SetMetric, model_datasets
from scievals.common.stats import expanded, weighted_spearman

SEQUENCE_COLUMNS = ("heavy_aligned_aho", "light_aligned_aho")
# Average-linkage cut: antibodies whose aligned heavy+light chains differ at <= 15 % of
# positions on average fall in one cluster (near-identical variants of one parent).
CLUSTER_DISTANCE = 0.15
METHOD = "paired cluster bootstrap"


def sequence_clusters(heavy: Sequence[str], light: Sequence[str],
                      distance: float = CLUSTER_DISTANCE) -> np.ndarray:
    """Cluster id per antibody: average-linkage hierarchical clustering of the Hamming
    distance between the AHO-aligned heavy+light sequences, cut at ``distance``. Missing
    alignments make singleton clusters."""
    seqs = [f"{h}{l}" if isinstance(h, str) and isinstance(l, str) else None
            for h, l in zip(heavy, light)]
    known = [i for i, s in enumerate(seqs) if s]
    ids = np.arange(len(seqs)) + len(seqs) + 1  # singletons, ids apart from fcluster's
    if len(known) >= 2:
        width = max(len(seqs[i]) for i in known)
        codes = np.array([[ord(c) for c in seqs[i].ljust(width, "-")] for i in known])
        tree = linkage(pdist(codes, metric="hamming"), method="average")
        ids[known] = fcluster(tree, distance, criterion="distance")
    return ids


def item_metrics(inputs: Mapping[str, Sequence[str]], models: Sequence[str],
                 headline: Sequence[str], section: Mapping) -> list[SetMetric]:
    fold_col = section.get("fold_col") or None
    truth_path = inputs["truth"][0]
    truth = read_truth(truth_path, fold_col).drop_duplicates("antibody_name")
    sequences = read_csv_checked(truth_path, "truth", {"antibody_name", *SEQUENCE_COLUMNS})
    sequences = sequences.drop_duplicates("antibody_name").set_index("antibody_name")
    sequences = sequences.reindex(truth["antibody_name"])
    cluster = sequence_clusters(*(sequences.get(c, pd.Series([None] * len(truth)))
                                  for c in SEQUENCE_COLUMNS))
    folds = truth[fold_col].to_numpy() if fold_col else np.zeros(len(truth))
    # A cluster never spans two folds: split it where the fold assignment does.
    cluster = pd.factorize(pd.Series(list(zip(folds, cluster))))[0]
    preds = {}
    for model, path in zip(models, inputs["pred"]):
        frame, report = read_checked_predictions(path, truth, fold_col)
        raise_on_errors(report)
        preds[model] = frame.drop_duplicates("antibody_name").set_index("antibody_name")
    datasets = model_datasets(inputs["table"])
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
        statistic = EXTENDED_METRICS[metric]
        return expanded(lambda idx: statistic(p, t, idx[None, :])[0], weights)

    def value(arm: str, weights: list[np.ndarray]) -> np.ndarray:
        # the reference's "average" row: unweighted mean of the per-fold values
        return np.mean([fold_value(arm, s, w) for s, w in zip(strata, weights)], axis=0)

    return [SetMetric(dataset, name, tuple(arms), codes, value, int(rows.size), METHOD)]
