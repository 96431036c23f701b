"""`waza grade-one`: one grader on one recorded context, verdict as JSON; exit 2 on bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from scievals.cli import main

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run(tmp_path, capsys, monkeypatch):
    """``python -m scievals waza grade-one ...`` in-process (the CLI's own entry point)."""
    monkeypatch.chdir(tmp_path)

    def call(tmp_path: Path, kind: str, config, context, *extra: str) -> Done:
        (tmp_path / "config.json").write_text(
            config if isinstance(config, str) else json.dumps(config))
        (tmp_path / "context.json").write_text(
            context if isinstance(context, str) else json.dumps(context))
        code = main(["waza", "grade-one", "--type", kind, "--config",
                     str(tmp_path / "config.json"), "--context",
                     str(tmp_path / "context.json"), *extra])
        out = capsys.readouterr()
        return Done(code, out.out, out.err)

    return call


def test_prints_verdict_json(tmp_path, run):
    done = run(tmp_path, "text", {"contains": ["hello", "bye"]}, {"output": "Hello"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "score": 0.5, "passed": False, "feedback": "Missing expected substring: bye",
        "details": {"contains": ["hello", "bye"], "not_contains": [], "contains_cs": [],
                    "not_contains_cs": [], "regex_match": [], "regex_not_match": [],
                    "failures": ["Missing expected substring: bye"]}}


def test_session_digest_and_workspace(tmp_path, run):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("x")
    context = {"output": "", "session": {"tool_call_count": 2, "tools_used": ["view", "bash"],
                                         "tool_calls": [], "usage": None}}
    done = run(tmp_path, "behavior", {"forbidden_tools": ["bash"]}, context)
    assert json.loads(done.stdout)["feedback"] == "Forbidden tool was used: bash"
    done = run(tmp_path, "file", {"must_exist": ["a.txt"]}, {"output": ""}, "--workspace",
               str(ws))
    assert json.loads(done.stdout)["passed"] is True
    # Without --workspace there is no workspace (§6.3: score 0).
    done = run(tmp_path, "file", {"must_exist": ["a.txt"]}, {"output": ""})
    assert json.loads(done.stdout)["feedback"] == ("No workspace directory available for file "
                                                   "grading")


def test_bad_config_exits_2_with_one_line(tmp_path, run):
    done = run(tmp_path, "behavior", {"max_tool_calls": "many"}, {"output": ""})
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "config.json" in lines[0] and "key max_tool_calls" in lines[0]


def test_bad_context_and_unknown_type_exit_2(tmp_path, run):
    done = run(tmp_path, "text", {}, "{not json")
    assert done.returncode == 2
    assert "context.json: line 1" in done.stderr
    done = run(tmp_path, "text", {}, {"ouput": "typo"})
    assert done.returncode == 2
    assert "key ouput" in done.stderr and "unknown context key" in done.stderr
    done = run(tmp_path, "no_such_grader", {}, {"output": ""})
    assert done.returncode == 2
    assert "unsupported grader type" in done.stderr


@pytest.mark.slow
def test_real_command_line(tmp_path):
    (tmp_path / "c.json").write_text(json.dumps({"assertions": ["len(output) == 2"]}))
    (tmp_path / "x.json").write_text(json.dumps({"output": "ok"}))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "scripts")}
    done = subprocess.run([sys.executable, "-m", "scievals", "waza", "grade-one", "--type",
                           "code", "--config", "c.json", "--context", "x.json"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["feedback"] == "All assertions passed"
