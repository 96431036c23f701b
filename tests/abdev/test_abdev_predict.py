"""Built-in baselines: reference CV protocol, determinism, ridge beats random on the demo."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scievals.abdev.constants import DEFAULT_FOLD_COL, PROPERTY_LIST
from scievals.abdev.data import DEMO_CSV
from scievals.abdev.predict import BASELINES, predict_random, run_baseline, sequence_descriptors
from scievals.abdev.score import evaluate_model
from scievals.common.errors import ScievalsError


def cv_average_spearman(path) -> dict[str, float]:
    rows = evaluate_model(path, DEMO_CSV, "m", "GDPa1_cross_validation", DEFAULT_FOLD_COL)
    return {r["assay"]: r["spearman"] for r in rows if r["fold"] == "average"}


def test_ridge_beats_random_on_the_demo(baseline_files):
    ridge = cv_average_spearman(baseline_files["ridge_descriptors"])
    rand = cv_average_spearman(baseline_files["random"])
    assert np.mean(list(ridge.values())) > np.mean(list(rand.values())) + 0.2
    assert np.mean(list(ridge.values())) > 0.3
    assert all(abs(v) < 0.2 for v in rand.values())


def test_output_layout(baseline_files, demo_truth):
    for path in baseline_files.values():
        frame = pd.read_csv(path)
        assert list(frame.columns) == ["antibody_name", DEFAULT_FOLD_COL] + PROPERTY_LIST
        assert frame["antibody_name"].tolist() == demo_truth["antibody_name"].tolist()
        assert frame[PROPERTY_LIST].notna().all().all()


def test_random_stays_in_training_range_and_is_seeded(demo_truth):
    first = predict_random(demo_truth, DEFAULT_FOLD_COL, seed=5)
    assert first.equals(predict_random(demo_truth, DEFAULT_FOLD_COL, seed=5))
    assert not first.equals(predict_random(demo_truth, DEFAULT_FOLD_COL, seed=6))
    for fold in range(5):
        test = demo_truth[DEFAULT_FOLD_COL] == fold
        train = demo_truth[~test]
        for prop in PROPERTY_LIST:
            values = first.loc[test, prop]
            assert values.min() >= train[prop].min() and values.max() <= train[prop].max()


def test_predictions_do_not_use_the_test_fold(demo_truth):
    # Changing fold 0's labels must not change any out-of-fold prediction for fold 0.
    changed = demo_truth.copy()
    in_fold = changed[DEFAULT_FOLD_COL] == 0
    changed.loc[in_fold, PROPERTY_LIST] = changed.loc[in_fold, PROPERTY_LIST] * 3 + 100
    ridge = BASELINES["ridge_descriptors"]
    before = ridge(demo_truth, DEFAULT_FOLD_COL, 42)
    after = ridge(changed, DEFAULT_FOLD_COL, 42)
    pd.testing.assert_frame_equal(before[in_fold], after[in_fold])


def test_descriptors_are_finite_and_named(demo_truth):
    features = sequence_descriptors(demo_truth.head(5))
    assert np.isfinite(features.to_numpy()).all()
    assert {"vh_gravy", "vl_charge_pH7.4", "vh_pI", "fv_charge_pH7.4", "hc_subtype_IgG4"} <= set(features.columns)


def test_bad_sequence_is_a_clear_error(demo_truth):
    broken = demo_truth.head(3).copy()
    broken.loc[1, "vh_protein_sequence"] = "EVQLX*"
    with pytest.raises(ScievalsError, match=r"truth line 3 \(demomab-002\).*non-standard letters \['\*', 'X'\]"):
        sequence_descriptors(broken)


def test_unknown_baseline_lists_known_ones(tmp_path):
    with pytest.raises(ScievalsError, match=r"known baselines: \['random', 'ridge_descriptors'\]"):
        run_baseline("esm2", DEMO_CSV, tmp_path / "out.csv", DEFAULT_FOLD_COL, 42)
    assert not (tmp_path / "out.csv").exists()


def test_run_baseline_writes_file(tmp_path):
    out = tmp_path / "random.csv"
    frame = run_baseline("random", DEMO_CSV, out, DEFAULT_FOLD_COL, 42)
    written = pd.read_csv(out)
    assert written["antibody_name"].tolist() == frame["antibody_name"].tolist()
    assert np.allclose(written[PROPERTY_LIST], frame[PROPERTY_LIST], rtol=1e-14, atol=0)
