"""waza's sample results (data/demo/waza/showcase-results) load and re-grade to their
recorded values.

"Re-grade" here is re-deriving run status, task status, stats and summary counts from
the recorded grader verdicts (the suites behind these samples are not published, so
their graders cannot run again). The samples' score statistics are hand-written: in
five of the seven files they do not follow from the recorded validations (e.g.
code-explainer-gpt4o explain-fibonacci records avg_weighted_score 0.969 where its two
runs give (0.96 + 0.975) / 2 = 0.9675), so score stats are compared only for the two
trigger-accuracy files, where they are consistent, to the recorded rounding.
"""

from __future__ import annotations

import pytest
from scievals.waza.data import DEMO_DIR
from scievals.waza.replay import read_results, recompute

FILES = sorted((DEMO_DIR / "showcase-results").glob("*.json"))
CONSISTENT = ("trigger-accuracy-claude.json", "trigger-accuracy-gemini.json")


def test_all_seven_samples_present():
    assert len(FILES) == 7


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_statuses_pass_rates_and_counts(path):
    recorded = read_results(path)
    again = recompute(recorded)
    for old, new in zip(recorded["tasks"], again["tasks"]):
        assert [r["status"] for r in new["runs"]] == [r["status"] for r in old["runs"]]
        assert new["status"] == old["status"], old["test_id"]
        assert round(new["stats"]["pass_rate"], 3) == old["stats"]["pass_rate"]
        assert new["stats"]["flaky"] == old["stats"]["flaky"]
    for key in ("total_tests", "succeeded", "failed", "errors", "skipped"):
        assert again["summary"][key] == recorded["summary"][key], key
    assert round(again["summary"]["success_rate"], 3) == recorded["summary"]["success_rate"]


@pytest.mark.parametrize("name", CONSISTENT)
def test_score_stats_of_consistent_samples(name):
    recorded = read_results(DEMO_DIR / "showcase-results" / name)
    again = recompute(recorded)
    for old, new in zip(recorded["tasks"], again["tasks"]):
        for key in ("avg_score", "avg_weighted_score", "min_score", "max_score",
                    "std_dev_score"):
            recorded_value = old["stats"][key]
            # recorded to 2 or 3 decimals: within half a unit of the second decimal
            assert new["stats"][key] == pytest.approx(recorded_value, abs=0.005), (
                old["test_id"], key)


def test_edge_case_by_hand():
    # trigger-accuracy-claude, trigger-edge-migrate: run scores 0.33 (failed), 0.8 (passed),
    # 0.4 (failed) -> mean 0.51, pass rate 1/3, flaky, minority 1 of 3 runs
    recorded = read_results(DEMO_DIR / "showcase-results" / "trigger-accuracy-claude.json")
    task = next(t for t in recompute(recorded)["tasks"] if t["test_id"] == "trigger-edge-migrate")
    assert task["stats"]["avg_score"] == pytest.approx((0.33 + 0.8 + 0.4) / 3)
    assert task["stats"]["flakiness_percent"] == pytest.approx(100 / 3)
    assert task["status"] == "failed"


def test_not_a_results_file(tmp_path):
    from scievals.common.errors import ScievalsError

    bad = tmp_path / "x.json"
    bad.write_text('{"tasks": []}')
    with pytest.raises(ScievalsError, match="needs keys skill and tasks"):
        read_results(bad)
