"""abdev comparisons of own files that skip antibodies (issue 34 item 6).

Every pair is computed on the antibodies both arms predicted. Two arms that predicted the
same antibodies: the paired cluster bootstrap, exactly as a run of those two files alone.
Two that predicted different ones: the delete-one-cluster jackknife on the common
antibodies, here recomputed independently with scipy's Spearman on each fold's rows left
after removing one sequence cluster, and the normal test written out."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scievals import registry
from scievals.abdev import comparisons as abdev_comparisons
from scievals.abdev.clusters import truth_clusters
from scievals.abdev.constants import DEFAULT_FOLD_COL, PROPERTY_LIST
from scievals.abdev.data import DEMO_CSV
from scievals.stats.comparisons import comparison_table
from scipy import stats

BOOT = {"n_resamples": 200, "seed": 0}
NOISE = {"complete_a": 0.5, "complete_b": 1.0, "skip_1": 0.7, "skip_1_twin": 0.9,
         "skip_2": 0.6}


@pytest.fixture
def family(tmp_path, monkeypatch, demo_truth):
    """Five own files: two complete, two that skip the same 15 % of the antibodies, one that
    skips another 20 %; truth + seeded noise of different sizes."""
    rng = np.random.default_rng(11)
    names = demo_truth["antibody_name"].astype(str)
    dropped = {"skip_1": rng.random(len(names)) < 0.15, "skip_2": rng.random(len(names)) < 0.2}
    dropped["skip_1_twin"] = dropped["skip_1"]
    paths = {}
    for model, noise in NOISE.items():
        frame = demo_truth[["antibody_name", DEFAULT_FOLD_COL, *PROPERTY_LIST]].copy()
        for prop in PROPERTY_LIST:
            truth = frame[prop].fillna(frame[prop].mean())
            frame[prop] = truth + rng.normal(0, noise * truth.std(), len(frame))
        frame = frame[~dropped.get(model, np.zeros(len(names), bool))]
        paths[model] = tmp_path / f"{model}.csv"
        frame.to_csv(paths[model], index=False)
    monkeypatch.setattr(abdev_comparisons, "model_datasets",
                        lambda tables: {model: "GDPa1-demo" for model in NOISE})
    return paths


def _metrics(paths, models, metrics=("HIC:spearman",)):
    inputs = {"truth": [str(DEMO_CSV)], "pred": [str(paths[m]) for m in models], "table": []}
    return abdev_comparisons.item_metrics(inputs, list(models), list(metrics),
                                          {"fold_col": DEFAULT_FOLD_COL}, BOOT,
                                          registry.get("abdev").ranges())


def _compare(paths, models, metrics=("HIC:spearman",)):
    return comparison_table("abdev", _metrics(paths, models, metrics), BOOT)


def _row(table, a, b, metric="HIC:spearman"):
    rows = table[(table["metric"] == metric) & (((table["arm_a"] == a) & (table["arm_b"] == b))
                                                 | ((table["arm_a"] == b) & (table["arm_b"] == a)))]
    assert len(rows) == 1
    row = rows.iloc[0]
    flip = -1.0 if row["arm_a"] == b else 1.0
    return row, flip


def _jackknife_by_hand(paths, a, b):
    """(n, diff, ci_low, ci_high, p) of HIC Spearman a - b on the antibodies both predicted
    and the truth measured: per fold, Spearman of each arm on the fold's rows, and on those
    rows without each sequence cluster in turn; the fold average; D_c = a's - b's average
    with cluster c left out; s^2 = sum_folds (k - 1) / k sum_c (D_c - mean D)^2; the normal
    test d / s."""
    truth = pd.read_csv(DEMO_CSV).drop_duplicates("antibody_name").set_index("antibody_name")
    cluster = pd.Series(truth_clusters(DEMO_CSV, DEFAULT_FOLD_COL))
    pred = {m: pd.read_csv(paths[m]).set_index("antibody_name")["HIC"] for m in (a, b)}
    common = [n for n in truth.index if np.isfinite(truth.loc[n, "HIC"])
              and n in pred[a].index and n in pred[b].index]
    folds = truth.loc[common, DEFAULT_FOLD_COL]
    fold_values, left_out = {}, {}
    for fold in sorted(folds.unique()):
        rows = folds.index[folds == fold]

        def rho(model, names):
            return stats.spearmanr(pred[model][names], truth.loc[names, "HIC"]).statistic

        fold_values[fold] = rho(a, rows) - rho(b, rows)
        left_out[fold] = [rho(a, rows[cluster[rows] != c]) - rho(b, rows[cluster[rows] != c])
                          for c in sorted(cluster[rows].unique())]
    folds_n = len(fold_values)
    diff = sum(fold_values.values()) / folds_n
    variance = 0.0
    for fold, values in left_out.items():
        d = (np.array(values) - fold_values[fold]) / folds_n  # the average moves by this
        variance += (len(d) - 1) / len(d) * ((d - d.mean()) ** 2).sum()
    s = math.sqrt(variance)
    z = stats.norm.ppf(0.975)
    return (len(common), diff, diff - z * s, diff + z * s,
            2 * stats.norm.sf(abs(diff) / s))


@pytest.mark.parametrize("pair", [("complete_a", "skip_1"), ("skip_2", "complete_b"),
                                  ("skip_1", "skip_2"), ("skip_1_twin", "skip_2")])
def test_a_pair_of_files_that_skip_different_antibodies_is_the_jackknife_by_hand(family,
                                                                                pair):
    table = _compare(family, list(NOISE))
    row, flip = _row(table, *pair)
    n, diff, low, high, p = _jackknife_by_hand(family, *pair)
    assert row["method"] == "paired cluster jackknife (normal)"
    assert row["n"] == n
    assert flip * row["diff"] == pytest.approx(diff, rel=1e-9, abs=1e-12)
    ends = sorted((flip * row["ci_low"], flip * row["ci_high"]))
    assert ends == pytest.approx([low, high], rel=1e-9, abs=1e-12)
    assert row["p_value"] == pytest.approx(p, rel=1e-8)


@pytest.mark.parametrize("pair", [("complete_a", "complete_b"), ("skip_1", "skip_1_twin")])
def test_a_pair_that_predicted_the_same_antibodies_equals_the_two_files_alone(family, pair):
    # the bootstrap pair of a family with files skipping other antibodies is the pair of a
    # run with these two files only, to the last bit
    table = _compare(family, list(NOISE), ("HIC:spearman", "HIC:top_10_recall"))
    alone = _compare(family, list(pair), ("HIC:spearman", "HIC:top_10_recall"))
    for metric in ("HIC:spearman", "HIC:top_10_recall"):
        row, _ = _row(table, *pair, metric=metric)
        [expected] = alone[alone["metric"] == metric].to_dict("records")
        assert row["method"] == "paired cluster bootstrap (normal)"
        assert row["arm_a"] == expected["arm_a"]
        for column in ("n", "value_a", "value_b", "diff", "ci_low", "ci_high", "p_value",
                       "mdd"):  # recall: no p-value and no mdd (NaN) in both
            assert row[column] == expected[column] or (
                math.isnan(row[column]) and math.isnan(expected[column])), column


def test_bootstrap_replicates_are_computed_only_on_each_arms_own_antibodies(family):
    # the cost is linear in the arms: no arm's B bootstrap replicates are recomputed on the
    # common antibodies of a pair with a file that skipped others (the jackknife's few
    # leave-outs are, cheaply)
    [metric] = _metrics(family, list(NOISE))
    seen = []
    original = metric.replicates
    object.__setattr__(metric, "replicates",
                       lambda arm, mask: seen.append((arm, mask.copy())) or original(arm, mask))
    comparison_table("abdev", [metric], BOOT)
    assert sorted(arm for arm, _ in seen) == list(range(len(NOISE)))
    assert all(np.array_equal(mask, metric.available[arm]) for arm, mask in seen)


def test_without_resamples_no_pair_gets_an_interval(family):
    # bootstrap.n_resamples: 0 turns the intervals off: the jackknife stays off as well
    inputs = {"truth": [str(DEMO_CSV)], "pred": [str(family[m]) for m in NOISE], "table": []}
    off = {"n_resamples": 0, "seed": 0}
    found = abdev_comparisons.item_metrics(inputs, list(NOISE), ["HIC:spearman"],
                                           {"fold_col": DEFAULT_FOLD_COL}, off,
                                           registry.get("abdev").ranges())
    table = comparison_table("abdev", found, off)
    assert len(table) == 10  # 5 arms: every pair has a value
    assert table["ci_low"].isna().all() and table["p_value"].isna().all()
