"""Graders on the session: behavior, action_sequence, skill_invocation, tool_constraint,
tool_calls (specs/waza.md §6.8-§6.11, §6.14). Expected values are worked by hand below."""

from __future__ import annotations

import pytest
from scievals.waza.graders.base import (
    GraderConfigError,
    GraderContext,
    SessionDigest,
    SkillInvocation,
    ToolCall,
)
from scievals.waza.graders.registry import build, grade


def session_ctx(tools: list[str], calls: list[ToolCall] | None = None, usage=None,
                duration_ms: int = 0) -> GraderContext:
    calls = calls if calls is not None else [ToolCall(name=t) for t in tools]
    digest = SessionDigest(tool_call_count=len(tools), tools_used=tools, tool_calls=calls,
                           usage=usage)
    return GraderContext(session=digest, duration_ms=duration_ms)


# --- behavior (§6.8) ---------------------------------------------------------------------

def test_behavior_limits_inclusive_and_tools_exact():
    # Checks: max_tool_calls 2 vs 3 calls (fail), max_tokens 100 vs 60+50=110 (fail),
    # required view (ok), forbidden bash (fail), max_duration 1000 vs 1000 (inclusive: ok).
    # 5 checks, 2 pass -> 0.4.
    c = session_ctx(["view", "bash", "view"], usage={"input_tokens": 60, "output_tokens": 50},
                    duration_ms=1000)
    r = grade("behavior", {"max_tool_calls": 2, "max_tokens": 100, "required_tools": ["view"],
                           "forbidden_tools": ["bash"], "max_duration_ms": 1000}, c)
    assert r.score == pytest.approx(0.4)
    assert r.feedback == ("Tool call count 3 exceeds max allowed 2; "
                          "Token usage 110 exceeds max allowed 100; "
                          "Forbidden tool was used: bash")


def test_behavior_token_check_passes_without_usage():
    # §6.8: "with nil usage the token check counts and **passes**".
    r = grade("behavior", {"max_tokens": 1}, session_ctx(["view"], usage=None))
    assert (r.score, r.passed, r.feedback) == (1.0, True, "All behavior checks passed")


def test_behavior_tool_names_are_case_sensitive():
    r = grade("behavior", {"required_tools": ["View"]}, session_ctx(["view"]))
    assert r.feedback == "Required tool not used: View"


def test_behavior_nil_session_scores_zero():
    r = grade("behavior", {"max_tool_calls": 5}, GraderContext())
    assert (r.score, r.passed) == (0.0, False)


def test_behavior_needs_a_rule():
    # §6.8: "at least one; 0 = unset".
    with pytest.raises(GraderConfigError, match="at least one rule"):
        grade("behavior", {"max_tool_calls": 0}, GraderContext())


# --- action_sequence (§6.9) --------------------------------------------------------------

EXPECTED = ["view", "edit", "bash"]
ACTUAL = ["view", "bash", "edit", "view"]
# TP = min(1,2)+min(1,1)+min(1,1) = 3; P = 3/4; R = 3/3; F1 = 2*0.75*1/1.75 = 6/7.
F1 = 6 / 7


@pytest.mark.parametrize("mode, passed", [("exact_match", False), ("in_order_match", False),
                                          ("any_order_match", True)])
def test_action_sequence_score_is_f1_in_every_mode(mode, passed):
    # §6.9: "Score is always multiset F1 ... a pass with extras scores <1".
    r = grade("action_sequence", {"matching_mode": mode, "expected_actions": EXPECTED},
              session_ctx(ACTUAL))
    assert r.score == pytest.approx(F1)
    assert r.passed is passed


def test_action_sequence_wrong_order_scores_one_yet_fails():
    # §6.9: "a wrong order can score 1.0 yet fail".
    r = grade("action_sequence", {"matching_mode": "in_order_match",
                                  "expected_actions": ["a", "b"]}, session_ctx(["b", "a"]))
    assert (r.score, r.passed) == (1.0, False)
    assert r.feedback == ("In-order match failed: not all expected actions [a b] appeared in "
                          "order within actual [b a]")


def test_action_sequence_feedback_exact_and_any_order():
    r = grade("action_sequence", {"matching_mode": "exact_match", "expected_actions": ["a"]},
              session_ctx(["a", "a"]))
    assert r.feedback == "Exact match failed: expected 1 actions [a], got 2 actions [a a]"
    r = grade("action_sequence", {"matching_mode": "any_order_match",
                                  "expected_actions": ["a", "a", "b"]}, session_ctx(["a"]))
    assert r.feedback == ("Any-order match failed: missing or insufficient actions: "
                          "a (need 2, got 1), b (need 1, got 0)")
    # TP = 1, P = 1, R = 1/3, F1 = 2*(1/3)/(4/3) = 0.5
    assert r.score == pytest.approx(0.5)


