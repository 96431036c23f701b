"""Go ``trigger``: a keyword heuristic for whether a prompt should load a skill (no LLM)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scievals.common.errors import ScievalsError
from scievals.common.io import parse_yaml
from scievals.waza.graders.base import (
    GraderConfigError,
    GraderContext,
    GraderOptions,
    GraderResult,
)
from scievals.waza.graders._common import Config

DEFAULT_THRESHOLD = 0.6
STOP_WORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "this",
        "that",
        "from",
        "into",
        "your",
        "you",
        "are",
        "was",
        "were",
        "what",
        "when",
        "where",
        "how",
        "why",
        "not",
        "can",
        "should",
        "use",
        "using",
        "about",
        "have",
        "has",
        "had",
        "but",
        "all",
        "any",
        "too",
        "out",
        "get",
        "let",
        "help",
    ]
)
_QUOTED = re.compile('["\u201c\u201d]([^"\u201c\u201d]+)["\u201c\u201d]')
_TRAILING_NOTE = re.compile(r"\s*\([^)]*\)\s*$")
_WORD = re.compile(r"[^\W_]+")  # runs of letters and digits (Go: unicode.IsLetter/IsNumber)


def tokenize(text: str) -> list[str]:
    """Lowercase, split on anything but letters/digits, drop short tokens and stop-words.

    Go measures the 3-character minimum in bytes, so it is measured in UTF-8 here.
    """
    words = _WORD.findall(text.lower())
    return [w for w in words if len(w.encode()) >= 3 and w not in STOP_WORDS]


def use_for_phrases(description: str) -> list[str]:
    """The ``USE FOR:`` phrases of a skill description (quoted, else comma-separated)."""
    text = description.replace("\r\n", " ").replace("\n", " ")
    upper = text.upper()
    start, search_from = -1, 0
    while (i := upper.find("USE FOR:", search_from)) >= 0:
        if "NOT " in upper[max(0, i - 11) : i]:  # part of "DO NOT USE FOR:"
            search_from = i + len("USE FOR:")
            continue
        start = i
        break
    if start < 0:
        return []
    after = text[start + len("USE FOR:") :]
    for label in ("DO NOT USE FOR:", "INVOKES:", "FOR SINGLE OPERATIONS:"):
        cut = after.upper().find(label)
        if cut >= 0:
            after = after[:cut]
    after = after.strip().rstrip(".")
    quoted = [m.strip() for m in _QUOTED.findall(after) if m.strip()]
    if quoted:
        return quoted
    parts = (_TRAILING_NOTE.sub("", p.strip()).strip() for p in after.split(","))
    return [p for p in parts if p]


def read_skill(path: Path) -> tuple[str, str, str]:
    """Name, description and body of a SKILL.md (YAML front matter between ``---`` lines)."""
    text = path.read_text(encoding="utf-8")
    meta: dict[str, Any] = {}
    body = text
    if text.startswith("---"):
        parts = text.split("\n---", 1)
        if len(parts) == 2:
            loaded = parse_yaml(parts[0][3:], path) or {}
            if not isinstance(loaded, dict):
                raise ValueError("front matter is not a mapping")
            meta = loaded
            body = parts[1].split("\n", 1)[1] if "\n" in parts[1] else ""
    return str(meta.get("name") or ""), str(meta.get("description") or ""), body


class TriggerGrader:
    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("trigger", config, ("skill_path", "mode", "threshold"))
        skill_path = cfg.str("skill_path").strip()
        if not skill_path:
            raise GraderConfigError(
                "trigger grader config: key skill_path", "trigger grader requires skill_path"
            )
        self.mode = cfg.str("mode").strip().lower()
        if self.mode not in ("positive", "negative"):
            raise GraderConfigError(
                "trigger grader config: key mode",
                f"invalid mode {cfg.str('mode')!r}",
                "must be positive or negative",
            )
        self.threshold = cfg.float("threshold", DEFAULT_THRESHOLD)
        if not 0 <= self.threshold <= 1:
            raise GraderConfigError(
                "trigger grader config: key threshold", "threshold must be between 0 and 1"
            )
        path = Path(skill_path).absolute()
        if path.is_dir():
            path = path / "SKILL.md"
        self.skill_path = str(path)
        try:
            name, description, body = read_skill(path)
        except OSError as exc:
            raise GraderConfigError(
                f"trigger grader config: skill_path {path}", f"reading SKILL.md: {exc.strerror}"
            ) from None
        except ScievalsError as exc:  # front matter (parse_yaml): already names the file
            raise GraderConfigError("trigger grader config: skill_path", exc.one_line()) from None
        except ValueError as exc:
            raise GraderConfigError(
                f"trigger grader config: skill_path {path}", f"parsing SKILL.md: {exc}"
            ) from None
        cut = description.upper().find("DO NOT USE FOR:")
        described = description[:cut].strip() if cut >= 0 else description
        self.phrases = use_for_phrases(description)
        self.keywords = set(tokenize(f"{name} {described} {body}"))
        for phrase in self.phrases:
            self.keywords.update(tokenize(phrase))
        if not self.keywords:
            raise GraderConfigError(
                f"trigger grader config: skill_path {path}",
                "SKILL.md does not contain usable keywords",
            )

    def score(self, prompt: str) -> tuple[float, float, list[str]]:
        """(score, phrase score, matched keywords) of one prompt."""
        tokens = tokenize(prompt)
        if not tokens:
            return 0.0, 0.0, []
        matched = list(dict.fromkeys(t for t in tokens if t in self.keywords))
        # by the prompt's unique tokens: "deploy deploy deploy" is one token, fully matched
        # (waza's DuplicateTokensDoNotDiluteScore)
        token_score = len(matched) / len(set(tokens))
        phrase_score = self._phrase_score(prompt, set(tokens))
        return max(token_score, phrase_score), phrase_score, matched

    def _phrase_score(self, prompt: str, prompt_tokens: set[str]) -> float:
        best = 0.0
        low = prompt.lower()
        for phrase in self.phrases:
            phrase_low = phrase.strip().lower()
            if not phrase_low:
                continue
            if phrase_low in low:
                return 1.0
            tokens = tokenize(phrase)
            if tokens:
                best = max(best, sum(t in prompt_tokens for t in tokens) / len(tokens))
        return best

    def grade(self, context: GraderContext) -> GraderResult:
        prompt = _task_prompt(context.task)
        if prompt is None:
            return GraderResult(0.0, False, "trigger grader requires test case prompt")
        score, phrase_score, matched = self.score(prompt)
        t = self.threshold
        if self.mode == "positive":
            passed = score >= t
            feedback = (
                f"Prompt is trigger-aligned (score {score:.2f} >= {t:.2f})"
                if passed
                else f"Prompt is not trigger-aligned enough (score {score:.2f} < {t:.2f})"
            )
        else:
            passed = score < t
            feedback = (
                f"Prompt correctly treated as non-trigger (score {score:.2f} < {t:.2f})"
                if passed
                else f"Prompt appears trigger-aligned unexpectedly (score {score:.2f} >= {t:.2f})"
            )
        return GraderResult(
            score,
            passed,
            feedback,
            {
                "mode": self.mode,
                "threshold": t,
                "skill_path": self.skill_path,
                "matched_keywords": matched,
                "matched_count": len(matched),
                "keyword_count": len(self.keywords),
                "phrase_score": phrase_score,
            },
        )


def _task_prompt(task: Mapping[str, Any]) -> str | None:
    """The task's ``inputs.prompt`` (a flat ``prompt`` also counts); None without a task."""
    if not task:
        return None
    inputs = task.get("inputs")
    if isinstance(inputs, Mapping) and isinstance(inputs.get("prompt"), str):
        return inputs["prompt"]
    prompt = task.get("prompt")
    return prompt if isinstance(prompt, str) else ""


# The grader types of this family (read by graders.registry).
GRADERS = {
    "trigger": TriggerGrader,
}
