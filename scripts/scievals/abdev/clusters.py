"""GDPa1's sequence clusters: the unit the abdev intervals and comparisons resample.

GDPa1's folds were made by clustering antibody sequences so that near-identical antibodies
share a fold; their measurements and any model's errors on them are correlated, so a
bootstrap that resamples antibodies one by one gives intervals that are too narrow (0.93
instead of 0.95 in benchmarks/interval_coverage.py, 0.90 against the unlimited-data value).
The published data carry the folds but not the clusters, so they are rebuilt here:
average-linkage hierarchical clustering of the Hamming distance between the AHO-aligned
heavy+light sequences, cut at
:data:`CLUSTER_DISTANCE`, and split where the fold assignment splits them (a cluster never
spans two folds).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import pdist

from scievals.abdev.data import read_csv_checked

SEQUENCE_COLUMNS = ("heavy_aligned_aho", "light_aligned_aho")
# Antibodies whose aligned heavy+light chains differ at <= 15 % of positions on average
# (near-identical variants of one parent) form one cluster.
CLUSTER_DISTANCE = 0.15


def sequence_clusters(heavy: Sequence, light: Sequence,
                      distance: float = CLUSTER_DISTANCE) -> np.ndarray:
    """Cluster id per antibody; an antibody without both alignments is a cluster alone."""
    seqs = [f"{h}{l}" if isinstance(h, str) and isinstance(l, str) else None
            for h, l in zip(heavy, light)]
    known = [i for i, s in enumerate(seqs) if s]
    ids = np.arange(len(seqs)) + len(seqs) + 1  # singletons, apart from fcluster's ids
    if len(known) >= 2:
        width = max(len(seqs[i]) for i in known)
        codes = np.array([[ord(c) for c in seqs[i].ljust(width, "-")] for i in known])
        tree = linkage(pdist(codes, metric="hamming"), method="average")
        ids[known] = fcluster(tree, distance, criterion="distance")
    return ids


def truth_clusters(truth_path: str | os.PathLike, fold_col: str | None) -> dict[str, int]:
    """antibody_name -> cluster code (clusters split by fold) for the truth file."""
    columns = {"antibody_name", *SEQUENCE_COLUMNS} | ({fold_col} if fold_col else set())
    truth = read_csv_checked(truth_path, "truth", columns).drop_duplicates("antibody_name")
    cluster = sequence_clusters(*(truth[c] if c in truth.columns else [None] * len(truth)
                                  for c in SEQUENCE_COLUMNS))
    folds = truth[fold_col] if fold_col and fold_col in truth.columns else np.zeros(len(truth))
    codes = pd.factorize(pd.Series(list(zip(folds, cluster))))[0]
    return dict(zip(truth["antibody_name"].astype(str), codes.tolist()))
