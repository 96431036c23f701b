"""Beyond the reference: tie-robust recall (exact expectation) and bootstrap CIs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scievals.abdev.constants import CV_DATASET, DEFAULT_FOLD_COL
from scievals.abdev.data import DEMO_CSV
from scievals.abdev.metrics import (
    extended_table,
    recall_at_k,
    recall_statistic,
    reference_rows,
    spearman_statistic,
    tie_robust_recall,
    top_inclusion_probability,
)
from scievals.abdev.score import evaluate_model, merge, read_inputs


def extended_scores(pred, truth, fold_col, num_folds, n_resamples, seed) -> pd.DataFrame:
    """The score step's extended table for two files (one read, one merge, one reference pass)."""
    preds, truth_frame, report = read_inputs(pred, truth, fold_col)
    assert report.ok, report.errors
    merged, properties = merge(preds, truth_frame, pred, truth, fold_col)
    rows = reference_rows(merged, properties, "m", CV_DATASET, fold_col, num_folds)
    return extended_table(merged, properties, fold_col, rows, n_resamples, seed)


def possible_recalls(y_true, y_pred, k) -> list[float]:
    """|T & P| / k for every tie-consistent top-k choice of T and of P (all equally likely)."""

    def top_sets(v):
        v = np.asarray(v)
        threshold = np.sort(v)[len(v) - k]
        above = [i for i in range(len(v)) if v[i] > threshold]
        tied = [i for i in range(len(v)) if v[i] == threshold]
        return [set(above) | set(c) for c in itertools.combinations(tied, k - len(above))]

    return [len(t & p) / k for t in top_sets(y_true) for p in top_sets(y_pred)]


def brute_force_expected_recall(y_true, y_pred, k):
    """Average recall over independent uniform tie-breaking, by enumeration."""
    outcomes = possible_recalls(y_true, y_pred, k)
    return sum(outcomes) / len(outcomes)


def test_tie_robust_recall_worked_example():
    # n = 20 -> k = 2. True: 10 at pos 0, then three 9s (pos 1-3) for the one remaining place:
    #   P(in true top) = 1, 1/3, 1/3, 1/3, 0, ...
    # Pred: 8 at pos 1 and 2 -> exactly the predicted top 2: P = 0, 1, 1, 0, 0, ...
    # E|T & P| = 1*0 + 1/3*1 + 1/3*1 + 1/3*0 = 2/3, / k = 1/3.
    y_true = np.array([10.0, 9, 9, 9] + [-float(i) for i in range(1, 17)])
    y_pred = np.array([0.0, 8, 8, 7] + [-float(i) for i in range(1, 17)])
    assert top_inclusion_probability(y_true, 2).tolist()[:5] == pytest.approx([1, 1 / 3, 1 / 3, 1 / 3, 0])
    assert tie_robust_recall(y_true, y_pred) == pytest.approx(1 / 3, abs=1e-15)
    assert tie_robust_recall(y_true, y_pred) == pytest.approx(brute_force_expected_recall(y_true, y_pred, 2))
    # The reference's value is one of the possible outcomes: 0.5 if argsort picks pos 1 or 2
    # for the last true place, 0 if it picks pos 3.
    assert recall_at_k(y_true, y_pred) in (0.0, 0.5)


def test_tie_robust_recall_with_ties_on_both_sides_matches_enumeration():
    # k = 2; four tied true tops and four tied predicted tops, overlapping on two items.
    y_true = np.array([1.0, 1, 1, 1, 0, 0, 0, 0, 0, 0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10])
    y_pred = np.array([0.0, 0, 1, 1, 1, 1, 0, 0, 0, 0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10])
    # P_true = 1/2 on pos 0-3, P_pred = 1/2 on pos 2-5; overlap pos 2,3: 2 * 1/4 = 1/2, / 2 = 1/4.
    assert tie_robust_recall(y_true, y_pred) == pytest.approx(0.25)
    assert brute_force_expected_recall(y_true, y_pred, 2) == pytest.approx(0.25)


def test_tie_robust_equals_plain_recall_without_ties():
    rng = np.random.default_rng(1)
    for n in (10, 19, 54, 242):
        y_true, y_pred = rng.normal(size=n), rng.normal(size=n)
        assert tie_robust_recall(y_true, y_pred) == pytest.approx(recall_at_k(y_true, y_pred), abs=1e-15)


