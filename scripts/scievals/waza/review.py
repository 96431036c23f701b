"""The review page of one model: per task, every failed grader with its feedback."""

from __future__ import annotations

from collections.abc import Mapping


def review(model: str, outcomes: Mapping[str, Mapping]) -> str:
    """Markdown: per task, every failed grader with its feedback (and run errors)."""
    lines = [f"# waza review: {model}", ""]
    for suite, outcome in outcomes.items():
        summary = outcome["summary"]
        lines += [f"## {suite} ({outcome.get('eval_name', suite)})", "",
                  (f"{summary['succeeded']}/{summary['total_tests']} tasks passed, "
                   f"weighted score {summary['weighted_score']:.3f}."), ""]
        failures = 0
        for task in outcome["tasks"]:
            for run in task["runs"]:
                problems = [f"`{name}` ({v['type']}, score {v['score']:.2f}): {v['feedback']}"
                            for name, v in (run.get("validations") or {}).items()
                            if not v["passed"]]
                if run.get("error_msg"):
                    problems.insert(0, f"run error: {run['error_msg']}")
                if problems:
                    failures += 1
                    lines.append(f"- **{task['test_id']}** run {run['run_number']} "
                                 f"({run['status']})")
                    lines += [f"  - {p}" for p in problems]
        if not failures:
            lines.append("Every grader passed in every run.")
        lines.append("")
    return "\n".join(lines)
