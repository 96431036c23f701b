"""stats.calibration and stats.calibration_rows on worked examples."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scievals.common.experiments import Unit
from scievals.stats import calibration as C
from scievals.stats.calibration_rows import condition_items, encode, unit_rows


def test_bins_put_one_in_the_last():
    assert C.bins([0.0, 0.09, 0.1, 0.55, 0.9, 1.0]).tolist() == [0, 0, 1, 5, 9, 9]


def test_ece_worked_example():
    # bin [0.9, 1]: confidences 0.9, 1.0 (mean 0.95), one right: |0.95 - 0.5| = 0.45, 2 units
    # bin [0.3, 0.4): 0.3, 0.3, 0.3 (mean 0.3), one right: |0.3 - 1/3| = 1/30, 3 units
    # ECE = (2 x 0.45 + 3 x 1/30) / 5 = (0.9 + 0.1) / 5 = 0.2
    c, y = [0.9, 1.0, 0.3, 0.3, 0.3], [1, 0, 1, 0, 0]
    assert C.ece(c, y) == pytest.approx(0.2)
    # Brier: 0.01 + 1 + 0.49 + 0.09 + 0.09 = 1.68, / 5 = 0.336
    assert C.brier(c, y) == pytest.approx(0.336)
    bins = C.reliability(c, y)
    assert [b["count"] for b in bins] == [0, 0, 0, 3, 0, 0, 0, 0, 0, 2]
    assert bins[9]["mean_confidence"] == pytest.approx(0.95) and bins[9]["accuracy"] == 0.5


def test_debiased_ece_takes_the_noise_out():
    # one bin of 4 units at 0.5 with 2 right: plug-in gap 0; squared gap minus
    # acc (1 - acc) / (n - 1) = 0 - 0.25 / 3 < 0 -> 0
    assert C.ece_debiased([0.5] * 4, [1, 1, 0, 0]) == 0.0
    # 4 units at 0.9, 2 right: gap^2 = 0.16, noise 0.25 / 3: sqrt(0.16 - 1/12) = 0.2769
    assert C.ece_debiased([0.9] * 4, [1, 1, 0, 0]) == pytest.approx(math.sqrt(0.16 - 1 / 12))
    assert C.ece([0.9] * 4, [1, 1, 0, 0]) == pytest.approx(0.4)


def test_auroc_counts_pairs_ties_half():
    # right: 0.9, 0.6; wrong: 0.6, 0.2. Pairs: (0.9, 0.6) win, (0.9, 0.2) win, (0.6, 0.6) tie,
    # (0.6, 0.2) win -> (3 + 0.5) / 4 = 0.875
    assert C.auroc([0.9, 0.6, 0.6, 0.2], [1, 1, 0, 0]) == pytest.approx(0.875)
    assert math.isnan(C.auroc([0.9, 0.1], [1, 1]))


def test_selective_precision_and_aurc_with_ties():
    c = [0.9, 0.8, 0.8, 0.8, 0.1]
    y = [1, 1, 0, 0, 1]
    # top 50 %: ceil(2.5) = 3 units: 0.9 (right) and 2 of the three tied at 0.8, whose
    # accuracy is 1/3: (1 + 2/3) / 3 = 5/9
    assert C.selective_precision(c, y, 0.5) == pytest.approx(5 / 9)
    # top 80 %: 4 units: 0.9 and all three at 0.8: 2 / 4
    assert C.selective_precision(c, y, 0.8) == pytest.approx(0.5)
    # precision at k = 1..5: 1, (1 + 1/3)/2, (1 + 2/3)/3, 2/4, 3/5; AURC = mean risk
    precision = [1, (4 / 3) / 2, (5 / 3) / 3, 0.5, 0.6]
    assert C.aurc(c, y) == pytest.approx(np.mean([1 - p for p in precision]))
    # the order of the rows does not matter
    assert C.aurc(c[::-1], y[::-1]) == pytest.approx(C.aurc(c, y))


def test_weighted_forms_equal_the_expanded_data():
    rng = np.random.default_rng(0)
    c, y = rng.random(40), (rng.random(40) < 0.6).astype(float)
    w = rng.integers(0, 3, (3, 40))
    for metric in C.METRICS[:-1]:
        got = C.weighted(metric, c, y, w)
        want = [C.POINT[metric](np.repeat(c, row), np.repeat(y, row)) for row in w]
        assert got == pytest.approx(want), metric


def test_arm_rows_coverage_and_intervals():
    rows = [("a", True, 0.9), ("a", False, None), ("b", True, 0.8), ("b", False, 0.3),
            ("c", True, 0.7), ("c", True, 1.0)]
    items = {r["metric"]: r for r in C.arm_rows(C.ArmUnits.from_rows(rows),
                                                 {"n_resamples": 200, "seed": 1})}
    # coverage per case: a 1/2, b 1, c 1 -> mean 5/6 over 3 cases
    assert items["confidence_coverage"]["value"] == pytest.approx(5 / 6)
    assert items["confidence_coverage"]["n"] == 3 and items["calibration_brier"]["n"] == 5
    # Brier over the 5 stated: 0.01 + 0.04 + 0.09 + 0.09 + 0 = 0.23 / 5
    assert items["calibration_brier"]["value"] == pytest.approx(0.046)
    for item in items.values():
        if math.isfinite(item["value"]) and math.isfinite(item["ci_low"]):
            assert item["ci_low"] <= item["value"] <= item["ci_high"], item["metric"]


def _frame(samples):
    """(case, sample, units) -> a per-prediction frame with the units column."""
    return pd.DataFrame([{"case_id": case, "condition": "x", "sample_index": s,
                          "units": encode(units)} for case, s, units in samples])


def test_agreement_confidence_is_the_share_of_samples():
    # case a, three samples: key "k1" in all three, "k2" in one -> 1.0 and 1/3
    frame = _frame([("a", 0, [Unit("k1", True), Unit("k2", False)]),
                    ("a", 1, [Unit("k1", True)]), ("a", 2, [Unit("k1", True)]),
                    ("b", 0, [Unit("k3", True)])])  # one sample: no agreement units
    got = unit_rows(frame, "agreement")
    assert got == [("a", True, 1.0), ("a", False, pytest.approx(1 / 3)),
                   ("a", True, 1.0), ("a", True, 1.0)]
    items = condition_items(frame, {"n_resamples": 0})["x"]
    names = [i["metric"] for i in items]
    # nothing stated a confidence: agreement rows only, with the source as a suffix
    assert "calibration_ece" not in names and "calibration_ece:agreement" in names
    brier = next(i for i in items if i["metric"] == "calibration_brier:agreement")
    # (0 + (1/3)^2 + 0 + 0) / 4
    assert brier["value"] == pytest.approx((1 / 9) / 4)


def test_no_confidence_no_rows():
    frame = _frame([("a", 0, [Unit("k1", True)]), ("b", 0, [Unit("k2", False)])])
    assert condition_items(frame, {"n_resamples": 0}) == {"x": []}
    assert json.loads(encode([Unit("k", False, 0.25)])) == [["k", False, 0.25]]