def test_action_sequence_match_and_nil_session():
    r = grade("action_sequence", {"matching_mode": "exact_match", "expected_actions": ["a"]},
              session_ctx(["a"]))
    assert (r.score, r.passed, r.feedback) == (1.0, True, "Action sequence matched")
    r = build("action_sequence", {"matching_mode": "exact_match", "expected_actions": ["a"]},
              name="tools-in-order").grade(GraderContext())
    assert (r.score, r.passed) == (0.0, False)
    assert r.feedback == "action_sequence grader 'tools-in-order': no session digest available"


def test_action_sequence_rejects_skill_style_mode():
    with pytest.raises(GraderConfigError, match="matching_mode"):
        grade("action_sequence", {"matching_mode": "in_order", "expected_actions": ["a"]},
              GraderContext())


# --- skill_invocation (§6.10) ------------------------------------------------------------

def skills(*names: str) -> GraderContext:
    return GraderContext(skill_invocations=[SkillInvocation(n) for n in names])


def test_skill_invocation_extra_penalty():
    # required [a], actual [a, b]: TP 1, P 1/2, R 1, F1 2/3; allow_extra false:
    # score = F1 * (1 - 0.6 * 1/2) = 2/3 * 0.7. any_order still passes.
    r = grade("skill_invocation", {"required_skills": ["a"], "mode": "any_order",
                                   "allow_extra": False}, skills("a", "b"))
    assert r.score == pytest.approx(2 / 3 * 0.7)
    assert r.passed is True
    assert r.feedback == ("Skill invocation sequence matched but had extra invocations "
                          "(got 2, expected 1)")


def test_skill_invocation_extra_allowed_by_default():
    r = grade("skill_invocation", {"required_skills": ["a"], "mode": "in_order"},
              skills("a", "b"))
    assert r.score == pytest.approx(2 / 3)
    assert r.feedback == "Skill invocation sequence matched"


def test_skill_invocation_empty_list_fails():
    # §6.10: "A nil list is empty": F1 = 0.
    r = grade("skill_invocation", {"required_skills": ["a"], "mode": "exact_match"}, skills())
    assert (r.score, r.passed) == (0.0, False)
    assert r.feedback == "Exact match failed: expected 1 skills [a], got 0 skills []"


def test_skill_invocation_modes_have_no_match_suffix():
    # §6.10: "modes `exact_match|in_order|any_order` (**no `_match` suffix** on the last two)".
    with pytest.raises(GraderConfigError):
        grade("skill_invocation", {"required_skills": ["a"], "mode": "any_order_match"},
              skills())


# --- tool_constraint (§6.11) -------------------------------------------------------------

CALLS = [ToolCall("bash_tool", {"command": "git push origin"}),
         ToolCall("view", {"path": "src/a.py"})]


def test_tool_constraint_unanchored_case_insensitive():
    # expect bash + command GIT: "bash" matches "bash_tool" unanchored, (?i) GIT -> pass.
    # reject view with path \.py$ -> fails. expect edit -> fails. 1 of 3.
    r = grade("tool_constraint", {
        "expect_tools": [{"tool": "bash", "command_pattern": "GIT"}, {"tool": "edit"}],
        "reject_tools": [{"tool": "view", "path_pattern": r"\.py$"}]},
        session_ctx(["bash_tool", "view"], CALLS))
    assert r.score == pytest.approx(1 / 3)
    assert r.feedback == (r"Expected tool not used: edit; Rejected tool was used: view "
                          r"(path_pattern: \.py$)")


def test_tool_constraint_all_pass():
    r = grade("tool_constraint", {"reject_tools": [{"tool": "bash", "command_pattern": "rm "}]},
              session_ctx(["bash_tool", "view"], CALLS))
    assert (r.score, r.feedback) == (1.0, "All tool constraint checks passed")


def test_tool_constraint_constructor_errors_name_the_key():
    # §6.11: "Empty `tool` or an invalid regex is a constructor error
    # (`config.expect_tools[0].tool: ...`)".
    with pytest.raises(GraderConfigError, match=r"config\.expect_tools\[0\]\.tool"):
        grade("tool_constraint", {"expect_tools": [{"tool": " "}]}, GraderContext())
    with pytest.raises(GraderConfigError, match=r"config\.reject_tools\[0\]\.command_pattern"):
        grade("tool_constraint", {"reject_tools": [{"tool": "x", "command_pattern": "(?!a)"}]},
              GraderContext())


