"""What the predict stage keeps of each run, ungraded: the record graders will read.

Recording needs no grader, judge or statistics, so a predict job loads none of them
(:mod:`~scievals.waza.runs` grades the records in the score stage).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scievals.waza import session, workspaces
from scievals.waza.executors.base import Execution
from scievals.waza.graders.base import GraderContext

# A run the predict stage recorded and the score stage has not graded yet.
RECORDED = "recorded"
# The A/B arm without skills (its score rows: model "<model> [no-skill]").
BASELINE_ARM = "no-skill"


def run_entry(run_number: int, *, duration_ms: int, context: GraderContext | None,
              status: str, validations: Mapping[str, dict], error_msg: str = ""
              ) -> dict[str, Any]:
    """One entry of a task's ``runs`` (Go key names), recorded or graded."""
    ctx = context or GraderContext()
    digest = ctx.session.to_dict() if ctx.session is not None else None
    return {
        "run_number": run_number, "attempts": 1, "status": status, "duration_ms": duration_ms,
        "final_output": ctx.output, "error_msg": error_msg,
        "skill_invocations": [vars(s) for s in ctx.skill_invocations],
        "transcript": ctx.transcript, "validations": dict(validations),
        "session_digest": digest,
    }


def recorded_run(number: int, execution: Execution, duration_ms: int,
                 workspace: Path | None) -> dict[str, Any]:
    """One executed run as the predict stage records it: what graders will read (output,
    transcript, session digest, skill invocations, the workspace's final files), ungraded;
    an executor error makes the run ``error`` (it is never graded). A failed follow-up
    turn is kept as ``followup_error``: the state reached is graded, the run is ``error``."""
    context = session.grader_context(execution.events, output=execution.output,
                                     duration_ms=duration_ms, task={})
    record = run_entry(number, duration_ms=duration_ms, context=context, validations={},
                       status="error" if execution.error else RECORDED,
                       error_msg=execution.error)
    if execution.followup_error:
        record["followup_error"] = execution.followup_error
    if workspace is not None:
        record["workspace_files"], record["workspace_omitted"] = workspaces.snapshot(workspace)
    return record


def checkpoint_state(turn: int, events: list[dict], output: str,
                     workspace: Path | None) -> dict[str, Any]:
    """The cumulative state after ``turn`` that a checkpoint's graders see (specs/
    waza-current.md §3.3): that turn's output, the session so far, the workspace files."""
    context = session.grader_context(events, output=output, duration_ms=0, task={})
    state: dict[str, Any] = {"after_turn": turn, "final_output": context.output,
                             "transcript": context.transcript,
                             "session_digest": context.session.to_dict() if context.session
                             else None,
                             "skill_invocations": [vars(s) for s in context.skill_invocations]}
    if workspace is not None:
        state["workspace_files"], state["workspace_omitted"] = workspaces.snapshot(workspace)
    return state
