"""Reports of one results JSON for CI: JUnit XML (``--reporter junit:PATH``) and the
markdown pull-request comment (``--format github-comment``), as current waza lays them out
(specs/waza-current.md §6.2, §6.3).

One deviation, on purpose: waza writes reporters only when the run had no failing task
(its run command returns the failure first); here the JUnit file is written whatever the
outcome, which is what a CI job needs to show the failures.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping

from scievals.common.errors import ScievalsError


def parse_reporter(spec: str) -> tuple[str, str]:
    """``json`` (a no-op: JSON comes from ``-o``) or ``junit:<path>``; anything else is an
    error, as in waza."""
    kind, _, path = spec.partition(":")
    if kind == "json" and not path:
        return "json", ""
    if kind == "junit" and path:
        return "junit", path
    raise ScievalsError(f"--reporter {spec}", "unknown reporter or empty path",
                        "use junit:<path> (or json, which -o already writes)")


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.3f}"


def _failed_graders(run: Mapping) -> list[str]:
    lines = []
    for name, v in sorted((run.get("validations") or {}).items()):
        if not v.get("passed"):
            lines.append(f"[FAIL] {name} ({v.get('type', '')}): score={v['score']:.2f} — "
                         f"{v.get('feedback', '')}")
    return lines


def junit_xml(outcome: Mapping) -> str:
    """One ``<testcase>`` per task: ``<failure>`` for a failed task (its body: the failed
    graders of the first run that did not pass), ``<error>`` for status ``error``,
    ``<skipped>`` for a skipped one."""
    tasks = outcome["tasks"]
    summary = outcome["summary"]
    config = outcome.get("config") or {}
    failures = sum(1 for t in tasks if t["status"] == "failed")
    errors = sum(1 for t in tasks if t["status"] == "error")
    skipped = sum(1 for t in tasks if t["status"] == "skipped")
    total_time = _seconds(summary.get("duration_ms") or 0)
    counts = {"tests": str(len(tasks)), "failures": str(failures), "errors": str(errors)}
    root = ET.Element("testsuites", {**counts, "time": total_time})
    suite = ET.SubElement(root, "testsuite", {
        "name": str(outcome.get("eval_name", "")), **counts, "skipped": str(skipped),
        "time": total_time, "timestamp": str(outcome.get("timestamp", ""))})
    properties = ET.SubElement(suite, "properties")
    for name, value in (("skill", outcome.get("skill", "")),
                        ("model", config.get("model_id", "")),
                        ("engine", config.get("engine_type", "")),
                        ("score", f"{summary.get('aggregate_score', 0.0):.4f}")):
        ET.SubElement(properties, "property", {"name": name, "value": str(value)})
    for task in tasks:
        stats = task.get("stats") or {}
        name = str(task.get("display_name") or task["test_id"])
        case = ET.SubElement(suite, "testcase", {
            "name": name, "classname": str(outcome.get("skill", "")),
            "time": _seconds(stats.get("avg_duration_ms") or 0)})
        if task["status"] == "failed":
            failure = ET.SubElement(case, "failure", {
                "message": f"{name}: score={stats.get('avg_score', 0.0):.2f}",
                "type": "GraderFailure"})
            first = next((r for r in task["runs"] if r["status"] != "passed"), None)
            if first is not None and first["status"] != "error":
                failure.text = "\n".join(_failed_graders(first))
        elif task["status"] == "error":
            message = next((r.get("error_msg") for r in task["runs"] if r.get("error_msg")),
                           "") or "execution error"
            ET.SubElement(case, "error", {"message": message, "type": "ExecutionError"})
        elif task["status"] == "skipped":
            ET.SubElement(case, "skipped", {"message": "grading skipped"})
    return xml_document(root)


# ANSI escape sequences (colours, cursor moves) that pytest and npm print, and every
# character XML 1.0 forbids (its Char production: tab, LF, CR, U+0020-U+D7FF,
# U+E000-U+FFFD, U+10000 and above). One such character makes the whole file unreadable
# to CI parsers.
ANSI_SEQUENCE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])")
XML_FORBIDDEN = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` as XML 1.0 may hold it: ANSI sequences removed, any other forbidden
    character shown as ``\\xNN``/``\\uNNNN`` (so the reader still sees it was there)."""
    return XML_FORBIDDEN.sub(lambda m: ascii(m.group())[1:-1],
                             ANSI_SEQUENCE.sub("", text))


