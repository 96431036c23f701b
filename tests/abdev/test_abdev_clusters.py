"""GDPa1's sequence clusters: made once by the download job, read by score and comparisons."""

from __future__ import annotations

import pandas as pd
from scievals.abdev.clusters import (
    sequence_clusters,
    truth_clusters,
    write_sequence_clusters,
)
from scievals.abdev.constants import DEFAULT_FOLD_COL
from scievals.abdev.data import DEMO_CSV


def test_near_identical_sequences_share_a_cluster_and_a_missing_one_stands_alone():
    # AAAAAAAAAA vs AAAAAAAAAB: Hamming distance 1/10 = 0.10 <= 0.15 -> one cluster;
    # BBBBBBBBBB differs from both at >= 90 % of positions -> its own; None -> alone
    ids = sequence_clusters(["AAAAA", "AAAAA", "BBBBB", None], ["AAAAA", "AAAAB", "BBBBB", "C"])
    assert ids[0] == ids[1] and len({ids[0], ids[2], ids[3]}) == 3


def test_the_clusters_file_gives_the_same_codes_as_clustering_the_truth(tmp_path):
    out = tmp_path / "sequence_clusters.csv"
    write_sequence_clusters(DEMO_CSV, out)
    frame = pd.read_csv(out)
    truth = pd.read_csv(DEMO_CSV).drop_duplicates("antibody_name")
    assert list(frame.columns) == ["antibody_name", "sequence_cluster"]
    assert frame["antibody_name"].tolist() == truth["antibody_name"].astype(str).tolist()
    from_file = truth_clusters(DEMO_CSV, DEFAULT_FOLD_COL, out)
    assert from_file == truth_clusters(DEMO_CSV, DEFAULT_FOLD_COL)
    # a cluster never spans two folds
    fold_of = dict(zip(truth["antibody_name"].astype(str), truth[DEFAULT_FOLD_COL]))
    folds_per_code = pd.Series(fold_of).groupby(pd.Series(from_file)).nunique()
    assert (folds_per_code == 1).all()


def test_an_antibody_missing_from_the_clusters_file_is_a_cluster_alone(tmp_path):
    out = tmp_path / "sequence_clusters.csv"
    write_sequence_clusters(DEMO_CSV, out)
    frame = pd.read_csv(out)
    gone = frame["antibody_name"].iloc[0]
    frame.iloc[1:].to_csv(out, index=False)
    codes = truth_clusters(DEMO_CSV, DEFAULT_FOLD_COL, out)
    assert list(codes.values()).count(codes[gone]) == 1
