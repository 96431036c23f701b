"""LLM-judge graders (specs/waza.md §6.7) with scripted judges, and the judge through the
LLM layer's offline ``mock`` provider and its cache."""

from __future__ import annotations

import json

import pytest
from scievals.llm.base import ModelSpec
from scievals.llm.settings import LLMSettings
from scievals.waza.graders.base import GraderContext, GraderError, GraderOptions
from scievals.waza.graders.registry import grade
from scievals.waza.graders.judge import LLMJudge


class Scripted:
    """A judge replying from a list, recording the prompts it saw."""

    def __init__(self, *replies) -> None:
        self.replies = list(replies)
        self.prompts: list[tuple[str, str, str]] = []
        self.schemas: list[dict | None] = []

    def ask(self, case_id: str, prompt: str, model: str = "", json_schema=None) -> str:
        self.prompts.append((case_id, prompt, model))
        self.schemas.append(json_schema)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply if isinstance(reply, str) else json.dumps(reply)


def opts(judge, model: str = "") -> GraderOptions:
    return GraderOptions(judge=judge, judge_model=model)


def grades(*verdicts: tuple[str, str, str]) -> dict:
    return {"grades": [{"verdict": v, "description": d, "reason": r} for v, d, r in verdicts]}


def test_prompt_score_is_passes_over_calls():
    # §6.7: "score = passes/(passes+fails) ... passed = fails==0 and passes>0 ... `;`-joined
    # `fail: <description>: <reason>`". 2 passes, 1 fail -> 2/3, not passed.
    judge = Scripted(grades(("pass", "a", ""), ("pass", "b", ""), ("fail", "tone", "rude")))
    r = grade("prompt", {"prompt": "Is it polite?"}, GraderContext(output="hi"), opts(judge))
    assert r.score == pytest.approx(2 / 3)
    assert r.passed is False
    assert r.feedback == "fail: tone: rude"


def test_prompt_no_calls_scores_zero_with_all_passed_feedback():
    # §6.7: "0 with no calls ... Feedback `All prompts passed` (even with no calls)".
    r = grade("prompt", {"prompt": "x"}, GraderContext(), opts(Scripted({"grades": []})))
    assert (r.score, r.passed, r.feedback) == (0.0, False, "All prompts passed")


def test_prompt_two_fails_joined_and_judge_model_default():
    judge = Scripted(grades(("fail", "a", "r1"), ("fail", "b", "r2")))
    r = grade("prompt", {"prompt": "x"}, GraderContext(), opts(judge, "judge-1"))
    assert r.feedback == "fail: a: r1;fail: b: r2"
    assert judge.prompts[0][2] == "judge-1"  # config.judge_model is the default model
    judge = Scripted(grades(("pass", "a", "")))
    grade("prompt", {"prompt": "x", "model": "own"}, GraderContext(), opts(judge, "judge-1"))
    assert judge.prompts[0][2] == "own"


def test_prompt_pairwise_consistent_and_inconsistent():
    # §6.7: "Run twice with positions swapped; inconsistent verdicts become tie/equal. Score
    # skill 1.0 / tie 0.5 / baseline 0.0; passed iff winner is skill or tie".
    c = GraderContext(output="skill out", baseline_output="base out")
    cfg = {"prompt": "better?", "mode": "pairwise"}
    # Run 1: A = skill wins; run 2: B = skill wins -> consistent skill.
    r = grade("prompt", cfg, c, opts(Scripted({"winner": "A"}, {"winner": "B"})))
    assert (r.score, r.passed) == (1.0, True)
    # Run 1: B = baseline; run 2: A = baseline -> baseline.
    r = grade("prompt", cfg, c, opts(Scripted({"winner": "B"}, {"winner": "A"})))
    assert (r.score, r.passed) == (0.0, False)
    # Run 1: A (skill), run 2: A (baseline) -> inconsistent -> tie.
    r = grade("prompt", cfg, c, opts(Scripted({"winner": "A", "magnitude": "strong"},
                                              {"winner": "A"})))
    assert (r.score, r.passed) == (0.5, True)
    assert r.details["magnitude"] == "equal"


