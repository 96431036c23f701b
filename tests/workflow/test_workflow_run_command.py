"""``python -m scievals run BENCHMARK --model ... --limit N`` (issue 29, point 3): a smoke run
from the command line sends requests for N items only and every table says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pandas as pd
import pytest
from support.default_run import copy_default_run
from support.fake_server import FakeLLMServer

from .conftest import ROOT

pytestmark = pytest.mark.slow


def _env(workdir):
    return dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit",
                PYTHONPATH=os.pathsep.join([str(workdir / "scripts"), str(ROOT / "tests")]))


def _scievals(workdir, *args, timeout=900):
    return subprocess.run([sys.executable, "-m", "scievals", *args], cwd=workdir,
                          env=_env(workdir), capture_output=True, text=True, timeout=timeout,
                          check=False)


def test_run_gating_with_a_model_and_a_limit_scores_two_cases_per_condition(default_run,
                                                                            tmp_path):
    # after the quick start (a copy of the session's run, records and mtimes kept): gating's
    # download and extraction are reused, the limited cases and every later step run
    workdir = tmp_path / "scievals"
    copy_default_run(default_run, workdir)
    with FakeLLMServer() as server:
        first = subprocess.Popen(
            [sys.executable, "-m", "scievals", "run", "gating", "--model", "openai/fake",
             "--base-url", server.openai_base_url, "--limit", "2", "--cores", "2"],
            cwd=workdir, env=_env(workdir), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        # issue 46 item 3: a second run in the folder while the first holds it is refused in
        # one line before it writes anything (it used to rewrite the first one's overlay, so
        # the first exited 0 with the second's model)
        lock = workdir / ".scievals" / "run" / ".lock"
        deadline = time.monotonic() + 120
        while not (lock.is_file() and lock.read_text()) and first.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.1)
        second = _scievals(workdir, "run", "gating", "--model", "mock/beta", "--limit", "2")
        assert second.returncode == 1 and second.stderr.count("\n") == 1, second.stderr
        assert f"(pid {first.pid}: run gating --model openai/fake) is running" in second.stderr
        out, err = first.communicate(timeout=900)
        proc = subprocess.CompletedProcess(first.args, first.returncode, out, err)
        assert proc.returncode == 0, proc.stderr[-4000:]
        # 2 cases x 3 contexts x 2 strategies = 12 chat requests, not 15 x 6 = 90.
        assert server.count == 12

    summary = pd.read_csv(workdir / "results" / "gating" / "summary.csv")
    assert set(summary["model"]) == {"marker_baseline", "fake"}
    # Every row of every model names the cut in its dataset label.
    assert summary["dataset"].str.endswith("(limited to 2 items)").all(), \
        summary["dataset"].unique()
    fake = summary[(summary["model"] == "fake") & (summary["metric"] == "hierarchy_f1")]
    # one row per condition (context_strategy), each over the 2 kept cases
    assert sorted(fake["condition"]) == sorted(f"{c}_{s}" for c in ("minimal", "standard", "rich")
                                               for s in ("direct", "cot"))
    assert set(fake["n"]) == {2}
    # the comparisons table and the leaderboard carry the same label
    comparisons = pd.read_csv(workdir / "results" / "gating" / "comparisons.csv")
    assert comparisons["dataset"].str.endswith("(limited to 2 items)").all()
    assert "limited to 2 items" in (workdir / "results" / "gating" / "leaderboard.md").read_text()
    # and the end of the run reminds it is a smoke run (the 15 embedded cases: tests/workflow/test_workflow_llm_retry.py)
    tail = proc.stderr[proc.stderr.rindex("notice(s) about this run"):]
    assert "[gating] limited: a smoke run on 2 of 15 cases: not a full result" in tail
    # the overlay is where the command said it would be, and git ignores it
    assert (workdir / ".scievals" / "run" / "gating.yaml").is_file()
    assert ".scievals/" in (workdir / ".gitignore").read_text().splitlines()

    # Run 1's record names the LLM it used.
    record = json.loads((workdir / "results" / "run_manifest.json").read_text())
    assert list(record["llm_models"]) == ["fake"]

    # Run 2 without --model (issue 29, point 5): the LLM's rows leave the summary, and the end
    # of the run says so and where they still are; the record no longer names the model,
    # although its usage.json is still on disk.
    second = _scievals(workdir, "run", "gating", "--limit", "2", "--cores", "2")
    assert second.returncode == 0, second.stderr[-4000:]
    tail = second.stderr[second.stderr.rindex("notice(s) about this run"):]
    assert "[gating] models_changed: results/summary.csv no longer has fake (" in tail
    assert "results/gating/scores/fake.csv" in tail
    assert (workdir / "results" / "gating" / "predictions" / "fake.usage.json").is_file()
    record = json.loads((workdir / "results" / "run_manifest.json").read_text())
    assert record["llm_models"] == {}
    # ... and run 3, with nothing to do, does not repeat that news.
    third = _scievals(workdir, "run", "gating", "--limit", "2", "--cores", "2")
    assert third.returncode == 0 and "models_changed" not in third.stderr