def test_vectorised_statistics_match_scalar_versions():
    rng = np.random.default_rng(2)
    x = np.round(rng.normal(size=40), 1)  # rounding creates ties
    y = np.round(x + rng.normal(size=40), 1)
    idx = rng.integers(0, 40, size=(6, 40))  # six bootstrap resamples (repeats add more ties)
    from scipy import stats

    rho = spearman_statistic(x, y, idx)
    recall = recall_statistic(y[idx], x[idx], axis=-1)
    robust = tie_robust_recall(y[idx], x[idx], axis=-1)
    for i in range(6):
        xi, yi = x[idx[i]], y[idx[i]]
        assert rho[i] == pytest.approx(stats.spearmanr(xi, yi).correlation, abs=1e-12)
        assert recall[i] == recall_at_k(yi, xi)
        assert robust[i] == pytest.approx(tie_robust_recall(yi, xi), abs=1e-15)
    # axis=0 gives the same numbers as axis=-1 on the transpose
    assert recall_statistic(y[idx].T, x[idx].T, axis=0).tolist() == recall.tolist()
    assert tie_robust_recall(y[idx].T, x[idx].T, axis=0) == pytest.approx(robust)


@pytest.fixture(scope="module")
def ridge_extended(baseline_files):
    return extended_scores(baseline_files["ridge_descriptors"], DEMO_CSV, DEFAULT_FOLD_COL, 5, 300, 7)


def test_extended_values_equal_reference_values(ridge_extended, baseline_files):
    reference = pd.DataFrame(
        evaluate_model(baseline_files["ridge_descriptors"], DEMO_CSV, "r", "GDPa1_cross_validation", DEFAULT_FOLD_COL)
    )
    for metric in ("spearman", "top_10_recall"):
        ours = ridge_extended[ridge_extended["metric"] == metric].set_index(["fold", "assay"])["value"]
        ref = reference.set_index(["fold", "assay"])[metric]
        assert ours.sort_index().tolist() == ref.sort_index().tolist()  # exact, not approx
    assert len(ridge_extended) == 5 * 7 * 3
    assert ridge_extended["fold"].drop_duplicates().tolist() == ["0", "1", "2", "3", "4", "aggregated", "average"]


def test_ci_contains_point_estimate_for_spearman(ridge_extended):
    rho = ridge_extended[ridge_extended["metric"] == "spearman"]
    assert rho[["ci_low", "ci_high"]].notna().all().all()
    assert ((rho["ci_low"] <= rho["value"]) & (rho["value"] <= rho["ci_high"])).all()
    assert ((rho["ci_high"] - rho["ci_low"]) > 0.02).all()


def test_n_counts_scored_rows(ridge_extended, demo_truth):
    hic = ridge_extended[(ridge_extended["assay"] == "HIC") & (ridge_extended["metric"] == "spearman")]
    per_fold = demo_truth.groupby(DEFAULT_FOLD_COL)["HIC"].count().tolist()
    assert hic["n"].tolist() == per_fold + [242, 242]


def test_bootstrap_is_reproducible_with_the_seed(baseline_files, ridge_extended):
    again = extended_scores(baseline_files["ridge_descriptors"], DEMO_CSV, DEFAULT_FOLD_COL, 5, 300, 7)
    pd.testing.assert_frame_equal(again, ridge_extended)
    other = extended_scores(baseline_files["ridge_descriptors"], DEMO_CSV, DEFAULT_FOLD_COL, 5, 300, 8)
    assert (other["value"] == ridge_extended["value"]).all()
    assert not np.allclose(other["ci_low"], ridge_extended["ci_low"], equal_nan=True)


def test_average_row_ci_resamples_within_folds(ridge_extended):
    average = ridge_extended[ridge_extended["fold"] == "average"]
    folds = ridge_extended[ridge_extended["fold"].isin(list("01234"))]
    for (assay, metric), row in average.set_index(["assay", "metric"]).iterrows():
        fold_values = folds[(folds["assay"] == assay) & (folds["metric"] == metric)]["value"]
        assert row["value"] == pytest.approx(fold_values.mean(), abs=1e-15)
        if metric == "spearman":
            assert row["ci_low"] <= row["value"] <= row["ci_high"]
        # the mean of 5 folds varies less than a single fold
        widths = folds[(folds["assay"] == assay) & (folds["metric"] == metric)]
        assert row["ci_high"] - row["ci_low"] <= (widths["ci_high"] - widths["ci_low"]).max() + 1e-12


