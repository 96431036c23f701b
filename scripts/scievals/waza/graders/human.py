"""Python-era human review graders: they score 0 and record what a reviewer needs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scievals.waza.graders.base import GraderContext, GraderOptions, GraderResult
from scievals.waza.graders._common import Config


class HumanGrader:
    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("human", config, ("instructions", "criteria"))
        self.instructions = cfg.str("instructions", "Review the output for correctness.")
        self.criteria = cfg.list("criteria")

    def grade(self, context: GraderContext) -> GraderResult:
        return GraderResult(
            0.0,
            False,
            "Pending human review",
            {
                "status": "pending",
                "instructions": self.instructions,
                "criteria": self.criteria,
                "task_id": context.task.get("id"),
                "output_preview": context.output[:500],
            },
        )


def submit_review(
    result: GraderResult, score: float, passed: bool, reviewer: str, comments: str = ""
) -> GraderResult:
    """A pending ``human`` result completed by a reviewer."""
    return GraderResult(
        score,
        passed,
        comments or "Human review completed",
        {**result.details, "status": "reviewed", "reviewer": reviewer, "review_comments": comments},
    )


class HumanCalibrationGrader:
    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        self.calibrate = (
            Config("human_calibration", config, ("calibrate_grader",)).str("calibrate_grader")
            or None
        )

    def grade(self, context: GraderContext) -> GraderResult:
        return GraderResult(
            0.0,
            False,
            "Awaiting human calibration",
            {
                "status": "calibration_pending",
                "calibrate_grader": self.calibrate,
                "task_id": context.task.get("id"),
                "instructions": "Provide your own score for comparison with LLM grader",
            },
        )


# The grader types of this family (read by graders.registry).
GRADERS = {
    "human": HumanGrader,
    "human_calibration": HumanCalibrationGrader,
}
