"""Suites as waza reads them today (issue 30, "waza today"): a suite without
``schemaVersion`` that uses current-format keys (waza's own examples/code-explainer:
``expected.output_contains_any``, ``expected.behavior.max_response_time_ms``) is read as
1.x, as waza reads a missing version, instead of being refused as a strict v0.23 suite;
``config.max_workers`` is accepted by ``waza check`` as by ``waza run``."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from scievals.cli import main
from scievals.waza.data import demo_suites
from scievals.waza.suites import check_report, load_suite

# the shape of waza's examples/code-explainer (its eval config, one task), written here
EVAL = """\
name: code-explainer-eval
skill: code-explainer
version: "1.0"
config:
  trials_per_task: 1
  timeout_seconds: 300
  parallel: false
  executor: mock
  model: claude-sonnet-4-20250514
metrics:
  - {name: task_completion, weight: 1, threshold: 0.8}
graders:
  - {name: has_output, type: code, config: {assertions: ["len(output) > 10"]}}
tasks: ["tasks/*.yaml"]
"""
TASK = """\
id: explain-python-recursion-001
name: Explain Python Recursion
inputs:
  prompt: "Explain this code to me"
expected:
  output_contains: ["mock"]
  output_contains_any: ["base case", "response", "termination"]
  behavior:
    max_tool_calls: 5
    max_response_time_ms: 30000
"""


def _suite(tmp: Path, eval_text: str = EVAL, task: str = TASK) -> Path:
    (tmp / "tasks").mkdir(parents=True, exist_ok=True)
    (tmp / "eval.yaml").write_text(textwrap.dedent(eval_text))
    (tmp / "tasks" / "t.yaml").write_text(textwrap.dedent(task))
    return tmp


def test_current_keys_without_schema_version_are_read_as_1x(tmp_path, caplog):
    # on main: "expected: unknown key(s) output_contains_any ..." and the suite refused
    with caplog.at_level("WARNING"):
        suite = load_suite(_suite(tmp_path))
    assert suite.version == "1.4"
    assert "read as schemaVersion 1.4" in caplog.text
    assert "expected.output_contains_any" in caplog.text
    names = [g.name for g in suite.tasks[0].graders]
    assert "_output_contains" in names and "_output_contains_any" in names


def test_the_expected_keys_are_graded(tmp_path):
    # mock output "Mock response for: Explain this code to me": contains "mock"
    # (case-insensitive) and "response" of the any-list -> both pass, with the code grader
    out = tmp_path / "r.json"
    assert main(["waza", "run", str(_suite(tmp_path / "s")), "-o", str(out)]) == 0
    run = json.loads(out.read_text())["tasks"][0]["runs"][0]
    assert run["validations"]["_output_contains_any"]["feedback"] == \
        'found accepted string: "response"'
    assert run["validations"]["_output_contains"]["passed"] is True


def test_check_reports_the_reading_as_a_warning(tmp_path):
    problems, warnings = check_report(_suite(tmp_path))
    assert problems == []
    assert any("no schemaVersion, but current-format keys" in w for w in warnings)


def test_embedded_v023_suites_stay_v023():
    # their expected keys stay ungraded: the default run's numbers do not move
    for name in ("code-explainer", "grader-showcase"):
        suite = load_suite(demo_suites()[name])
        assert suite.version == ""
        assert not any(g.name.startswith("_output") for t in suite.tasks for g in t.graders)


def test_max_workers_is_accepted_by_check_and_run(tmp_path):
    # on main check refused it ("config: unknown key(s) max_workers") while run took it
    text = EVAL.replace("  parallel: false\n", "  parallel: false\n  max_workers: 2\n")
    v023_task = TASK.replace("  output_contains_any:", "  #").replace(
        "    max_response_time_ms: 30000\n", "")
    suite = _suite(tmp_path, text, v023_task)
    assert load_suite(suite).version == ""  # a v0.23 suite
    problems, _ = check_report(suite)
    assert not any("max_workers" in p for p in problems), problems
    bad = _suite(tmp_path / "bad", text.replace("max_workers: 2", "max_workers: 0"),
                 v023_task)
    problems, _ = check_report(bad)
    assert any("max_workers" in p for p in problems)  # the Python era's minimum 1 holds
