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

The download job clusters once and writes ``data/raw/abdev/sequence_clusters.csv``
(``antibody_name, sequence_cluster``); score and comparisons jobs read that file instead of
clustering again, so they never import scipy.cluster (0.25 CPU-s each). Without the file
(``python -m scievals abdev score``, a truth file from elsewhere) they cluster the truth.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from scievals.abdev.csv_files import read_csv
from scievals.common.io import atomic_path

SEQUENCE_COLUMNS = ("heavy_aligned_aho", "light_aligned_aho")
# Antibodies whose aligned heavy+light chains differ at <= 15 % of positions on average
# (near-identical variants of one parent) form one cluster.
CLUSTER_DISTANCE = 0.15
CLUSTERS_COLUMNS = ("antibody_name", "sequence_cluster")


def sequence_clusters(heavy: Sequence, light: Sequence,
                      distance: float = CLUSTER_DISTANCE) -> np.ndarray:
    """Cluster id per antibody; an antibody without both alignments is a cluster alone."""
    # here, not at the top: only the download job (and a score without the clusters file)
    # clusters; the workflow's score and comparisons jobs read the file
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import pdist

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


def truth_sequence_clusters(truth_path: str | os.PathLike) -> dict[str, int]:
    """antibody_name -> sequence cluster id, clustered from the truth's aligned sequences."""
    truth = read_csv(truth_path, {"antibody_name", *SEQUENCE_COLUMNS})
    truth = truth.drop_duplicates("antibody_name")
    ids = sequence_clusters(*(truth[c] if c in truth.columns else [None] * len(truth)
                              for c in SEQUENCE_COLUMNS))
    return dict(zip(truth["antibody_name"].astype(str), ids.tolist()))


def write_sequence_clusters(truth_path: str | os.PathLike, out_csv: str | os.PathLike) -> None:
    """The truth's sequence clusters as ``antibody_name, sequence_cluster`` (download job)."""
    clusters = truth_sequence_clusters(truth_path)
    with atomic_path(out_csv) as tmp:
        pd.DataFrame(list(clusters.items()), columns=CLUSTERS_COLUMNS).to_csv(tmp, index=False)


def read_sequence_clusters(path: str | os.PathLike) -> dict[str, int]:
    name, cluster = CLUSTERS_COLUMNS
    frame = pd.read_csv(path, dtype={name: str})
    return dict(zip(frame[name], frame[cluster].astype(int).tolist()))


def truth_clusters(truth_path: str | os.PathLike, fold_col: str | None,
                   clusters_path: str | os.PathLike | None = None) -> dict[str, int]:
    """antibody_name -> cluster code (sequence clusters split by fold) for the truth file;
    the sequence clusters come from ``clusters_path`` when given (the workflow's
    sequence_clusters.csv), else from clustering the truth."""
    truth = read_csv(truth_path, {"antibody_name"} | ({fold_col} if fold_col else set()))
    truth = truth.drop_duplicates("antibody_name")
    names = truth["antibody_name"].astype(str)
    sequence_cluster: Mapping[str, int] = (read_sequence_clusters(clusters_path) if clusters_path
                                           else truth_sequence_clusters(truth_path))
    # an antibody missing from the clusters file is a cluster alone
    alone = iter(range(-1, -len(names) - 1, -1))
    cluster = [sequence_cluster.get(name, next(alone)) for name in names]
    folds = truth[fold_col] if fold_col and fold_col in truth.columns else np.zeros(len(truth))
    codes = pd.factorize(pd.Series(list(zip(folds, cluster))))[0]
    return dict(zip(names, codes.tolist()))
