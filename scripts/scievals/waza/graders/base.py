"""The grader API: what a grader sees of one run (specs/waza.md §4) and what it returns.

The context mirrors Go's ``graders.Context`` plus the Python era's ``task`` dict.
``from_dict`` reads the snake_case JSON context file of ``waza grade-one``.
Graders are classes built from their config (a bad config raises
:class:`GraderConfigError` at construction, like Go's constructors) whose
``grade(context)`` returns a :class:`GraderResult`. Building one by its type name is
:mod:`scievals.waza.graders.registry`'s job.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from scievals.common.errors import ScievalsError

# Bump when a grader's verdict on the same run can change (score, passed, feedback): the
# score stage grades every recorded run, so waza's METRICS_VERSION (the score rule's code
# version) includes this and a grader change re-scores without re-running any agent.
# v2: grader programs run in the workspace with a scrubbed env; a non-finite score fails.
# v3: merge of both v2 lines (faults-waza above; waza-current: expected/tool_calls graders,
# unique-token trigger, validated script replies).
GRADERS_VERSION = "waza-graders-v4"  # v4: judges are sent their reply's JSON schema


class GraderConfigError(ScievalsError):
    """A grader config the grader cannot be built from (Go: constructor error)."""


class GraderError(ScievalsError):
    """Grading failed (bad path, crashed script, judge failure): the run becomes `error`."""


@dataclass
class ToolCall:
    """One tool call paired from ``tool.execution_start``/``complete`` events."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    success: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "arguments": dict(self.arguments),
            "result": self.result,
            "success": self.success,
        }


@dataclass
class SessionDigest:
    """Go's SessionDigest: ``tools_used`` has one name per call, in order."""

    tool_call_count: int = 0
    tools_used: list[str] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: dict[str, Any] | None = None
    errors: list[Any] = field(default_factory=list)
    session_id: str = ""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SessionDigest:
        calls = [
            ToolCall(
                name=str(c.get("name", "")),
                arguments=dict(c.get("arguments") or {}),
                result=c.get("result"),
                success=bool(c.get("success", False)),
            )
            for c in (data.get("tool_calls") or [])
        ]
        tools_used = [str(t) for t in (data.get("tools_used") or [])]
        count = data.get("tool_call_count")
        return cls(
            tool_call_count=int(count) if count is not None else len(calls),
            tools_used=tools_used,
            tool_calls=calls,
            usage=data.get("usage"),
            errors=list(data.get("errors") or []),
            session_id=str(data.get("session_id") or ""),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool_call_count": self.tool_call_count,
            "tools_used": list(self.tools_used),
            "tool_calls": [c.to_dict() for c in self.tool_calls],
            "usage": self.usage,
            "errors": list(self.errors),
            "session_id": self.session_id,
        }


@dataclass
class SkillInvocation:
    name: str
    path: str = ""