def test_prompt_pairwise_prompt_layout():
    judge = Scripted({"winner": "tie"}, {"winner": "tie"})
    grade("prompt", {"prompt": "R", "mode": "pairwise"},
          GraderContext(output="S", baseline_output="B"), opts(judge))
    first = judge.prompts[0][1]
    assert first.startswith("## Rubric\nR\n\n## Output A\n```\nS\n```\n\n## Output B\n```\nB\n```")


def test_prompt_pairwise_without_baseline_is_independent():
    judge = Scripted(grades(("pass", "a", "")))
    r = grade("prompt", {"prompt": "x", "mode": "pairwise"}, GraderContext(), opts(judge))
    assert (r.score, r.details["mode"]) == (1.0, "independent")


def test_prompt_errors():
    with pytest.raises(GraderError, match="no judge"):
        grade("prompt", {"prompt": "x"}, GraderContext(), GraderOptions())
    with pytest.raises(GraderError, match="not JSON"):
        grade("prompt", {"prompt": "x"}, GraderContext(), opts(Scripted("I think it passes")))
    # §6.7: "`continue_session` resumes the agent's session (an error without a session id)".
    with pytest.raises(GraderError, match="session id"):
        grade("prompt", {"prompt": "x", "continue_session": True}, GraderContext(),
              opts(Scripted()))


def test_llm_score_mapping_ignores_judge_passed():
    # §6.7: "score = (raw−1)/4; passed = score ≥ `threshold` (0.75); the judge's `passed` is
    # ignored; missing score = 3". raw 4 -> 0.75 -> passed.
    r = grade("llm", {"rubric": "Score 1-5"}, GraderContext(task={"name": "t"}),
              opts(Scripted({"score": 4, "passed": False, "reasoning": "good"})))
    assert (r.score, r.passed, r.feedback) == (0.75, True, "good")
    r = grade("llm", {}, GraderContext(), opts(Scripted({"reasoning": "?"})))
    assert (r.score, r.passed) == (0.5, False)


def test_llm_judge_failure_scores_zero_and_prompt_sections():
    # §6.7: "other exceptions score 0".
    r = grade("llm", {}, GraderContext(), opts(Scripted(GraderError("judge", "down"))))
    assert (r.score, r.passed) == (0.0, False)
    assert r.feedback == "LLM grading failed: down"
    judge = Scripted({"score": 5})
    grade("llm", {"rubric": "Score well"}, GraderContext(
        output="OUT", task={"name": "N", "description": "D", "inputs": {"prompt": "P"}}),
        opts(judge))
    prompt = judge.prompts[0][1]
    assert "## Task\nN\nD\n\n## Input\nP\n\n## Output\nOUT\n\n## Rubric\nScore well" in prompt


def test_llm_comparison():
    # §6.7: "similarity 1–5, score = (raw−1)/4; passed = the judge's `passed` if present, else
    # ≥0.75; exception = raw 3; no reference scores 0".
    c = GraderContext(output="x")
    r = grade("llm_comparison", {"reference": "y"}, c, opts(Scripted({"score": 5})))
    assert (r.score, r.passed) == (1.0, True)
    r = grade("llm_comparison", {"reference": "y"}, c,
              opts(Scripted({"score": 5, "passed": False})))
    assert (r.score, r.passed) == (1.0, False)
    r = grade("llm_comparison", {"reference": "y"}, c, opts(Scripted(GraderError("j", "down"))))
    assert (r.score, r.passed) == (0.5, False)
    r = grade("llm_comparison", {}, c, opts(Scripted()))
    assert (r.score, r.feedback) == (0.0, "No reference output configured")