def xml_document(root: ET.Element) -> str:
    """The one place XML is written: every text, tail and attribute made XML 1.0-safe
    (ElementTree escapes ``<&"`` but writes control characters as they are)."""
    for element in root.iter():
        for attr in (a for a in ("text", "tail") if getattr(element, a)):
            setattr(element, attr, xml_text(getattr(element, attr)))
        for key, value in element.attrib.items():
            element.set(key, xml_text(value))
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def go_duration(ms: float) -> str:
    """Go's Duration text at millisecond resolution: ``850ms``, ``1.5s``, ``2m3.25s``."""
    if ms < 1000:
        return f"{int(ms)}ms"
    total = int(ms)
    hours, rest = divmod(total, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds = f"{rest / 1000:.3f}".rstrip("0").rstrip(".")
    text = f"{seconds}s"
    if hours or minutes:
        text = f"{minutes}m{text}"
    if hours:
        text = f"{hours}h{text}"
    return text


def _mark(ok: bool) -> str:
    return "✅" if ok else "❌"


def github_comment(outcome: Mapping) -> str:
    """The markdown summary waza's ``--format github-comment`` prints instead of the
    console summary."""
    summary = outcome["summary"]
    tasks = outcome["tasks"]
    config = outcome.get("config") or {}
    failed = summary["failed"] > 0 or summary["errors"] > 0
    status = "❌ Failed" if failed else "✅ Passed"
    lines = ["## 🧪 Waza Eval Results", "",
             f"**Status:** {status} | **Score:** {summary['aggregate_score']:.2f} | "
             f"**Duration:** {go_duration(summary.get('duration_ms') or 0)}", "",
             f"- **Tests:** {summary['total_tests']} total, {summary['succeeded']} passed, "
             f"{summary['failed']} failed, {summary['errors']} errors",
             f"- **Success Rate:** {100 * summary['success_rate']:.1f}%",
             f"- **Score Range:** {summary['min_score']:.2f} - {summary['max_score']:.2f} "
             f"(σ={summary['std_dev']:.4f})", "",
             "### Task Results", "", "| Task | Score | Status | Graders |",
             "| --- | --- | --- | --- |"]
    for task in tasks:
        names = sorted((task["runs"][0].get("validations") or {}) if task["runs"] else {})
        lines.append(f"| {task.get('display_name') or task['test_id']} | "
                     f"{task['stats']['avg_score']:.2f} | {_mark(task['status'] == 'passed')} | "
                     f"{', '.join(names) or '-'} |")
    flaky = [t for t in tasks if t["stats"].get("flaky")]
    if flaky:
        lines += ["", "### ⚠️ Flaky Tasks", ""]
        for task in flaky:
            stats = task["stats"]
            lines.append(f"- **{task.get('display_name') or task['test_id']}**: "
                         f"{100 * stats['pass_rate']:.0f}% pass rate, "
                         f"score={stats['avg_score']:.2f}±{stats['std_dev_score']:.2f}")
    not_passed = [t for t in tasks if t["status"] != "passed"]
    if not_passed:
        lines += ["", "### Failed Task Details"]
        for task in not_passed:
            lines += ["", f"#### {task.get('display_name') or task['test_id']}"]
            for index, run in enumerate(task["runs"], start=1):
                if run["status"] == "passed":
                    continue
                lines += ["", f"**Run {index}/{len(task['runs'])}** ({run['status']}):"]
                if run.get("error_msg"):
                    lines.append(f"- ❌ error: {run['error_msg']}")
                for name, v in sorted((run.get("validations") or {}).items()):
                    lines.append(f"- {_mark(v['passed'])} **{name}** ({v['score']:.2f}): "
                                 f"{v.get('feedback', '')}")
    lines += ["", "---", f"**Benchmark:** {outcome.get('eval_name', '')} | **Skill:** "
              f"{outcome.get('skill', '')} | **Model:** {config.get('model_id', '')}"]
    return "\n".join(lines) + "\n"
