"""Reference semantics of the GDPa1 metrics (specs/abdev.md section 3), worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scievals.abdev.constants import REFERENCE_CV_COLUMNS, REFERENCE_PLAIN_COLUMNS
from scievals.abdev.metrics import evaluate, evaluate_cross_validation, recall_at_k
from scievals.abdev.score import evaluate_model
from scievals.common.errors import ScievalsError
from scipy import stats

# 20 distinct HIC-like values. Sorted ranks: 2.1(1) 2.2(2) 2.3(3) ... 3.9(19) 4.0(20).
T20 = [2.1, 2.5, 3.0, 2.2, 4.0, 3.5, 2.9, 3.3, 2.8, 3.9, 2.4, 2.6, 3.1, 3.7, 2.3, 3.6, 2.7, 3.2, 3.8, 3.4]


def names(n: int, prefix: str = "ab") -> list[str]:
    return [f"{prefix}{i:02d}" for i in range(n)]


# --- recall_at_k -------------------------------------------------------------


def test_k_is_floor_of_n_times_0_1_for_19_rows():
    # n = 19 -> k = int(1.9) = 1 (not round(1.9) = 2).
    y_true = np.arange(19.0)
    y_pred = np.arange(19.0)
    y_pred[0] = 17.5  # now the 2nd largest prediction
    # k = 1: true top {18}, pred top {18} -> 1/1 = 1.0 (k = 2 would give {17,18} vs {18,0} = 0.5)
    assert recall_at_k(y_true, y_pred) == 1.0


def test_k_is_24_for_242_rows():
    # n = 242 -> k = int(24.2) = 24. Move the best item to the bottom of the predictions.
    y_true = np.arange(242.0)
    y_pred = y_true.copy()
    y_pred[241] = -1.0
    # true top-24 = {218..241}; pred top-24 = {217..240}; overlap {218..240} = 23 -> 23/24.
    # (k = 25 would give {217..241} vs {216..240}: 24/25 = 0.96.)
    assert recall_at_k(y_true, y_pred) == 23 / 24


def test_k_zero_raises_a_clear_error_instead_of_zero_division():
    with pytest.raises(ScievalsError, match=r"only 9 scored rows, so k = int\(9 \* 0.1\) = 0"):
        recall_at_k(np.arange(9.0), np.arange(9.0))


def test_tie_at_boundary_is_broken_by_numpy_default_argsort():
    # k = 1; the true top is a tie between positions 0 and 1 (both 1.0); the
    # predicted top is position 1 alone. The reference takes whichever tied
    # position np.argsort (default kind) leaves last: recall is 1 if that is 1, else 0.
    y_true = np.array([1.0, 1.0, 0, 0, 0, 0, 0, 0, 0, 0])
    y_pred = np.array([0.5, 1.0, 0, 0, 0, 0, 0, 0, 0, 0])
    expected = 1.0 if np.argsort(y_true)[-1] == 1 else 0.0
    assert recall_at_k(y_true, y_pred) == expected


def test_heavy_ties_match_the_argsort_formula():
    # PR_CHO-like: 40 % exact zeros (the top after negation), so the true top-k
    # is chosen among tied zeros purely by the sort.
    rng = np.random.default_rng(3)
    y_true = -np.where(rng.random(197) < 0.4, 0.0, np.round(rng.random(197), 2))
    y_pred = -np.round(rng.random(197), 1)
    k = 19  # int(197 * 0.1)
    expected = len(set(np.argsort(y_true)[-k:]) & set(np.argsort(y_pred)[-k:])) / k
    assert recall_at_k(y_true, y_pred) == expected


# --- evaluate: direction, NaN mask ---------------------------------------------


def test_direction_flip_for_lower_is_better_and_spearman_not_flipped():
    true = pd.Series(T20)
    pred = pd.Series(T20)
    pred[5] = 1.0  # true 3.5 (rank 15) predicted as the lowest value
    # n = 20, k = 2.
    # HIC (lower is better): true best two = 2.1 (pos 0), 2.2 (pos 3); predicted best two
    # = 1.0 (pos 5), 2.1 (pos 0); overlap {0} -> 1/2.
    # Tm2 (higher is better): true top two = 4.0 (pos 4), 3.9 (pos 9), predicted the same -> 1.
    # Spearman (same for both): pos 5 moves from rank 15 to 1 (d = 14), the 14 values
    # ranked 1..14 move up one (d = -1 each): sum d^2 = 196 + 14 = 210,
    # rho = 1 - 6 * 210 / (20 * (20^2 - 1)) = 1 - 1260 / 7980 = 0.8421052631578947.
    hic = evaluate(pred, true, "HIC")
    tm2 = evaluate(pred, true, "Tm2")
    assert hic["top_10_recall"] == 0.5
    assert tm2["top_10_recall"] == 1.0
    assert hic["spearman"] == pytest.approx(1 - 1260 / 7980, abs=1e-15)
    assert tm2["spearman"] == hic["spearman"]


def test_nan_mask_is_pairwise():
    true = pd.Series([float(v) for v in range(1, 13)])
    true[2] = np.nan
    pred = true.copy()
    pred[2] = 3.0  # a prediction for an unmeasured antibody: dropped
    pred[5] = np.nan  # a missing prediction: dropped
    pred[0], pred[1] = 2.0, 1.0  # swap two adjacent ranks
    # 10 rows remain (positions 0,1,3,4,6..11): ranks 1..10 with one adjacent swap,
    # sum d^2 = 2, rho = 1 - 6 * 2 / (10 * 99) = 1 - 12/990.
    # k = int(10 * 0.1) = 1. Tm2: both tops are position 11 -> 1.
    # HIC: true lowest = position 0 (1.0), predicted lowest = position 1 (1.0) -> 0.
    tm2 = evaluate(pred, true, "Tm2")
    hic = evaluate(pred, true, "HIC")
    assert tm2["spearman"] == pytest.approx(1 - 12 / 990, abs=1e-15)
    assert tm2["top_10_recall"] == 1.0
    assert hic["top_10_recall"] == 0.0


def test_fewer_than_ten_scored_rows_names_assay_and_fold():
    true = pd.Series(np.arange(12.0))
    pred = pd.Series([np.nan] * 3 + list(range(9)), dtype=float)
    with pytest.raises(ScievalsError) as info:
        evaluate(pred, true, "HIC", where="preds.csv: HIC, fold 3")
    assert info.value.one_line().startswith(
        "preds.csv: HIC, fold 3: only 9 antibodies have both a prediction and a measurement"
    )
    with pytest.raises(ScievalsError) as info:
        evaluate(pred, true, "HIC")  # no location given: the assay names it
    assert info.value.one_line().startswith("HIC: only 9 antibodies")


def test_all_nan_prediction_column_is_a_clear_error():
    with pytest.raises(ScievalsError, match="no antibody here has a prediction"):
        evaluate(pd.Series([np.nan] * 20), pd.Series(np.arange(20.0)), "Tm2")


def test_constant_predictions_give_nan_spearman():
    result = evaluate(pd.Series([1.0] * 20), pd.Series(np.arange(20.0)), "Tm2")
    assert math.isnan(result["spearman"])


# --- cross-validation ------------------------------------------------------------


def test_folds_sorted_numerically_then_stringified():
    # Fold labels 10 and 2 appear in file order 10, 2; sorted() on the numbers gives 2, 10
    # (a string sort would give "10", "2").
    folds = pd.Series([10] * 10 + [2] * 10, name="fold")
    true = pd.Series(np.arange(20.0))
    rows = evaluate_cross_validation(true, true, folds, "Tm2", num_folds=2)
    assert [r["fold"] for r in rows] == ["2", "10", "aggregated", "average"]
    assert [r["spearman"] for r in rows] == pytest.approx([1.0, 1.0, 1.0, 1.0])


def test_average_is_unweighted_mean_of_folds():
    # Fold 0: 10 rows predicted perfectly -> spearman 1, recall 1 (k = 1).
    # Fold 1: 20 rows predicted in reverse -> spearman -1, recall 0 (k = 2).
    # average = (1 + -1) / 2 = 0 and (1 + 0) / 2 = 0.5; a size-weighted mean would give
    # (10 - 20) / 30 = -1/3 and 1/3.
    true = pd.Series(np.arange(30.0))
    pred = pd.Series(list(range(10)) + list(range(29, 9, -1)), dtype=float)
    folds = pd.Series([0] * 10 + [1] * 20, name="fold")
    rows = evaluate_cross_validation(pred, true, folds, "Tm2", num_folds=2)
    by_fold = {r["fold"]: r for r in rows}
    assert by_fold["0"]["spearman"] == pytest.approx(1.0)
    assert by_fold["1"]["spearman"] == pytest.approx(-1.0)
    assert by_fold["average"]["spearman"] == pytest.approx(0.0, abs=1e-15)
    assert by_fold["average"]["top_10_recall"] == 0.5
    # aggregated = the plain evaluation of all 30 rows pooled
    assert by_fold["aggregated"] == {**evaluate(pred, true, "Tm2"), "fold": "aggregated"}


def test_nan_in_one_fold_makes_the_average_nan():
    true = pd.Series(np.arange(20.0))
    pred = pd.Series(list(range(10)) + [5.0] * 10, dtype=float)  # fold 1 constant -> NaN spearman
    folds = pd.Series([0] * 10 + [1] * 10, name="fold")
    rows = {r["fold"]: r for r in evaluate_cross_validation(pred, true, folds, "Tm2", num_folds=2)}
    assert math.isnan(rows["1"]["spearman"])
    assert math.isnan(rows["average"]["spearman"])
    assert rows["average"]["top_10_recall"] == (rows["0"]["top_10_recall"] + rows["1"]["top_10_recall"]) / 2


def test_wrong_fold_count_is_reported():
    folds = pd.Series([0] * 10 + [1] * 10, name="fold")
    with pytest.raises(ScievalsError, match="Expected 5 folds, got 2"):
        evaluate_cross_validation(pd.Series(np.arange(20.0)), pd.Series(np.arange(20.0)), folds, "HIC", 5)


# --- evaluate_model: join, keys, errors ----------------------------------------------


def test_plain_rows_have_reference_keys_and_prediction_column_order(write_pair):
    n = 20
    pred_path, truth_path = write_pair(
        {"antibody_name": names(n), "HIC": T20, "Tm2": T20},
        {"antibody_name": names(n), "Tm2": T20, "hic": T20, "HIC": T20},  # 'hic' is ignored
    )
    rows = evaluate_model(pred_path, truth_path, "m", "GDPa1")
    assert [list(r) for r in rows] == [REFERENCE_PLAIN_COLUMNS] * 2
    assert [r["assay"] for r in rows] == ["Tm2", "HIC"]
    assert rows[0] == {"spearman": pytest.approx(1.0), "top_10_recall": 1.0, "dataset": "GDPa1",
                       "assay": "Tm2", "model": "m", "fold": None, "split": "test"}


def test_cv_rows_have_reference_keys(write_pair):
    n = 20
    pred_path, truth_path = write_pair(
        {"antibody_name": names(n), "HIC": T20, "f": [0, 1] * 10},
        {"antibody_name": names(n), "HIC": T20},
    )
    rows = evaluate_model(pred_path, truth_path, "m", "GDPa1_cross_validation", "f", num_folds=2, split="train")
    assert [list(r) for r in rows] == [REFERENCE_CV_COLUMNS] * 4
    assert [r["fold"] for r in rows] == ["0", "1", "aggregated", "average"]
    assert {r["split"] for r in rows} == {"train"}


def test_no_property_columns_gives_empty_list(write_pair):
    pred_path, truth_path = write_pair({"antibody_name": names(10)}, {"antibody_name": names(10), "x": range(10)})
    assert evaluate_model(pred_path, truth_path, "m", "GDPa1") == []


def test_left_join_ignores_unknown_and_drops_missing_antibodies(write_pair):
    # Truth: 12 antibodies. Predictions: 10 of them plus 2 unknown names with wild values.
    truth_vals = [float(v) for v in range(12)]
    pred_names = names(10) + ["zz1", "zz2"]
    pred_vals = [float(v) for v in range(10)] + [1000.0, -1000.0]
    pred_path, truth_path = write_pair(
        {"antibody_name": names(12), "Tm2": truth_vals}, {"antibody_name": pred_names, "Tm2": pred_vals}
    )
    (row,) = evaluate_model(pred_path, truth_path, "m", "GDPa1")
    # Scored rows: ab00..ab09 with pred == truth -> spearman 1; k = 1, tops both ab09 -> 1.
    assert row["spearman"] == pytest.approx(1.0)
    assert row["top_10_recall"] == 1.0


def test_duplicate_prediction_names_duplicate_rows(write_pair):
    truth_vals = [3.0, 1.0, 4.0, 1.5, 5.0, 9.0, 2.0, 6.0, 5.5, 3.5]
    pred_vals = [2.0, 7.0, 1.0, 8.0, 2.5, 8.5, 1.5, 8.2, 3.0, 0.5]
    pred_path, truth_path = write_pair(
        {"antibody_name": names(10), "Tm2": truth_vals},
        {"antibody_name": names(10) + ["ab00"], "Tm2": pred_vals + [9.9]},
    )
    (row,) = evaluate_model(pred_path, truth_path, "m", "GDPa1")
    # ab00 now appears twice in the join (true 3.0 with preds 2.0 and 9.9): 11 rows.
    expected = stats.spearmanr([2.0, 9.9] + pred_vals[1:], [3.0, 3.0] + truth_vals[1:]).correlation
    assert row["spearman"] == pytest.approx(expected, abs=1e-15)


def test_missing_antibody_name_is_a_clear_error(write_pair):
    pred_path, truth_path = write_pair({"antibody_name": names(10)}, {"name": names(10), "HIC": range(10)})
    with pytest.raises(ScievalsError, match="prediction file has no 'antibody_name' column"):
        evaluate_model(pred_path, truth_path, "m", "GDPa1")


def test_non_numeric_prediction_is_an_error_not_text_ranking(write_pair):
    vals = [str(v) for v in range(19)] + ["high"]
    pred_path, truth_path = write_pair({"antibody_name": names(20)}, {"antibody_name": names(20), "HIC": vals})
    with pytest.raises(ScievalsError, match=r"prediction column 'HIC' is not numeric \(e.g. 'high'\)"):
        evaluate_model(pred_path, truth_path, "m", "GDPa1")


def test_cv_errors_for_fold_column(write_pair):
    pred_path, truth_path = write_pair(
        {"antibody_name": names(20), "f": [0, 1] * 10}, {"antibody_name": names(20), "HIC": range(20)}
    )
    with pytest.raises(ScievalsError, match="Fold column 'g' not found in target data"):
        evaluate_model(pred_path, truth_path, "m", "GDPa1_cross_validation", "g")
    with pytest.raises(ScievalsError, match="fold_col is required for cross-validation evaluation"):
        evaluate_model(pred_path, truth_path, "m", "GDPa1_cross_validation", None)
    with pytest.raises(ScievalsError, match="Expected 5 folds, got 2"):
        evaluate_model(pred_path, truth_path, "m", "GDPa1_cross_validation", "f")


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ScievalsError, match="prediction file not found"):
        evaluate_model(tmp_path / "nope.csv", tmp_path / "truth.csv", "m", "GDPa1")


def test_aggregated_equals_plain_gdpa1_on_the_demo(baseline_files, demo_truth):
    from scievals.abdev.data import DEMO_CSV

    plain = evaluate_model(baseline_files["ridge_descriptors"], DEMO_CSV, "r", "GDPa1")
    cv = evaluate_model(
        baseline_files["ridge_descriptors"], DEMO_CSV, "r", "GDPa1_cross_validation",
        "hierarchical_cluster_IgG_isotype_stratified_fold",
    )
    aggregated = [r for r in cv if r["fold"] == "aggregated"]
    assert [(r["assay"], r["spearman"], r["top_10_recall"]) for r in plain] == [
        (r["assay"], r["spearman"], r["top_10_recall"]) for r in aggregated
    ]
    assert len(cv) == 35


def test_reference_spearman_is_bit_identical_to_scipy():
    from scievals.abdev.metrics import reference_spearman

    rng = np.random.default_rng(11)
    for trial in range(200):
        n = int(rng.integers(10, 250))
        x = rng.normal(size=n)
        if trial % 3 == 0:
            x = np.round(x, 1)  # ties
        if trial % 5 == 0:
            x = rng.integers(0, 4, size=n)  # integer column with heavy ties
        y = np.round(x + rng.normal(size=n), int(rng.integers(0, 3)))
        assert reference_spearman(x, y) == stats.spearmanr(x, y, nan_policy="omit").correlation


def test_truth_without_antibody_name_lists_its_columns(write_pair, tmp_path):
    pred_path, _ = write_pair({"antibody_name": names(10)}, {"antibody_name": names(10), "HIC": range(10)})
    bad_truth = tmp_path / "bad_truth.csv"
    bad_truth.write_text("name,HIC\nab00,1\n")
    with pytest.raises(ScievalsError, match=r"truth file has no 'antibody_name' column \(columns: \['name', 'HIC'\]\)"):
        evaluate_model(pred_path, bad_truth, "m", "GDPa1")


def test_an_interval_is_widened_to_hold_its_point_value():
    from scievals.abdev.metrics import _holding

    # resamples all above the reference's point (ties broken differently): [0.083, 0.096]
    # must grow down to the point value 0.05; an interval holding it is unchanged
    assert _holding(0.05, 0.083, 0.096) == (0.05, 0.096)
    assert _holding(0.5, 0.2, 0.7) == (0.2, 0.7)
    assert _holding(float("nan"), 0.2, 0.7) == (0.2, 0.7)
