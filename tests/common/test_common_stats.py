"""scievals.common.stats.means_by_condition: the per-condition aggregate gating and autogkb share."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from scievals.common.stats import means_by_condition


def test_a_case_scored_in_several_samples_counts_once():
    frame = pd.DataFrame({
        "condition": ["cot", "cot", "cot", "direct", "direct"],
        "case_id": ["a", "a", "b", "a", "b"],
        "f1": [1.0, 0.0, 1.0, 0.25, math.nan],
    })
    out = means_by_condition(frame, ["f1"], {"n_resamples": 200, "seed": 0})
    assert list(out) == ["cot", "direct"]
    [cot, spread] = out["cot"]
    # case a: (1 + 0) / 2 = 0.5, case b: 1 -> (0.5 + 1) / 2 = 0.75 (not the sample mean 2/3)
    assert cot["metric"] == "f1" and cot["value"] == 0.75 and cot["n"] == 2
    # t-interval of 0.5 and 1: sd 0.353553, se 0.25, t(0.975, 1) = 12.706205 -> +- 3.176551
    assert (cot["ci_low"], cot["ci_high"]) == pytest.approx((0.75 - 3.176551, 0.75 + 3.176551))
    assert cot["ci_method"] == "t"
    # repeats: only case a has two samples, 1 and 0: sd (ddof 1) = sqrt(0.5) = 0.707107
    assert spread == {"metric": "f1:sample_sd", "value": pytest.approx(0.707107), "n": 1}
    # direct: case b has no finite value, so only case a's 0.25 counts
    [direct] = out["direct"]
    assert direct["value"] == 0.25 and direct["n"] == 1
