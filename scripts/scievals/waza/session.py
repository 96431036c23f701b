"""Session events (Copilot-shaped ``{type, data}``) -> what graders and results JSON see.

Mirrors Go (specs/waza.md §4): the final output is the ``content`` of every
``assistant.message``/``assistant.message_delta`` joined with no separator; the digest
pairs ``tool.execution_start``/``complete`` by ``toolCallId`` (``report_intent``
dropped), ``tools_used`` holds one name per call; skills come from ``skill.invoked``.
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


def _result(data: Mapping) -> Any:
    result = data.get("result")
    if isinstance(result, Mapping) and "content" in result:
        return result["content"]
    return result


def digest(events: Sequence[Mapping], session_id: str = "") -> SessionDigest:
    calls: dict[str, ToolCall] = {}
    order: list[str] = []
    usage: dict[str, Any] | None = None
    for event in events:
        kind, data = event.get("type"), event.get("data") or {}
        if kind == "tool.execution_start" and data.get("toolName") not in IGNORED_TOOLS:
            call_id = str(data.get("toolCallId", len(order)))
            calls[call_id] = ToolCall(name=str(data.get("toolName", "")),
                                      arguments=dict(data.get("arguments") or {}))
            order.append(call_id)
        elif kind == "tool.execution_complete" and str(data.get("toolCallId")) in calls:
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
    for event in events:
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
