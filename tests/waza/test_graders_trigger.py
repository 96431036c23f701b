"""The heuristic `trigger` grader (specs/waza.md §6.12); keyword sets worked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from scievals.waza.graders.base import GraderConfigError, GraderContext
from scievals.waza.graders.registry import grade
from scievals.waza.graders.trigger import tokenize, use_for_phrases

SKILL = """---
name: code-explainer
description: "Explains code. USE FOR: explain this code, walk me through. \
  DO NOT USE FOR: writing new code."
---
Explains Python functions step by step.
"""


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    (tmp_path / "SKILL.md").write_text(SKILL)
    return tmp_path


def task(prompt: str) -> GraderContext:
    return GraderContext(task={"id": "t", "inputs": {"prompt": prompt}})


def test_tokenize_drops_short_tokens_and_stop_words():
    # §6.12: "lowercase, split on non letter/digit, drop tokens <3 chars and 32 stop-words".
    assert tokenize("Can you walk me through THIS code-base, OK?") == ["walk", "through",
                                                                         "code", "base"]


def test_use_for_phrases_stop_at_do_not_use_for():
    desc = "Explains code. USE FOR: explain this code, walk me through. DO NOT USE FOR: x."
    assert use_for_phrases(desc) == ["explain this code", "walk me through"]


def test_phrase_substring_scores_one(skill):
    r = grade("trigger", {"skill_path": str(skill), "mode": "positive"},
              task("Please explain this code to me"))
    assert (r.score, r.passed) == (1.0, True)
    assert r.feedback == "Prompt is trigger-aligned (score 1.00 >= 0.60)"


def test_partial_phrase_below_threshold(skill):
    # Prompt tokens: walk, dog, feed, cat -> 1 keyword (walk) of 4 = 0.25; phrase
    # "walk me through" -> tokens walk, through -> 1 of 2 = 0.5. score = max = 0.5.
    r = grade("trigger", {"skill_path": str(skill / "SKILL.md"), "mode": "positive"},
              task("walk the dog and feed the cat"))
    assert r.score == 0.5
    assert r.feedback == "Prompt is not trigger-aligned enough (score 0.50 < 0.60)"


def test_negative_mode(skill):
    # Tokens write, sorting, function, rust: none is a keyword ("functions" is) -> 0.
    r = grade("trigger", {"skill_path": str(skill), "mode": "negative"},
              task("Write a sorting function in Rust"))
    assert (r.score, r.passed) == (0.0, True)
    assert r.feedback == "Prompt correctly treated as non-trigger (score 0.00 < 0.60)"


def test_body_keywords_count_and_custom_threshold(skill):
    # Tokens python, step, rust -> python and step are body keywords: 2/3.
    r = grade("trigger", {"skill_path": str(skill), "mode": "negative", "threshold": 0.5},
              task("python step rust"))
    assert r.score == pytest.approx(2 / 3)
    assert r.passed is False
    assert r.feedback == "Prompt appears trigger-aligned unexpectedly (score 0.67 >= 0.50)"


def test_no_prompt_tokens_scores_zero_and_no_task_fails(skill):
    # §6.12: "no prompt -> 0".
    r = grade("trigger", {"skill_path": str(skill), "mode": "positive"}, task("a b"))
    assert r.score == 0.0
    r = grade("trigger", {"skill_path": str(skill), "mode": "negative"}, GraderContext())
    assert (r.score, r.passed, r.feedback) == (0.0, False,
                                               "trigger grader requires test case prompt")


def test_config_errors(skill):
    with pytest.raises(GraderConfigError, match="mode"):
        grade("trigger", {"skill_path": str(skill), "mode": "maybe"}, GraderContext())
    with pytest.raises(GraderConfigError, match="threshold"):
        grade("trigger", {"skill_path": str(skill), "mode": "positive", "threshold": 1.5},
              GraderContext())
    with pytest.raises(GraderConfigError, match="skill_path"):
        grade("trigger", {"mode": "positive"}, GraderContext())


def test_duplicate_tokens_do_not_dilute_the_score(tmp_path):
    # waza's DuplicateTokensDoNotDiluteScore: "deploy deploy deploy" against a deploy skill
    # is one unique token, matched -> 1/1 = 1.0 (dividing by all three tokens gave 1/3 before)
    (tmp_path / "SKILL.md").write_text("---\nname: deploy\ndescription: Deploys apps.\n---\n")
    r = grade("trigger", {"skill_path": str(tmp_path), "mode": "positive"},
              task("deploy deploy deploy"))
    assert (r.score, r.passed) == (1.0, True)
