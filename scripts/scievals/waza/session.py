"""Session events (Copilot-shaped ``{type, data}``) -> what graders and results JSON see.

Mirrors Go (specs/waza.md §4): the final output is the ``content`` of every
``assistant.message``/``assistant.message_delta`` joined with no separator; the digest
pairs ``tool.execution_start``/``complete`` (or ``partial_result``) by ``toolCallId``,
``tools_used`` holds one name per call, ``tool_calls[].result`` is Copilot's result
object ``{content, detailedContent?}``; skills come from ``skill.invoked``. As Go's
event collector, every event of a ``report_intent`` call (its start, progress, request,
result) is dropped before anything else sees the events (:func:`without_intents`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scievals.waza.graders.base import GraderContext, SessionDigest, SkillInvocation, ToolCall

IGNORED_TOOLS = ("report_intent",)
OUTPUT_EVENTS = ("assistant.message", "assistant.message_delta")
USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
              "premium_requests")


def final_output(events: Sequence[Mapping]) -> str:
    return "".join(str(e.get("data", {}).get("content") or "") for e in events
                   if e.get("type") in OUTPUT_EVENTS)


def skill_invocations(events: Sequence[Mapping]) -> list[SkillInvocation]:
    return [SkillInvocation(str(e["data"].get("name", "")), str(e["data"].get("path", "")))
            for e in events if e.get("type") == "skill.invoked"]


# The events of one tool call that Go's collector drops for a report_intent call.
CALL_EVENTS = ("tool.execution_progress", "tool.user_requested", "tool.execution_complete",
               "tool.execution_partial_result")
RESULT_EVENTS = ("tool.execution_complete", "tool.execution_partial_result")


def without_intents(events: Sequence[Mapping]) -> list[Mapping]:
    """``events`` without ``report_intent`` calls: its start (by name) and the events
    that carry its ``toolCallId``, as Go's collector skips them."""
    intents, kept = set(), []
    for event in events:
        kind, data = event.get("type"), event.get("data") or {}
        if kind == "tool.execution_start" and data.get("toolName") in IGNORED_TOOLS:
            if data.get("toolCallId") is not None:
                intents.add(str(data["toolCallId"]))
            continue
        if kind in CALL_EVENTS and data.get("toolCallId") is not None and (
                str(data["toolCallId"]) in intents):
            continue
        kept.append(event)
    return kept


def _result(data: Mapping) -> dict | None:
    """Copilot's tool result object as Go keeps it: ``{content, detailedContent}`` (the
    second only when given); a bare string (older recordings) is its ``content``."""
    result = data.get("result")
    if result is None:
        return None
    if not isinstance(result, Mapping):
        return {"content": str(result)}
    shaped = {"content": str(result.get("content") or "")}
    if result.get("detailedContent"):
        shaped["detailedContent"] = str(result["detailedContent"])
    return shaped


def digest(events: Sequence[Mapping], session_id: str = "") -> SessionDigest:
    calls: dict[str, ToolCall] = {}
    order: list[str] = []
    usage: dict[str, Any] | None = None
    for event in without_intents(events):
        kind, data = event.get("type"), event.get("data") or {}
        if kind == "tool.execution_start":
            call_id = str(data.get("toolCallId", len(order)))
            calls[call_id] = ToolCall(name=str(data.get("toolName", "")),
                                      arguments=dict(data.get("arguments") or {}))
            order.append(call_id)
        elif kind in RESULT_EVENTS and str(data.get("toolCallId")) in calls:
            call = calls[str(data["toolCallId"])]
            call.result = _result(data)
            call.success = bool(data.get("success", False))
        elif kind == "assistant.usage":
            usage = usage or {"turns": 0, **dict.fromkeys(USAGE_KEYS, 0), "model_metrics": {}}
            usage["turns"] += 1
            for key in USAGE_KEYS:
                usage[key] += int(data.get(key) or 0)
    tool_calls = [calls[i] for i in order]
    return SessionDigest(tool_call_count=len(tool_calls), tools_used=[c.name for c in tool_calls],
                         tool_calls=tool_calls, usage=usage, errors=[], session_id=session_id)


def transcript(events: Sequence[Mapping]) -> list[dict]:
    """Serialized transcript events ``{type, content?, message?, arguments?, success?,
    tool_call_id?, tool_name?, tool_result?}``."""
    out = []
    for event in without_intents(events):
        data = event.get("data") or {}
        item: dict[str, Any] = {"type": event.get("type", "")}
        for key, source in (("content", "content"), ("message", "message"),
                            ("arguments", "arguments"), ("success", "success"),
                            ("tool_call_id", "toolCallId"), ("tool_name", "toolName"),
                            ("tool_result", "result")):
            if data.get(source) not in (None, ""):
                item[key] = data[source]
        out.append(item)
    return out


def grader_context(events: Sequence[Mapping], *, output: str | None, duration_ms: int,
                   task: Mapping, workspace_dir=None, context_dir=None,
                   session_id: str = "") -> GraderContext:
    """The context of one executed run (``outcome`` is always ``{}``, as in Go). ``output``
    None means "from the events" (the mock engine sets it without events)."""
    ctx = GraderContext.from_dict({
        "output": final_output(events) if output is None else output,
        "transcript": transcript(events),
        "duration_ms": duration_ms, "session": digest(events, session_id).to_dict(),
        "skill_invocations": [vars(s) for s in skill_invocations(events)],
        "task": dict(task), "session_id": session_id,
    }, workspace_dir=workspace_dir, context_dir=context_dir)
    return ctx
