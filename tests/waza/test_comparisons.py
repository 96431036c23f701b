"""waza's comparison items: tasks of each suite from the graded results, the no-skill arm
included, compared by exact McNemar (pass/fail) and the sign-flip test (scores)."""

from __future__ import annotations

import json

import pytest
from scievals.stats.comparisons import comparison_table
from scievals.waza.comparisons import item_metrics


def _task(name, passed, score):
    return {"test_id": name, "status": "passed" if passed else "failed",
            "stats": {"avg_weighted_score": score, "avg_score": score}}


def test_the_no_skill_arm_is_compared_task_by_task(tmp_path):
    with_skills = [_task(f"t{i}", p, s) for i, (p, s) in
                   enumerate([(1, 0.9), (1, 0.8), (1, 1.0), (0, 0.4), (1, 0.7)])]
    without = [_task(f"t{i}", p, s) for i, (p, s) in
               enumerate([(0, 0.5), (0, 0.3), (1, 0.9), (0, 0.2), (0, 0.6)])]
    graded = tmp_path / "m.json"
    graded.write_text(json.dumps({"suites": {"demo": {"tasks": with_skills,
                                                      "baseline_outcome": {"tasks": without}}}}))
    source = tmp_path / "source.json"
    source.write_text(json.dumps({"suites": {"demo": {"dataset": "demo-set"}}}))
    metrics = item_metrics({"graded": [str(graded)], "download": [str(source)]}, ["m"],
                           ("pass_rate", "weighted_score", "trigger_accuracy"), {},
                           ranges={"*": (0.0, 1.0)})
    assert [(m.dataset, m.metric, m.kind) for m in metrics] == [
        ("demo-set", "pass_rate", "pass_fail"), ("demo-set", "weighted_score", "mean")]
    table = comparison_table("waza", metrics, {"n_resamples": 100, "seed": 0})
    rate, score = table.to_dict("records")
    # pass: 4 of 5 with skills, 1 of 5 without; discordant tasks t0, t1, t4 all for "m":
    # exact McNemar p = 2 * (1/2)^3 = 0.25
    assert (rate["arm_a"], rate["arm_b"]) == ("m", "m [no-skill]")
    assert rate["diff"] == pytest.approx(0.6) and rate["p_value"] == pytest.approx(0.25)
    # scores: differences 0.4, 0.5, 0.1, 0.2, 0.1 -> mean 0.26; exact sign-flip test: of the
    # 2^5 = 32 sign patterns only the observed one reaches a sum of 1.3, so the two-sided p
    # is 2 * 1/32 = 0.0625, and since no pattern can give p < 0.05 with 5 tasks, the
    # inverted interval is the whole range of a difference, [-1, 1]
    assert score["diff"] == pytest.approx(0.26)
    assert score["p_value"] == pytest.approx(0.0625)
    assert (score["ci_low"], score["ci_high"]) == (-1.0, 1.0)
