"""Go ``code``: Python assertions over the run, evaluated by the safe evaluator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scievals.waza.graders.base import (
    GraderConfigError,
    GraderContext,
    GraderOptions,
    GraderResult,
)
from scievals.waza.graders._common import Config
from scievals.waza.graders.sandbox.safe_eval import shared_evaluator


class CodeGrader:
    """score = passed / assertions; feedback ``Failed: <a>[: <error>]`` joined by ``; ``.

    ``language: javascript`` (waza runs it with node) is refused at build time:
    there is no sandboxed JavaScript evaluator here.
    """

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("code", config, ("assertions", "language"))
        self.assertions = cfg.strs("assertions")
        language = cfg.str("language", "python") or "python"
        if language != "python":
            hint = (
                "JavaScript assertions are not supported here; write them in Python"
                if language == "javascript"
                else "use python"
            )
            raise GraderConfigError(
                "code grader config: key language",
                f"language '{language}' is not yet supported with inline scripts",
                hint,
            )

    def grade(self, context: GraderContext) -> GraderResult:
        return self.grade_many([context])[0]

    def grade_many(self, contexts: list[GraderContext]) -> list[GraderResult]:
        """Grade many runs with few worker round trips (see ``context.grade_all``)."""
        if not self.assertions:
            return [GraderResult(1.0, True, "No assertions configured") for _ in contexts]
        items = [(_payload(c), self.assertions) for c in contexts]
        return [self._result(r) for r in shared_evaluator().evaluate_many(items)]

    def _result(self, results: list[str]) -> GraderResult:
        failures = []
        for assertion, result in zip(self.assertions, results, strict=True):
            if result == "fail":
                failures.append(f"Failed: {assertion}")
            elif result:
                failures.append(f"Failed: {assertion}: {result}")
        passed = len(self.assertions) - len(failures)
        return GraderResult(
            passed / len(self.assertions),
            not failures,
            "; ".join(failures) or "All assertions passed",
            {"total_assertions": len(self.assertions), "passed_assertions": passed,
             "failures": failures},
        )


def _payload(context: GraderContext) -> dict:
    """What waza's wrapper receives on stdin (``outcome`` defaults to ``{}``)."""
    return {"output": context.output, "outcome": context.outcome or {},
            "transcript": context.transcript, "tool_calls": context.tool_calls,
            "errors": context.errors, "duration_ms": context.duration_ms}


# The grader types of this family (read by graders.registry).
GRADERS = {
    "code": CodeGrader,
}
