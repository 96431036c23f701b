"""Output-text graders: Go ``text``, the removed Go ``keyword``, Python-era ``regex``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scievals.waza.graders.base import GraderContext, GraderOptions, GraderResult
from scievals.waza.graders._common import Config, checks_result, go_quote
from scievals.waza.graders.sandbox.regex import RegexError, compile_re2

_TEXT_KEYS = (
    "contains",
    "not_contains",
    "contains_cs",
    "not_contains_cs",
    "regex_match",
    "regex_not_match",
)


class TextGrader:
    """Substrings (lowercased or case-sensitive) and RE2 regexes; one check per entry."""

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("text", config, _TEXT_KEYS)
        self.lists = {key: cfg.strs(key) for key in _TEXT_KEYS}

    def grade(self, context: GraderContext) -> GraderResult:
        out = context.output
        low = out.lower()
        failures = []
        for s in self.lists["contains"]:
            if s.lower() not in low:
                failures.append(f"Missing expected substring: {s}")
        for s in self.lists["not_contains"]:
            if s.lower() in low:
                failures.append(f"Found forbidden substring: {s}")
        for s in self.lists["contains_cs"]:
            if s not in out:
                failures.append(f"Missing expected substring (case-sensitive): {s}")
        for s in self.lists["not_contains_cs"]:
            if s in out:
                failures.append(f"Found forbidden substring (case-sensitive): {s}")
        for key, must, message in (
            ("regex_match", True, "Missing expected pattern: "),
            ("regex_not_match", False, "Found forbidden pattern: "),
        ):
            for pattern in self.lists[key]:
                try:
                    found = compile_re2(pattern).search(out) is not None
                except RegexError as exc:
                    failures.append(f"Invalid {key} pattern {go_quote(pattern)}: {exc}")
                    continue
                if found != must:
                    failures.append(message + pattern)
        total = sum(len(v) for v in self.lists.values())
        return checks_result(failures, total, "All text checks passed", dict(self.lists))


class KeywordGrader:
    """Removed Go ``keyword``: case-insensitive ``must_contain`` (alias ``keywords``)."""

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("keyword", config, ("must_contain", "keywords", "must_not_contain"))
        self.must = cfg.strs("must_contain") + cfg.strs("keywords")
        self.must_not = cfg.strs("must_not_contain")

    def grade(self, context: GraderContext) -> GraderResult:
        low = context.output.lower()
        failures = [f"Missing expected keyword: {k}" for k in self.must if k.lower() not in low]
        failures += [f"Found forbidden keyword: {k}" for k in self.must_not if k.lower() in low]
        return checks_result(
            failures,
            len(self.must) + len(self.must_not),
            "All keyword checks passed",
            {"must_contain": self.must, "must_not_contain": self.must_not},
        )


def _bare_error(pattern: str, fallback: RegexError) -> RegexError:
    try:
        compile_re2(pattern)
    except RegexError as exc:
        return exc
    return fallback


class LegacyRegexGrader:
    """Python-era ``regex``: ``must_match``/``must_not_match``, case-insensitive.

    Matching uses RE2 with ``(?i)`` so patterns behave as in the Go tool; a
    pattern RE2 rejects is a failed check (the Python era crashed instead).
    """

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("regex", config, ("must_match", "must_not_match"))
        self.must = cfg.strs("must_match")
        self.must_not = cfg.strs("must_not_match")

    def grade(self, context: GraderContext) -> GraderResult:
        failures = []
        for key, patterns, must, message in (
            ("must_match", self.must, True, "Missing expected pattern: "),
            ("must_not_match", self.must_not, False, "Found forbidden pattern: "),
        ):
            for pattern in patterns:
                try:
                    found = compile_re2("(?i)" + pattern).search(context.output) is not None
                except RegexError as exc:
                    # worded for the pattern as written (waza's regex grader compiles it
                    # without the case-insensitive prefix)
                    failures.append(f"Invalid {key} pattern {go_quote(pattern)}: "
                                    f"{_bare_error(pattern, exc)}")
                    continue
                if found != must:
                    failures.append(message + pattern)
        return checks_result(
            failures,
            len(self.must) + len(self.must_not),
            "All patterns matched",
            {"must_match": self.must, "must_not_match": self.must_not},
        )


# The grader types of this family (read by graders.registry).
GRADERS = {
    "text": TextGrader,
    "keyword": KeywordGrader,
    "regex": LegacyRegexGrader,
}
