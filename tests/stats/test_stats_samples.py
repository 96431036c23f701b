"""What k samples of an item say (scievals.stats.samples) and planning at k samples."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scievals.common.errors import ScievalsError
from scievals import registry
from scievals.results.plan import plan_text
from scievals.stats.intervals import metric_range
from scievals.stats.planning import items_for_mean, sd_at_samples
from scievals.stats.samples import (
    SampleAnswers,
    derived_ranges,
    jaccard,
    mean_pairwise_jaccard,
    means_with_samples,
    sample_metrics,
)


def test_jaccard_by_hand():
    assert jaccard({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3)  # 1 shared of 3
    assert jaccard(set(), set()) == 1.0  # two answers naming nothing agree
    assert jaccard({"a"}, set()) == 0.0
    # pairs: {a,b}-{a,b} 1, {a,b}-{a} 1/2, {a,b}-{a} 1/2 -> mean 2/3
    assert mean_pairwise_jaccard([{"a", "b"}, {"a", "b"}, {"a"}]) == pytest.approx(2 / 3)
    assert math.isnan(mean_pairwise_jaccard([{"a"}]))


# A toy benchmark: an answer is a set of letters, scored as the share of {a, b} it holds
# (higher is better) and the number of letters outside {a, b} (lower is better).
def _score(case_id, parsed):
    parsed = parsed or set()
    return {"hit": len(parsed & {"a", "b"}) / 2, "junk": float(len(parsed - {"a", "b"}))}


def _majority(parsed_list):
    letters = {x for p in parsed_list if p for x in p}
    return {x for x in letters if 2 * sum(x in (p or ()) for p in parsed_list) > len(parsed_list)}


ANSWERS = SampleAnswers(consensus=_majority, keys=lambda p: p or set(), score=_score)


def test_sample_metrics_worked_by_hand():
    parsed = {("c1", "x", 0): {"a"}, ("c1", "x", 1): {"a", "b", "z"}, ("c1", "x", 2): {"a", "z"},
              ("c2", "x", 0): {"b"}, ("c2", "x", 1): {"b"}, ("c2", "x", 2): {"b"}}
    rows = [{"case_id": c, "condition": cond, "sample_index": i, **_score(c, p)}
            for (c, cond, i), p in parsed.items()]
    frame, names, ranges = sample_metrics(pd.DataFrame(rows), ["hit", "junk"], parsed,
                                          ANSWERS, {"hit": (0, 1), "junk": (0, 3)},
                                          lower_is_better=("junk",))
    assert names == ("hit", "junk")
    c1 = frame[frame.case_id == "c1"].iloc[0]
    # c1: hit 1/2, 1, 1/2 (mean 2/3); junk 0, 1, 1 (mean 2/3)
    assert c1["hit_best_of_k"] == 1.0 and c1["junk_best_of_k"] == 0.0  # junk: the smallest
    # majority of {a}, {a,b,z}, {a,z}: a (3 of 3), z (2 of 3) -> {a, z}: hit 1/2, junk 1
    assert c1["hit_consensus"] == 0.5 and c1["junk_consensus"] == 1.0
    assert c1["hit_consensus_gain"] == pytest.approx(0.5 - 2 / 3)
    # hit deviations from 2/3: -1/6, 1/3, -1/6 -> SD = sqrt((1/36 + 1/9 + 1/36) / 2) = sqrt(1/12)
    assert c1["hit_within_sd"] == pytest.approx(math.sqrt(1 / 12))
    # Jaccard: {a}-{a,b,z} 1/3, {a}-{a,z} 1/2, {a,b,z}-{a,z} 2/3 -> mean 1/2
    assert c1["sample_agreement"] == pytest.approx(0.5)
    c2 = frame[frame.case_id == "c2"].iloc[0]  # the same answer three times
    assert c2["hit_within_sd"] == 0.0 and c2["sample_agreement"] == 1.0
    assert c2["hit_consensus_gain"] == 0.0
    # the gain row: per item -1/6 (c1) and 0 (c2) -> -1/12, with the paired test's interval
    rows = {r["metric"]: r for r in means_with_samples(frame, ["hit", "junk"], names,
                                                       {"n_resamples": 100}, ranges)["x"]}
    gain = rows["hit_consensus_gain"]
    assert gain["value"] == pytest.approx(-1 / 12) and gain["n"] == 2
    assert gain["ci_low"] <= gain["value"] <= gain["ci_high"]
    assert gain["ci_method"].startswith("sign-flip")
    assert rows["hit_best_of_k"]["value"] == pytest.approx(0.75)  # (1 + 1/2) / 2
    assert "hit_best_of_k:sample_sd" not in rows  # per-item values have no sample spread
    # ranges: a gain spans +-range, an SD [0, range]; the benchmark's own stay
    assert ranges["junk_consensus_gain"] == (-3, 3) and ranges["junk_within_sd"] == (0.0, 3)
    assert ranges["hit_best_of_k"] == (0.0, 1.0) and ranges["junk"] == (0, 3)


def test_no_repeats_leave_the_frame_as_it_was():
    frame = pd.DataFrame([{"case_id": "c1", "condition": "x", "sample_index": 0, "hit": 1.0}])
    out, names, ranges = sample_metrics(frame, ["hit"], {}, ANSWERS, {"*": (0, 1)})
    assert out is frame and names == () and ranges == {"*": (0, 1)}
    rows = means_with_samples(out, ["hit"], names, {"n_resamples": 100}, ranges)
    assert [r["metric"] for r in rows["x"]] == ["hit"]  # the table as before


def test_derived_ranges_come_before_a_catch_all_pattern():
    declared = {"one_to_one_score": (0, 100), "*": (0, 1)}
    ranges = derived_ranges(declared)
    assert metric_range(ranges, "one_to_one_score_within_sd") == (0.0, 100.0)
    assert metric_range(ranges, "one_to_one_score_consensus_gain") == (-100.0, 100.0)
    assert metric_range(ranges, "f1_consensus_gain") == (-1.0, 1.0)  # from "*"
    assert metric_range(ranges, "f1_best_of_k") == (0.0, 1.0)
    assert metric_range(ranges, "one_to_one_score") == (0.0, 100.0)  # declared ones stay
    assert derived_ranges(ranges) == ranges  # deriving twice changes nothing
    # the registry's ranges are these, so every reader (comparisons, plan, export) agrees
    assert metric_range(registry.get("autogkb").ranges(),
                        "one_to_one_score_consensus_gain") == (-100.0, 100.0)


def test_sd_at_samples_by_hand():
    # 0.3^2 + 2 * 0.02 * (1/4 - 1/1) = 0.09 - 0.03 = 0.06
    assert sd_at_samples(0.3, 0.02, 1, 4) == pytest.approx(math.sqrt(0.06))
    assert sd_at_samples(0.3, 0.02, 2, 2) == pytest.approx(0.3)  # same k: unchanged
    assert sd_at_samples(0.1, 0.5, 1, 100) == 0.0  # floored, never an imaginary sd


def test_plan_accounts_for_samples(tmp_path):
    scores = tmp_path / "gating" / "scores"
    scores.mkdir(parents=True)
    # item A: 0.2, 0.4 (variance 0.02); item B: 0.6, 1.0 (variance 0.08) -> mean 0.05, k = 2
    pd.DataFrame({"model": "m", "condition": "c", "case_id": ["A", "A", "B", "B"],
                  "sample_index": [0, 1, 0, 1], "hierarchy_f1": [0.2, 0.4, 0.6, 1.0]}
                 ).to_csv(scores / "m.per_case.csv", index=False)
    text = plan_text("gating", 0.1, results=tmp_path, sd=0.3, samples=4)
    # sd at 4 samples: sqrt(0.09 + 2 * 0.05 * (1/4 - 1/2)) = sqrt(0.065) = 0.255
    n = items_for_mean(0.1, math.sqrt(0.065))
    assert "sd of per-item differences 0.255" in text and f"about {n} cases" in text
    assert f"{n * 4} requests per arm" in text
    with pytest.raises(ScievalsError, match="--samples"):
        plan_text("gating", 0.1, results=tmp_path, sd=0.3, samples=0)
    assert np.isfinite(n)