@dataclass
class GraderContext:
    """Everything a grader may read about one run.

    ``session`` is None when the engine produced no session (graders that need
    one then score 0, as in Go). ``workspace_dir`` None means no workspace.
    ``tool_calls`` and ``errors`` are the lists the ``code`` grader exposes.
    """

    output: str = ""
    outcome: dict[str, Any] = field(default_factory=dict)
    transcript: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: list[Any] = field(default_factory=list)
    errors: list[Any] = field(default_factory=list)
    duration_ms: int = 0
    session: SessionDigest | None = None
    skill_invocations: list[SkillInvocation] = field(default_factory=list)
    task: dict[str, Any] = field(default_factory=dict)
    workspace_dir: Path | None = None
    context_dir: Path | None = None
    baseline_output: str | None = None
    session_id: str = ""

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        *,
        where: str = "context",
        workspace_dir: str | Path | None = None,
        context_dir: str | Path | None = None,
    ) -> GraderContext:
        """Build from the snake_case context JSON; unknown keys are an error."""
        if not isinstance(data, Mapping):
            raise ScievalsError(
                where,
                "the context must be a JSON object",
                f"use keys {', '.join(sorted(_CONTEXT_KEYS))}",
            )
        unknown = sorted(set(data) - _CONTEXT_KEYS)
        if unknown:
            raise ScievalsError(
                f"{where}: key {unknown[0]}",
                "unknown context key",
                f"allowed keys: {', '.join(sorted(_CONTEXT_KEYS))}",
            )
        _expect(data, where, "output", (str, type(None)))
        for key in ("transcript", "tool_calls", "errors", "skill_invocations"):
            _expect(data, where, key, (list, type(None)))
        for key in ("outcome", "session", "task"):
            _expect(data, where, key, (dict, type(None)))
        _expect(data, where, "duration_ms", (int, float, type(None)))
        session = data.get("session")
        invocations = []
        for i, inv in enumerate(data.get("skill_invocations") or []):
            if not isinstance(inv, Mapping) or not isinstance(inv.get("name"), str):
                raise ScievalsError(
                    f"{where}: key skill_invocations[{i}]",
                    "each skill invocation needs a string name",
                    'write {"name": "skill", "path": "..."}',
                )
            invocations.append(SkillInvocation(inv["name"], str(inv.get("path") or "")))
        digest = SessionDigest.from_dict(session) if session is not None else None
        transcript = list(data.get("transcript") or [])
        tool_calls = data.get("tool_calls")
        if tool_calls is None:
            tool_calls = [c.to_dict() for c in digest.tool_calls] if digest else []
        errors = data.get("errors")
        if errors is None:
            errors = events_with_errors(transcript)
        return cls(
            output=data.get("output") or "",
            outcome=dict(data.get("outcome") or {}),
            transcript=transcript,
            tool_calls=list(tool_calls),
            errors=list(errors),
            duration_ms=int(data.get("duration_ms") or 0),
            session=digest,
            skill_invocations=invocations,
            task=dict(data.get("task") or {}),
            workspace_dir=Path(workspace_dir) if workspace_dir else None,
            context_dir=Path(context_dir) if context_dir else None,
            baseline_output=data.get("baseline_output"),
            session_id=str(data.get("session_id") or ""),
        )


_CONTEXT_KEYS = frozenset(
    {
        "output",
        "outcome",
        "transcript",
        "tool_calls",
        "errors",
        "duration_ms",
        "session",
        "skill_invocations",
        "task",
        "baseline_output",
        "session_id",
    }
)


def _expect(data: Mapping[str, Any], where: str, key: str, types: tuple[type, ...]) -> None:
    if key in data and not isinstance(data[key], types):
        names = " or ".join("null" if t is type(None) else t.__name__ for t in types)
        raise ScievalsError(
            f"{where}: key {key}", f"must be {names}", f"got {type(data[key]).__name__}"
        )


def events_with_errors(transcript: list[Any]) -> list[Any]:
    """Go's code-wrapper ``errors``: events whose type or content contains "error"
    (case-sensitive, §6.1)."""
    found = []
    for event in transcript:
        if not isinstance(event, Mapping):
            continue
        if "error" in str(event.get("type", "")) or "error" in str(event.get("content", "")):
            found.append(event)
    return found


@dataclass
class GraderResult:
    """One grader's verdict; ``score`` is in [0, 1]."""

    score: float
    passed: bool
    feedback: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "passed": self.passed,
            "feedback": self.feedback,
            "details": self.details,
        }


@dataclass
class GraderOptions:
    """Run-wide settings some graders need.

    ``judge`` answers LLM-judge prompts (see ``graders.judge``; None: graders
    that need one raise GraderError). ``judge_model`` is the suite's default for
    ``prompt`` graders without their own ``model``. ``program_timeout`` is the
    ``.waza.yaml graders.programTimeout`` default (seconds). ``grader_name`` is
    set by :func:`build` for the one grader being built (some feedback names it).
    """

    judge: Any = None
    judge_model: str = ""
    update_snapshots: bool = False
    program_timeout: int = 0
    grader_name: str = ""


class Grader(Protocol):
    """A grader built from its config; ``grade`` may raise :class:`GraderError`."""

    def grade(self, context: GraderContext) -> GraderResult: ...
