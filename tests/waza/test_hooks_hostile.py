"""Hooks that leak or hang (issue 30, items 8-10): a failing hook's output is redacted
before it is logged or quoted; a hook program that is a named pipe is refused, not run."""

from __future__ import annotations

import logging
import os
import sys

from scievals.waza import hooks

KEY = "sk-test-0123456789abcdefSECRET"
TOKEN = "ghp_0123456789abcdefTOKENVALUE"
LEAK = ("import sys\nprint('x' * 500)\nprint(open(sys.argv[1]).read())\n"
        "print('token', sys.argv[2])\nsys.exit(1)\n")


def test_failing_hook_output_is_redacted_in_log_and_error(tmp_path, monkeypatch, caplog):
    # on main the last 300 characters went to the log as printed: the key read from a file
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)  # not a model key; its name says secret
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "leak.py").write_text(LEAK)
    (tmp_path / "key.txt").write_text(KEY)
    command = f"{sys.executable} hooks/leak.py key.txt {TOKEN}"
    caplog.set_level(logging.DEBUG)
    warned = hooks.run_point({"after_task": [{"command": command}]}, "after_task", tmp_path,
                             "eval.yaml")
    failed = hooks.run_point({"before_run": [{"command": command, "error_on_fail": True}]},
                             "before_run", tmp_path, "eval.yaml")
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert warned == "" and "exit code 1" in failed
    for text in (logged, failed):
        assert "[OPENAI_API_KEY redacted]" in text and "[GITHUB_TOKEN redacted]" in text
    # the command line itself quotes the token: the hook's name in the line is redacted too
    assert KEY not in logged + failed and TOKEN not in logged + failed


def test_a_hook_program_that_is_a_named_pipe_is_refused(tmp_path):
    (tmp_path / "hooks").mkdir()
    os.mkfifo(tmp_path / "hooks" / "pipe")
    spec = {"before_run": [{"command": "hooks/pipe", "error_on_fail": True}]}
    failure = hooks.run_point(spec, "before_run", tmp_path, "eval.yaml")
    assert "hooks/pipe" in failure and "not a regular file" in failure