def test_llm_judge_through_mock_provider_is_cached(tmp_path):
    reply = json.dumps(grades(("pass", "ok", "fine")))
    spec = ModelSpec(name="judge", provider="mock", responses={"*": reply})
    settings = LLMSettings(cache_dir=tmp_path / "cache")
    judge = LLMJudge(spec, settings)
    r1 = grade("prompt", {"prompt": "check"}, GraderContext(output="o"), opts(judge))
    cached = sorted(p for p in (tmp_path / "cache").rglob("*") if p.is_file())
    assert cached, "the judge reply is written to the LLM cache"
    r2 = grade("prompt", {"prompt": "check"}, GraderContext(output="o"), opts(judge))
    assert (r1.score, r2.score) == (1.0, 1.0)
    assert r1.details["model"] == "judge"  # the registry model that answered
    assert sorted(p for p in (tmp_path / "cache").rglob("*") if p.is_file()) == cached


def test_prompt_rubric_presets_and_files(tmp_path):
    # current waza's rubric prompt: body, ---, then the non-empty sections in order
    judge = Scripted(grades(("pass", "grounded", "")))
    ctx = GraderContext(output="It returns 4.", task={"inputs": {"prompt": "What is 2+2?"}})
    r = grade("prompt", {"rubric": "groundedness"}, ctx, opts(judge))
    prompt = judge.prompts[0][1]
    assert prompt.index("factual claim") < prompt.index("---") < prompt.index(
        "## Task input\n\nWhat is 2+2?") < prompt.index("## Candidate output\n\nIt returns 4.")
    assert "## Source context" not in prompt  # no workspace: the section is left out
    assert r.details["rubric"] == {"name": "groundedness", "builtin": True}
    rubric = tmp_path / "tone.md"
    rubric.write_text("---\nname: tone\nversion: 1.0.0\nscale: pass-fail\n"
                      "goldens: [{input: a}]\n---\nIs the answer polite?\n")
    judge = Scripted(grades(("pass", "polite", "")))
    r = grade("prompt", {"rubric": str(rubric)}, ctx, opts(judge))
    assert judge.prompts[0][1].startswith("Is the answer polite?\n\n---")
    assert r.details["rubric"]["name"] == "tone" and "goldens" not in r.details["rubric"]
    # config.prompt overrides the rubric body
    judge = Scripted(grades(("pass", "x", "")))
    grade("prompt", {"rubric": "helpfulness", "prompt": "Own words."}, ctx, opts(judge))
    assert judge.prompts[0][1].startswith("Own words.\n\n---")
    with pytest.raises(Exception, match="unknown built-in rubric 'kindness'"):
        grade("prompt", {"rubric": "kindness"}, ctx, opts(judge))


def test_each_judge_is_sent_the_schema_of_the_reply_it_is_asked_for():
    from jsonschema import validate
    from scievals.llm.structured import strict_problems
    from scievals.waza.graders.judge import GRADES_SCHEMA, PAIRWISE_SCHEMA, SCORE_SCHEMA

    for reply_schema in (GRADES_SCHEMA, PAIRWISE_SCHEMA, SCORE_SCHEMA):
        assert strict_problems(reply_schema["schema"]) == []
    judge = Scripted(grades(("pass", "a", "")))
    grade("prompt", {"prompt": "x"}, GraderContext(), opts(judge))
    pair = Scripted({"winner": "A", "magnitude": "slight", "reasoning": "r"},
                    {"winner": "B", "magnitude": "slight", "reasoning": "r"})
    grade("prompt", {"prompt": "x", "mode": "pairwise"},
          GraderContext(output="S", baseline_output="B"), opts(pair))
    legacy = Scripted({"score": 4, "reasoning": "ok", "passed": True})
    grade("llm", {"rubric": "Score it"}, GraderContext(output="o"), opts(legacy))
    assert judge.schemas == [GRADES_SCHEMA]
    assert pair.schemas == [PAIRWISE_SCHEMA] * 2
    assert legacy.schemas == [SCORE_SCHEMA]
    # the replies the protocols ask for fit their schemas
    validate(grades(("fail", "tone", "rude")), GRADES_SCHEMA["schema"])
    validate({"winner": "tie", "magnitude": "slight", "reasoning": ""}, PAIRWISE_SCHEMA["schema"])
    validate({"score": 4, "reasoning": "", "passed": True}, SCORE_SCHEMA["schema"])
