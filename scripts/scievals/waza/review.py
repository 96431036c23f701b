"""The review page of one model: per task, every failed grader with its feedback.

Written twice from the same walk over the outcomes: Markdown (``review/<model>.md``, for a
terminal or a repository) and HTML (``review/<model>.html``, the page the Snakemake report
shows: it shows a Markdown file as plain text, backticks and all)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from html import escape


def _headline(outcome: Mapping) -> str:
    summary = outcome["summary"]
    return (f"{summary['succeeded']}/{summary['total_tests']} tasks passed, "
            f"weighted score {summary['weighted_score']:.3f}.")


def _failed_runs(outcome: Mapping) -> Iterator[tuple[Mapping, Mapping, list[tuple]]]:
    """(task, run, problems) per run with a problem; a problem is ``("error", message)`` or
    ``("grader", name, type, score, feedback)``."""
    for task in outcome["tasks"]:
        for run in task["runs"]:
            problems: list[tuple] = [("grader", name, v["type"], v["score"], v["feedback"])
                                     for name, v in (run.get("validations") or {}).items()
                                     if not v["passed"]]
            if run.get("error_msg"):
                problems.insert(0, ("error", run["error_msg"]))
            if problems:
                yield task, run, problems


def review(model: str, outcomes: Mapping[str, Mapping]) -> str:
    """Markdown: per task, every failed grader with its feedback (and run errors)."""
    lines = [f"# waza review: {model}", ""]
    for suite, outcome in outcomes.items():
        lines += [f"## {suite} ({outcome.get('eval_name', suite)})", "", _headline(outcome), ""]
        failures = 0
        for task, run, problems in _failed_runs(outcome):
            failures += 1
            lines.append(f"- **{task['test_id']}** run {run['run_number']} ({run['status']})")
            lines += [f"  - run error: {p[1]}" if p[0] == "error"
                      else f"  - `{p[1]}` ({p[2]}, score {p[3]:.2f}): {p[4]}" for p in problems]
        if not failures:
            lines.append("Every grader passed in every run.")
        lines.append("")
    return "\n".join(lines)


def review_html(model: str, outcomes: Mapping[str, Mapping]) -> str:
    """The same review as a self-contained HTML page (grader names as code)."""
    body = [f"<h1>waza review: {escape(model)}</h1>"]
    for suite, outcome in outcomes.items():
        body += [f"<h2>{escape(suite)} ({escape(str(outcome.get('eval_name', suite)))})</h2>",
                 f"<p>{escape(_headline(outcome))}</p>"]
        items = []
        for task, run, problems in _failed_runs(outcome):
            shown = [f"run error: {escape(str(p[1]))}" if p[0] == "error"
                     else f"<code>{escape(str(p[1]))}</code> ({escape(str(p[2]))}, score "
                     f"{p[3]:.2f}): {escape(str(p[4]))}" for p in problems]
            items.append(f"<li><strong>{escape(str(task['test_id']))}</strong> run "
                         f"{escape(str(run['run_number']))} ({escape(str(run['status']))})<ul>"
                         + "".join(f"<li>{line}</li>" for line in shown) + "</ul></li>")
        body.append(f"<ul>{''.join(items)}</ul>" if items
                    else "<p>Every grader passed in every run.</p>")
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
            f"<title>waza review: {escape(model)}</title><style>body{{font-family:sans-serif;"
            "margin:1em}</style></head><body>" + "".join(body) + "</body></html>\n")