# --- tool_calls (§6.14) ------------------------------------------------------------------

LEGACY_TRANSCRIPT = [{"type": "tool_call", "tool": "bash", "args": {"command": "ls -la"}},
                     {"role": "tool", "name": "view", "content": "ignored by the grader"}]


def test_tool_calls_legacy_regexes_over_tool_lines():
    # Only type=="tool_call" entries count: one line "bash {'command': 'ls -la'}".
    # required BASH (IGNORECASE) ok, {pattern: "'command': 'ls"} ok, forbidden "rm -rf" ok.
    r = grade("tool_calls", {"required": ["BASH", {"pattern": "'command': 'ls"}],
                             "forbidden": ["rm -rf", "view"]},
              GraderContext(transcript=LEGACY_TRANSCRIPT))
    # forbidden "view" is absent from the lines (role:"tool" entries are not calls) -> 4/4.
    assert (r.score, r.passed, r.feedback) == (1.0, True, "Tool calls valid")


def test_tool_calls_legacy_max_calls_zero_fails_at_score_one():
    # §6.14: "`max_calls: 0` is not counted as a check (can fail at score 1.0)".
    r = grade("tool_calls", {"required": [], "max_calls": 0},
              GraderContext(transcript=LEGACY_TRANSCRIPT))
    assert (r.score, r.passed) == (1.0, False)
    assert r.feedback == "Too many tool calls: 1 > 0"


def test_tool_calls_legacy_score_floors_at_zero():
    # required "edit" fails (1 counted check) and max_calls 0 fails uncounted: the Python era
    # computed (1 - 2) / 1 = -1; scores stay in [0, 1].
    r = grade("tool_calls", {"required": ["edit"], "max_calls": 0},
              GraderContext(transcript=LEGACY_TRANSCRIPT))
    assert (r.score, r.passed) == (0.0, False)


def test_tool_calls_new_form_counts_and_expectations():
    calls = [ToolCall("bash", {"command": "ls src"}), ToolCall("view", {"path": "a.py"})]
    # required bash ok, forbidden edit ok, min 0 ok, max 1 fails (2 calls), expect BASH with
    # command regex ^ls ok -> 4 of 5.
    r = grade("tool_calls", {"required_tools": ["bash"], "forbidden_tools": ["edit"],
                             "min_calls": 0, "max_calls": 1,
                             "expect": [{"tool": "BASH", "args": {"command": {"regex": "^ls"}}}]},
              session_ctx(["bash", "view"], calls))
    assert r.score == pytest.approx(4 / 5)
    # current waza's wording (specs/waza-current.md §4.2)
    assert r.feedback == "expected at most 1 tool calls, got 2"


def test_tool_calls_new_form_arg_matchers():
    calls = [ToolCall("write", {"path": "out.json", "size": 7})]
    c = session_ctx(["write"], calls)
    ok = {"expect": [{"tool": "write", "args": {"path": {"equals": "out.json"},
                                                "size": {"range": [1, 10]}}}]}
    assert grade("tool_calls", ok, c).passed is True
    bad = {"expect": [{"tool": "write", "args": {"size": {"json_schema": {"type": "string"}}}}]}
    r = grade("tool_calls", bad, c)
    assert (r.score, r.passed) == (0.0, False)
    # current waza's range matcher form {gte, lte, gt, lt}: 7 is in [1, 10) but not > 7
    assert grade("tool_calls", {"expect": [{"tool": "write", "args": {
        "size": {"range": {"gte": 1, "lt": 10}}}}]}, c).passed is True
    assert grade("tool_calls", {"expect": [{"tool": "write", "args": {
        "size": {"range": {"gt": 7}}}}]}, c).passed is False


