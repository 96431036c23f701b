"""Suite hooks of schemaVersion 1.x suites (specs/waza-current.md §2.6): no shell, the
suite folder as working directory, the scrubbed environment, a time limit, and each
point's failure semantics."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from scievals.cli import main
from scievals.waza import hooks
from scievals.waza.suites import load_suite

RECORD = """\
import json, os, sys
with open(sys.argv[1], "a") as out:
    out.write(json.dumps({"cwd": os.getcwd(), "env": sorted(os.environ),
                          "args": sys.argv[2:]}) + "\\n")
sys.exit(int(os.environ.get("HOOK_EXIT", "0")))
"""
FAIL = "import sys\nsys.exit(4)\n"
SLEEP = "import time\ntime.sleep(30)\n"


def _suite(tmp: Path, hooks_yaml: str) -> Path:
    (tmp / "tasks").mkdir()
    (tmp / "hooks").mkdir()
    (tmp / "hooks" / "record.py").write_text(RECORD)
    (tmp / "hooks" / "fail.py").write_text(FAIL)
    (tmp / "hooks" / "sleep.py").write_text(SLEEP)
    (tmp / "eval.yaml").write_text(textwrap.dedent(f"""\
        schemaVersion: "1.4"
        name: hooked
        skill: demo
        config: {{trials_per_task: 1, timeout_seconds: 60, executor: mock}}
        tasks: ["tasks/*.yaml"]
        graders: [{{name: g, type: text, config: {{contains: [mock]}}}}]
        hooks:
        """) + textwrap.indent(textwrap.dedent(hooks_yaml), "  "))
    for name in ("a", "b"):
        (tmp / "tasks" / f"{name}.yaml").write_text(
            f"id: {name}\nname: Task {name}\ninputs: {{prompt: 'do {name}'}}\n")
    return tmp


def _py(script: str, *args: str) -> str:
    return " ".join([sys.executable, f"hooks/{script}", *args])


def test_hooks_run_without_a_shell_in_the_suite_folder_with_a_scrubbed_env(
        tmp_path, monkeypatch, run_and_grade):
    monkeypatch.setenv("MY_API_KEY", "secret")
    log = tmp_path / "log.jsonl"
    suite = _suite(tmp_path, f"""\
        before_run: [{{command: "{_py('record.py', str(log), 'run', '&&', 'x')}"}}]
        before_task: [{{command: "{_py('record.py', str(log), 'task')}"}}]
        after_task: [{{command: "{_py('record.py', str(log), 'done')}"}}]
        after_run: [{{command: "{_py('record.py', str(log), 'end')}"}}]
        """)
    out = run_and_grade(load_suite(suite), "waza_mock")
    assert [t["status"] for t in out["tasks"]] == ["passed", "passed"]
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    # order: before_run, (before_task, after_task) per task, after_run; "&&" is an argument
    assert [c["args"][0] for c in calls] == ["run", "task", "done", "task", "done", "end"]
    assert calls[0]["args"] == ["run", "&&", "x"]
    assert {c["cwd"] for c in calls} == {str(suite)}
    assert "MY_API_KEY" not in calls[0]["env"] and "HOME" in calls[0]["env"]


def test_before_run_failure_aborts_with_one_line(tmp_path, capsys):
    suite = _suite(tmp_path, f"""\
        before_run: [{{command: "{_py('fail.py')}", error_on_fail: true}}]
        """)
    assert main(["waza", "run", str(suite)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "hooks.before_run[0]" in err and "exit code 4" in err


def test_before_task_failure_fails_the_task_without_runs(tmp_path, run_and_grade):
    log = tmp_path / "log.jsonl"
    suite = _suite(tmp_path, f"""\
        before_task: [{{command: "{_py('fail.py')}", error_on_fail: true}}]
        after_run: [{{command: "{_py('record.py', str(log), 'end')}"}}]
        """)
    out = run_and_grade(load_suite(suite), "waza_mock")
    assert [(t["status"], t["runs"]) for t in out["tasks"]] == [("failed", []), ("failed", [])]
    assert "exit code 4" in out["tasks"][0]["hook_error"]
    assert log.is_file()  # after_run ran all the same


def test_failures_without_error_on_fail_and_after_hooks_only_warn(tmp_path, run_and_grade,
                                                                  caplog):
    suite = _suite(tmp_path, f"""\
        before_task: [{{command: "{_py('fail.py')}"}}]
        after_task: [{{command: "{_py('fail.py')}", error_on_fail: true}}]
        after_run: [{{command: "no-such-program-here"}}]
        """)
    out = run_and_grade(load_suite(suite), "waza_mock")
    assert [t["status"] for t in out["tasks"]] == ["passed", "passed"]
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "hooks.before_task[0]" in messages and "could not start 'no-such-program-here'" \
        in messages


def test_a_hook_over_its_time_limit_is_killed(tmp_path, monkeypatch):
    monkeypatch.setattr(hooks, "HOOK_TIMEOUT_S", 0.5)
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "sleep.py").write_text(SLEEP)
    spec = {"before_run": [{"command": _py("sleep.py"), "error_on_fail": True}]}
    failure = hooks.run_point(spec, "before_run", tmp_path, "eval.yaml")
    assert failure.endswith("timed out after 0.5 s")


def test_working_directory_outside_the_suite_is_refused(tmp_path):
    spec = {"before_run": [{"command": "true", "working_directory": "../..",
                            "error_on_fail": True}]}
    assert "must be a relative path inside" in hooks.run_point(spec, "before_run", tmp_path,
                                                                "eval.yaml")


@pytest.mark.parametrize("point", hooks.POINTS)
def test_every_point_is_in_the_schema(tmp_path, point):
    suite = _suite(tmp_path, f'{point}: [{{command: "true"}}]\n')
    assert load_suite(suite).hooks == {point: [{"command": "true"}]}
