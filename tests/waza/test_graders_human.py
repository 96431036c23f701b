"""Python-era `human` and `human_calibration` graders (specs/waza.md §6.15)."""

from __future__ import annotations

from scievals.waza.graders.base import GraderContext
from scievals.waza.graders.registry import grade
from scievals.waza.graders.human import submit_review


def test_human_is_pending_with_preview():
    # §6.15: "`human`: 0/false, details `{status: pending, instructions, criteria, task_id,
    # output_preview[:500]}`".
    r = grade("human", {"criteria": ["clear"]}, GraderContext(output="x" * 600, task={"id": "t1"}))
    assert (r.score, r.passed) == (0.0, False)
    assert r.details == {"status": "pending", "instructions": "Review the output for correctness.",
                         "criteria": ["clear"], "task_id": "t1", "output_preview": "x" * 500}
    done = submit_review(r, 0.8, True, "ana")
    assert (done.score, done.passed, done.details["status"]) == (0.8, True, "reviewed")


def test_human_calibration_pending():
    r = grade("human_calibration", {"calibrate_grader": "judge"}, GraderContext())
    assert (r.score, r.passed) == (0.0, False)
    assert r.details["status"] == "calibration_pending"
    assert r.details["calibrate_grader"] == "judge"
