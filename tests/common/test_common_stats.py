"""scievals.common.stats.means_by_condition: the per-condition aggregate gating and autogkb share."""

from __future__ import annotations

import math

import pandas as pd
from scievals.common.stats import means_by_condition


def test_a_case_scored_in_several_samples_counts_once():
    frame = pd.DataFrame({
        "condition": ["cot", "cot", "cot", "direct", "direct"],
        "case_id": ["a", "a", "b", "a", "b"],
        "f1": [1.0, 0.0, 1.0, 0.25, math.nan],
    })
    out = means_by_condition(frame, ["f1"], {"n_resamples": 200, "seed": 0})
    assert list(out) == ["cot", "direct"]
    [cot] = out["cot"]
    # case a: (1 + 0) / 2 = 0.5, case b: 1 -> (0.5 + 1) / 2 = 0.75 (not the sample mean 2/3)
    assert cot["metric"] == "f1" and cot["value"] == 0.75 and cot["n"] == 2
    assert 0.5 <= cot["ci_low"] <= 0.75 <= cot["ci_high"] <= 1.0
    # direct: case b has no finite value, so only case a's 0.25 counts
    [direct] = out["direct"]
    assert direct["value"] == 0.25 and direct["n"] == 1