def test_tool_calls_current_feedback_strings():
    # specs/waza-current.md §4.2: one check per name, bound and expectation; 0 of 4 pass
    calls = [ToolCall("edit", {"path": "a.py"})]
    r = grade("tool_calls", {"required_tools": ["bash"], "forbidden_tools": ["edit"],
                             "min_calls": 2, "expect": [{"tool": "edit",
                                                         "args": {"command": {"equals": "x"}}}]},
              session_ctx(["edit"], calls))
    assert r.score == 0.0
    assert r.feedback == ('required tool "bash" was not called; forbidden tool "edit" was '
                          'called; expected at least 2 tool calls, got 1; expectation '
                          'tool="edit" not satisfied: argument "command": not present on '
                          'tool call')
    ok = grade("tool_calls", {"max_calls": 1}, session_ctx(["edit"], calls))
    assert (ok.score, ok.passed, ok.feedback) == (1.0, True, "all tool_calls checks passed")
    none = grade("tool_calls", {"max_calls": 1}, GraderContext())
    assert (none.score, none.feedback) == (0.0, "no session data available for tool_calls "
                                                "grading")


def test_tool_calls_min_greater_than_max_is_error():
    with pytest.raises(GraderConfigError, match="min_calls 3 is greater than max_calls 1"):
        grade("tool_calls", {"min_calls": 3, "max_calls": 1}, GraderContext())


def test_tool_calls_mixed_forms_is_error():
    with pytest.raises(GraderConfigError, match="mixes"):
        grade("tool_calls", {"required": ["x"], "required_tools": ["x"]}, GraderContext())


def test_behavior_max_iterations_is_not_a_grader_key():
    # §6.8: "(`max_iterations` exists only in the ungraded `expected.behavior`.)"
    with pytest.raises(GraderConfigError, match="key max_iterations"):
        grade("behavior", {"max_iterations": 3}, GraderContext())


def test_context_file_defaults():
    # §4: tool_calls default to the session digest's calls; errors to the events whose type
    # or content contains "error" (case-sensitive, §6.1).
    c = GraderContext.from_dict({
        "output": "x", "transcript": [{"type": "session.error"}, {"type": "m", "content": "ERROR"}],
        "session": {"tool_call_count": 1, "tools_used": ["bash"],
                    "tool_calls": [{"name": "bash", "arguments": {"command": "ls"},
                                    "result": "ok", "success": True}], "usage": None}})
    assert c.tool_calls == [{"name": "bash", "arguments": {"command": "ls"}, "result": "ok",
                             "success": True}]
    assert c.errors == [{"type": "session.error"}]
    assert c.session.tools_used == ["bash"]


# --- keys added by current waza (specs/waza-current.md §4.2) --------------------------------

def test_skill_invocation_forbidden_skills():
    # any forbidden invocation: score 0 and failed, whatever the required skills did
    r = grade("skill_invocation", {"required_skills": ["a"], "mode": "any_order",
                                   "forbidden_skills": ["b", "c"]}, skills("a", "c", "b", "c"))
    assert (r.score, r.passed, r.feedback) == (0.0, False, "Forbidden skills invoked: c, b")
    # forbidden-only needs no mode
    r = grade("skill_invocation", {"forbidden_skills": ["b"]}, skills("a"))
    assert (r.score, r.passed, r.feedback) == (1.0, True, "Forbidden skills were not invoked")
    # with required skills and nothing forbidden invoked: the old verdict (F1 of [a] vs [a])
    r = grade("skill_invocation", {"required_skills": ["a"], "mode": "exact_match",
                                   "forbidden_skills": ["b"]}, skills("a"))
    assert (r.score, r.passed) == (1.0, True)


def test_tool_constraint_allow_only_and_args():
    calls = [ToolCall("View", {"path": "a.py"}), ToolCall("bash", {"command": "rm -rf x"})]
    ctx = session_ctx(["View", "bash"], calls)
    # allow_only (exact names, case-insensitive): bash is outside -> 1 failed check of 1
    r = grade("tool_constraint", {"allow_only": ["view"]}, ctx)
    assert (r.score, r.passed, r.feedback) == (0.0, False, "Tool not in allow_only: bash")
    assert grade("tool_constraint", {"allow_only": ["view", "BASH"]}, ctx).passed is True
    assert grade("tool_constraint", {"allow_only": []}, session_ctx([], [])).passed is True
    # args matchers on an expect item: the view call's path equals a.py -> passes;
    # a reject item whose args do not match any call -> passes too: 2 of 2
    r = grade("tool_constraint", {
        "expect_tools": [{"tool": "view", "args": {"path": {"equals": "a.py"}}}],
        "reject_tools": [{"tool": "bash", "args": {"command": {"regex": "^git "}}}]}, ctx)
    assert (r.score, r.passed) == (1.0, True)
    r = grade("tool_constraint", {
        "expect_tools": [{"tool": "view", "args": {"path": {"contains": "b.py"}}}]}, ctx)
    assert (r.score, r.passed) == (0.0, False)
