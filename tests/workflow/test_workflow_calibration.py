"""The default run shows calibration rows for the marker baseline (issue 42): new rows only,
their n the gates below the root that the per-case table's units column holds."""

import json

import pandas as pd
from scievals.stats.calibration import METRICS


def test_marker_baseline_has_calibration_rows(default_run):
    summary = pd.read_csv(default_run / "results" / "summary.csv")
    rows = summary[(summary["benchmark"] == "gating") & summary["metric"].isin(METRICS)]
    assert set(rows["metric"]) == set(METRICS)
    assert set(rows["model"]) == {"marker_baseline"}
    per_case = pd.read_csv(default_run / "results/gating/scores/marker_baseline.per_case.csv")
    units = [u for text in per_case["units"] for u in json.loads(text)]
    # the baseline states one of its three confidences on every gate
    assert {u[2] for u in units} == {0.9, 0.6, 0.3}
    value = rows.set_index("metric")
    assert value.loc["calibration_brier", "n"] == len(units)
    assert value.loc["confidence_coverage", "value"] == 1.0
    assert value.loc["confidence_coverage", "n"] == per_case["case_id"].nunique()
    # autogkb_baseline states no confidence: no calibration rows, no blank ones
    assert not summary[(summary["benchmark"] == "autogkb")
                       & summary["metric"].isin(METRICS)].size
