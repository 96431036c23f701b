"""`show` lists the calibration of stated confidence beside the headline (issue 42)."""

import pandas as pd
from scievals.results.leaderboard import quality_columns


def test_ece_and_coverage_columns_weighted_by_units():
    frame = pd.DataFrame([
        {"model": "m", "condition": "a", "metric": "calibration_ece", "value": 0.1, "n": 100},
        {"model": "m", "condition": "b", "metric": "calibration_ece", "value": 0.4, "n": 300},
        {"model": "m", "condition": "a", "metric": "confidence_coverage", "value": 1.0,
         "n": 100},
        {"model": "m", "condition": "b", "metric": "confidence_coverage", "value": 0.5,
         "n": 300},
        {"model": "x", "condition": "a", "metric": "hierarchy_f1", "value": 0.5, "n": 15}])
    got = quality_columns(frame, ["model"]).set_index("model")
    # (0.1 x 100 + 0.4 x 300) / 400 = 0.325; (100 + 150) / 400 = 0.625
    assert got.loc["m", "ECE"] == "0.325" and got.loc["m", "conf. stated"] == "0.62"
    assert list(got.index) == ["m"]  # a model without confidences gets no value
