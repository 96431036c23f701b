"""Grader and agent-shell commands (issue 19 items 1, 2, 5, 16): no API key reaches them or
the records, no process outlives them, they run in the run's workspace, and a script's
NaN score is a failed grader, not a traceback."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import psutil  # a Snakemake dependency
from scievals.cli import main
from scievals.waza.executors.agent import AgentSettings, Workspace
from scievals.waza.graders.base import GraderContext
from scievals.waza.graders.registry import grade

FAKE_KEY = "sk-test-fake-openai-0123456789"


def _suite(folder: Path, graders: str, timeout: int = 300) -> Path:
    (folder / "tasks").mkdir(parents=True)
    (folder / "eval.yaml").write_text(f"skill: s\ntasks: ['tasks/*.yaml']\nconfig: "
                                      f"{{timeout_seconds: {timeout}}}\ngraders:\n{graders}")
    (folder / "tasks" / "t.yaml").write_text("id: t1\nname: t1\ninputs: {prompt: hello}\n")
    return folder


def _running(pattern: str) -> list[int]:
    """Non-zombie processes whose command line contains ``pattern``."""
    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "status"]):
        if proc.info["status"] != psutil.STATUS_ZOMBIE and pattern in " ".join(
                proc.info["cmdline"] or []):
            found.append(proc.pid)
    return found


def test_program_grader_env_shows_no_key_and_no_record_holds_it(tmp_path, monkeypatch,
                                                                 capsys):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    # A second grader prints the key it finds in a file: the recorded text is redacted.
    (tmp_path / "key.txt").write_text(FAKE_KEY)
    suite = _suite(tmp_path / "s", "  - {type: program, name: env, config: {command: env}}\n"
                   f"  - {{type: program, name: cat, config: {{command: cat, args: "
                   f"['{tmp_path / 'key.txt'}']}}}}\n")
    out, transcripts = tmp_path / "r.json", tmp_path / "tr"
    assert main(["waza", "run", str(suite), "-o", str(out), "--transcript-dir",
                 str(transcripts)]) == 0
    run = json.loads(out.read_text())["tasks"][0]["runs"][0]
    env_lines = run["validations"]["env"]["details"]["stdout"].splitlines()
    assert not any(line.startswith("OPENAI_API_KEY=") for line in env_lines)
    assert run["validations"]["cat"]["feedback"] == "[OPENAI_API_KEY redacted]"
    records = [out, *transcripts.rglob("*.json")]
    assert len(records) == 2
    assert all(FAKE_KEY not in p.read_text() for p in records)
    assert FAKE_KEY not in capsys.readouterr().err


def test_program_grader_busy_background_child_is_killed_on_timeout(tmp_path):
    marker = f"waza-spin-{os.getpid()}"
    started = time.monotonic()
    result = grade("program", {"command": "sh", "args": [
        "-c", f"(while :; do :; done; echo {marker}) & wait", marker], "timeout": 1},
        GraderContext(workspace_dir=tmp_path))
    assert time.monotonic() - started < 5
    assert result.passed is False and "signal: killed" in result.feedback
    time.sleep(0.2)
    assert _running(marker) == []


def test_script_grader_forking_a_busy_child_leaves_nothing(tmp_path, monkeypatch):
    import scievals.waza.graders.programs as programs

    monkeypatch.setattr(programs, "SCRIPT_TIMEOUT_S", 1)
    marker = f"waza-fork-{os.getpid()}"
    script = tmp_path / "fork.py"
    script.write_text("import subprocess, sys, time\n"
                      f"subprocess.Popen([sys.executable, '-c', 'while True: pass', '{marker}'])\n"
                      "time.sleep(60)\n")
    result = grade("script", {"script": str(script)}, GraderContext(workspace_dir=tmp_path))
    assert result.feedback == "Script timed out"
    time.sleep(0.2)
    assert _running(marker) == []


def test_graders_run_in_the_workspace_not_the_checkout(tmp_path, monkeypatch):
    checkout, workspace = tmp_path / "checkout", tmp_path / "ws"
    checkout.mkdir()
    workspace.mkdir()
    monkeypatch.chdir(checkout)
    (checkout / "g.py").write_text(
        "import json, os, sys\njson.load(sys.stdin)\n"
        "open('planted.csv', 'w').write('x')\n"
        "print(json.dumps({'score': 1, 'passed': True, 'message': os.getcwd()}))\n")
    # "./g.py" is relative to the caller's folder, as before; the script itself runs with
    # the workspace as its working directory.
    result = grade("script", {"script": "./g.py"}, GraderContext(workspace_dir=workspace))
    assert result.feedback == str(workspace)
    assert (workspace / "planted.csv").exists() and not (checkout / "planted.csv").exists()
    # No workspace (waza grade without --workspace): a scratch folder, removed afterwards.
    result = grade("program", {"command": "sh", "args": ["-c", "pwd; touch planted"]},
                   GraderContext())
    assert result.passed and not (checkout / "planted").exists()
    assert not Path(result.feedback).exists()


def test_script_grader_nan_score_fails_the_run_in_one_line(tmp_path, capsys):
    script = tmp_path / "nan.py"
    script.write_text("import sys\nsys.stdin.read()\n"
                      "print('{\"score\": NaN, \"passed\": true, \"message\": \"ok\"}')\n")
    suite = _suite(tmp_path / "s", f"  - {{type: script, name: nan, script: '{script}'}}\n")
    out = tmp_path / "r.json"
    assert main(["waza", "run", str(suite), "-o", str(out), "--trials", "2"]) == 1
    task = json.loads(out.read_text())["tasks"][0]
    assert task["status"] == "failed"
    # a grader error (waza-current's script reply check): each run is `error`, named
    assert [r["status"] for r in task["runs"]] == ["error", "error"]
    assert all("score nan is not a finite number" in r["error_msg"] for r in task["runs"])
    assert "Traceback" not in capsys.readouterr().err


def test_agent_shell_tool_gets_no_key_and_leaves_no_process(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    shell = Workspace(tmp_path, AgentSettings(shell_timeout_s=1))
    assert FAKE_KEY not in shell.shell("env")
    marker = f"waza-agent-{os.getpid()}"
    try:
        shell.shell(f"{sys.executable} -c 'while True: pass' {marker} & wait")
    except ValueError as exc:
        assert "timed out after 1 s" in str(exc)
    else:
        raise AssertionError("the shell tool did not time out")
    time.sleep(0.2)
    assert _running(marker) == []
