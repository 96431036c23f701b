"""Transcripts and session digests shaped as Go's (issue 30, "waza today"): on main the
transcript kept the ``report_intent`` events that waza's event collector drops, and
``tool_calls[].result`` was the content string where Go keeps Copilot's result object
``{content, detailedContent}``, so waza's own code-grader assertions on its recorded
session (``tool_calls[0]['result']['content']``) failed here."""

from __future__ import annotations

import json

from scievals.waza import session
from scievals.waza.data import DEMO_DIR
from scievals.waza.graders.base import GraderContext
from scievals.waza.graders.registry import grade


def _recorded_events() -> list[dict]:
    """waza's testdata session (data/demo/waza/sessions): concatenated JSON objects."""
    text = (DEMO_DIR / "sessions" / "copilot_events_using_skill.json").read_text()
    decoder, events, at = json.JSONDecoder(), [], 0
    while at < len(text.rstrip()):
        while text[at].isspace():
            at += 1
        event, at = decoder.raw_decode(text, at)
        events.append(event)
    return events


def test_report_intent_events_are_dropped_everywhere():
    events = _recorded_events()
    # the file: 12 events, of which report_intent's start and complete (toolCallId
    # toolu_01SEYL3...) are the two Go's collector skips
    assert len(events) == 12
    transcript = session.transcript(events)
    assert len(transcript) == 10
    assert all(e.get("tool_call_id") != "toolu_01SEYL3nzyDJb6XeyU5DwvDZ" for e in transcript)
    digest = session.digest(events)
    assert digest.tools_used == ["skill"] and digest.tool_call_count == 1


def test_tool_call_result_is_gos_result_object():
    call = session.digest(_recorded_events()).tool_calls[0]
    assert call.result == {
        "content": 'Skill "example" loaded successfully. Follow the instructions in the '
                   "skill context.",
        "detailedContent": "Skill loaded successfully \u2705\n\n---\nname: example\n"
                           'description: "Checks to see if skills are enabled - if you use '
                           'this skill it prints out yes"\n---\n'}


def test_wazas_own_code_grader_assertions_pass_on_its_session():
    # the assertions of waza's TestWithRealContextPython that read the session
    ctx = session.grader_context(_recorded_events(), output="hello world", duration_ms=101,
                                 task={})
    assertions = ["len(errors) == 0", "len(tool_calls) == 1",
                  "len(tool_calls[0]['result']['content']) > 0",
                  "output == 'hello world'", "duration_ms < 102 and duration_ms > 100"]
    result = grade("code", {"assertions": assertions}, ctx)
    assert result.passed is True, result.feedback


def test_intent_progress_and_partial_results_are_dropped_too():
    events = [
        {"type": "tool.execution_start", "data": {"toolName": "report_intent",
                                                  "toolCallId": "i1"}},
        {"type": "tool.execution_progress", "data": {"toolCallId": "i1"}},
        {"type": "tool.execution_start", "data": {"toolName": "bash", "toolCallId": "b1",
                                                  "arguments": {"command": "ls"}}},
        {"type": "tool.execution_partial_result", "data": {"toolCallId": "b1",
                                                           "result": {"content": "a"}}},
        {"type": "tool.execution_complete", "data": {"toolCallId": "i1", "success": True}},
        {"type": "tool.execution_complete", "data": {"toolCallId": "b1", "success": True,
                                                     "result": "a\nb"}},
    ]
    assert [e["type"] for e in session.transcript(events)] == [
        "tool.execution_start", "tool.execution_partial_result", "tool.execution_complete"]
    (call,) = session.digest(events).tool_calls
    # a bare string (older recordings) becomes the object's content; the complete event,
    # the last one, wins over the partial result as in Go
    assert (call.name, call.result, call.success) == ("bash", {"content": "a\nb"}, True)
    assert GraderContext.from_dict({"session": session.digest(events).to_dict()}).session
