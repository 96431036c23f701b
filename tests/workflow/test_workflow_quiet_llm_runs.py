"""An LLM smoke run prints a line per condition or suite, not per request (issue 36, points 4
and 5): the per-request HTTP lines and the LLM layer's per-batch detail stay in the jobs'
log files, each notice is said once at the end, and ``--limit N`` caps every kind of item."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from support.fake_server import FakeLLMServer

from .conftest import ROOT, copy_workflow

pytestmark = pytest.mark.slow


def _smoke_run(workdir, benchmark):
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit", COLUMNS="100",
               PYTHONPATH=os.pathsep.join([str(workdir / "scripts"), str(ROOT / "tests")]))
    env.pop("SCIEVALS_HTTP_LOG", None)
    with FakeLLMServer() as server:
        proc = subprocess.run(
            [sys.executable, "-m", "scievals", "run", benchmark, "--model", "openai/fake",
             "--base-url", server.openai_base_url, "--limit", "2", "--cores", "2"],
            cwd=workdir, env=env, capture_output=True, text=True, timeout=900, check=False)
        count = server.count
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout + proc.stderr, count


def test_a_gating_smoke_run_prints_a_line_per_condition(tmp_path):
    workdir = copy_workflow(tmp_path / "scievals")
    text, requests = _smoke_run(workdir, "gating")
    lines = text.splitlines()
    assert requests == 12  # 2 cases x 6 conditions
    assert len(lines) <= 40, text
    assert "HTTP Request" not in text
    # one line per condition: 6 conditions, each "fake <condition>: 2 replies ..."
    per_condition = [line for line in lines if ": 2 replies (" in line]
    assert len(per_condition) == 6, per_condition
    assert all(" fake " in line for line in per_condition)
    # the limit notice once, at the end (not also while the run goes on)
    assert text.count("limited: a smoke run on 2 of 15 cases") == 1
    # (on a terminal the notices wrap to its width: tests/common/test_common_notices.py; a
    # captured run like this one keeps each notice on one line)
    # the jobs' log files keep the detail the terminal leaves out
    logs = "".join(p.read_text() for p in (workdir / "logs").rglob("*.log"))
    assert logs.count("HTTP Request: POST") == 12


def test_a_waza_smoke_run_sends_two_items_of_each_kind_per_suite(tmp_path):
    workdir = copy_workflow(tmp_path / "scievals")
    text, _ = _smoke_run(workdir, "waza")
    assert len(text.splitlines()) <= 60, text
    assert "HTTP Request" not in text
    folder = workdir / "results" / "waza" / "predictions" / "fake"
    predictions = sorted(p for p in folder.glob("*.json") if p.suffixes == [".json"])
    assert len(predictions) == 6  # the six embedded suites
    for path in predictions:
        recorded = json.loads(path.read_text())
        assert len(recorded["tasks"]) <= 2, path.name
        assert len(recorded.get("trigger_results") or []) <= 2, path.name
    # code-explainer has 16 trigger prompts: 2 went out, and its tables say it was cut
    code = json.loads((workdir / "results" / "waza" / "predictions" / "fake" /
                       "code-explainer.json").read_text())
    assert len(code["trigger_results"]) == 2
    summary = (workdir / "results" / "waza" / "summary.csv").read_text()
    assert "code-explainer-demo (limited to 2 items)" in summary
