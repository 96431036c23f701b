"""The synthetic ``expected`` graders of schemaVersion 1.x tasks (specs/waza-current.md §3.4).

Current waza grades a task's ``expected.output_contains`` / ``output_not_contains`` /
``output_contains_any`` as graders named ``_output_contains`` ... with an empty type and
weight 1, after the global and task graders: a case-insensitive substring match on the
final output. Their registry types (``expected.<key>``) are internal: a suite cannot
name them (the schemas' type enum has no such value).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scievals.waza.graders._common import Config, go_list, go_quote
from scievals.waza.graders.base import GraderContext, GraderOptions, GraderResult

KEYS = ("output_contains", "output_not_contains", "output_contains_any")


class _Expected:
    key = ""

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        self.strings = Config(f"expected.{self.key}", config, ("strings",)).strs("strings")

    def _found(self, context: GraderContext) -> list[bool]:
        output = context.output.lower()
        return [s.lower() in output for s in self.strings]

    def _share(self, bad: list[str], summary: str, listed_as: str) -> GraderResult:
        """score = share of strings not in ``bad``; passes at 1.0. ``summary`` is formatted
        with ``good`` and ``total``; the bad ones are listed (feedback and details) as
        ``listed_as``."""
        total = len(self.strings)
        good = total - len(bad)
        feedback = summary.format(good=good, total=total)
        if bad:
            feedback += f"; {listed_as}: {go_list(bad)}"
        score = good / total if total else 1.0
        return GraderResult(score, score == 1.0, feedback, {listed_as: bad})


class OutputContains(_Expected):
    """score = matched / total; passes at 1.0."""

    key = "output_contains"

    def grade(self, context: GraderContext) -> GraderResult:
        missing = [s for s, hit in zip(self.strings, self._found(context), strict=True)
                   if not hit]
        return self._share(missing, "matched {good}/{total} required strings", "missing")


class OutputNotContains(_Expected):
    """score = absent / total; passes at 1.0."""

    key = "output_not_contains"

    def grade(self, context: GraderContext) -> GraderResult:
        found = [s for s, hit in zip(self.strings, self._found(context), strict=True) if hit]
        return self._share(found, "{good}/{total} excluded strings absent", "found")


class OutputContainsAny(_Expected):
    """1 if any accepted string appears (the first one is named), else 0."""

    key = "output_contains_any"

    def grade(self, context: GraderContext) -> GraderResult:
        hit = next((s for s, ok in zip(self.strings, self._found(context), strict=True) if ok),
                   None)
        if hit is None:
            return GraderResult(0.0, False, "none of the accepted strings found", {})
        return GraderResult(1.0, True, f"found accepted string: {go_quote(hit)}",
                            {"matched": hit})


GRADERS = {f"expected.{cls.key}": cls
           for cls in (OutputContains, OutputNotContains, OutputContainsAny)}