def test_no_resampling_gives_nan_ci(baseline_files):
    table = extended_scores(baseline_files["random"], DEMO_CSV, DEFAULT_FOLD_COL, 5, 0, 0)
    assert table["ci_low"].isna().all() and table["ci_high"].isna().all()
    assert not math.isnan(table["value"].iloc[0])


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=10, max_value=25).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, 3), min_size=n, max_size=n),
            st.lists(st.integers(0, 3), min_size=n, max_size=n),
        )
    )
)
def test_tie_robust_recall_is_the_enumerated_expectation(pair):
    # Values 0..3 only: ties everywhere, including at the top-k boundary.
    y_true, y_pred = (np.array(v, dtype=float) for v in pair)
    k = int(len(y_true) * 0.1)
    expected = brute_force_expected_recall(y_true, y_pred, k)
    assert tie_robust_recall(y_true, y_pred) == pytest.approx(expected, abs=1e-12)
    # the reference value (numpy's tie order) is one of the outcomes being averaged
    assert recall_at_k(y_true, y_pred) in possible_recalls(y_true, y_pred, k)


def _scipy_spearman(x, y, axis=-1):
    """The statistic the CIs used to hand to scipy.stats.bootstrap: Pearson of rankdata ranks."""
    from scipy import stats

    rx = stats.rankdata(x, axis=axis)
    ry = stats.rankdata(y, axis=axis)
    rx = rx - rx.mean(axis=axis, keepdims=True)
    ry = ry - ry.mean(axis=axis, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rx * ry).sum(axis=axis) / np.sqrt((rx * rx).sum(axis=axis) * (ry * ry).sum(axis=axis))


SCIPY_STATISTICS = {  # (pred, true, axis) -> statistic, as given to scipy.stats.bootstrap
    "spearman": _scipy_spearman,
    "top_10_recall": lambda p, t, axis=-1: recall_statistic(t, p, axis=axis),
    "top_10_recall_tie_robust": lambda p, t, axis=-1: tie_robust_recall(t, p, axis=axis),
}


@pytest.mark.parametrize("seed", [0, 7])
def test_bootstrap_cis_are_identical_to_scipy_bootstrap(seed):
    # The shared index matrices must give exactly (==) the intervals of one
    # scipy.stats.bootstrap(paired=True) call per statistic, on tie-heavy data.
    from scievals.abdev.metrics import EXTENDED_METRICS, BootstrapDraws, _paired_ci
    from scievals.stats.intervals import bootstrap_ci

    rng = np.random.default_rng(seed)
    draws = BootstrapDraws(200, seed)
    for n in (12, 49, 246):
        pred = np.round(rng.normal(size=n), 1)
        true = rng.integers(0, 6, size=n).astype(float)
        for metric, statistic in EXTENDED_METRICS.items():
            ours = _paired_ci(pred, true, statistic, draws)
            scipy_ci = bootstrap_ci((pred, true), SCIPY_STATISTICS[metric], 200, seed, paired=True)
            assert ours == scipy_ci, (n, metric)


def test_stratified_ci_draws_folds_in_order_from_one_generator():
    from scievals.abdev.metrics import EXTENDED_METRICS, BootstrapDraws, _stratified_mean_ci
    from scievals.stats.intervals import percentile_interval

    rng = np.random.default_rng(3)
    subsets = [(np.round(rng.normal(size=n), 1), rng.integers(0, 5, size=n).astype(float)) for n in (40, 52, 47)]
    for metric, statistic in EXTENDED_METRICS.items():
        literal = np.random.default_rng(11)  # the loop the CI used to run, fold by fold
        per_fold = []
        for pred, true in subsets:
            idx = literal.integers(0, len(pred), size=(150, len(pred)))
            per_fold.append(SCIPY_STATISTICS[metric](pred[idx], true[idx], axis=-1))
        expected = percentile_interval(np.mean(per_fold, axis=0))
        assert _stratified_mean_ci(subsets, statistic, BootstrapDraws(150, 11)) == expected, metric


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=2, max_size=60), st.integers(0, 2**32 - 1))
def test_doubled_ranks_are_twice_scipy_rankdata(values, seed):
    from scievals.abdev.metrics import doubled_ranks
    from scipy import stats

    values = np.array(values, dtype=float) / 2  # halves and repeats: ties everywhere
    idx = np.random.default_rng(seed).integers(0, len(values), size=(5, len(values)))
    assert (doubled_ranks(values, idx) == 2 * stats.rankdata(values[idx], axis=-1)).all()
    identity = np.arange(len(values))[None, :]
    assert (doubled_ranks(values, identity)[0] == 2 * stats.rankdata(values)).all()


def test_negative_resample_count_is_refused():
    from scievals.abdev.metrics import BootstrapDraws
    from scievals.common.errors import ScievalsError

    with pytest.raises(ScievalsError, match="-5 is negative"):
        BootstrapDraws(-5, 0)
