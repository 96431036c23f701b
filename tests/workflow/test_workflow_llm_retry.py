"""A few failed LLM requests: said at the end, counted in the tables, retried by the next run.

Issue 14, item 3 ("below that share ..."): run 1 against a server that fails two requests
exits 0 with a ``failed_request`` notice at the end and ``failed_requests = 2`` in the
tables; run 2 against the healthy server re-runs only that prediction job, sends only the
two failed requests and withdraws the notice; run 3 has nothing to do.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
import yaml
from scievals.gating.score import MISSING_EXTRA
from support.fake_server import FakeLLMServer
from support.snakemake_log import complete_log

from .conftest import copy_workflow

pytestmark = pytest.mark.slow
TARGET = ("results/gating/summary.csv", "--cores", "2", "--configfile", "config/config.yaml",
          "flaky.yaml")


class FlakyServer(FakeLLMServer):
    """Answers HTTP 500, every time, to the first ``n`` distinct prompts it sees (then is
    healthy for every other prompt, and for those once ``healthy`` is set)."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n, self.failed, self.healthy = n, [], False

    def _record_and_next_fault(self, path, body, headers, prompt):
        fault = super()._record_and_next_fault(path, body, headers, prompt)
        with self._lock:
            if not self.healthy and (prompt in self.failed or len(self.failed) < self.n):
                if prompt not in self.failed:
                    self.failed.append(prompt)
                return "500"
        return fault


def _run(workdir, *args):
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit", SCIEVALS_TEST_LLM_KEY="sk-test-1")
    return subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=900, check=False)


def _failed_requests(workdir) -> list[tuple]:
    table = pd.read_csv(workdir / "results" / "gating" / "scores" / "gpt.csv")
    rows = table[table["metric"] == "failed_requests"]
    return list(zip(rows["condition"], rows["value"], rows["n"], strict=True))


def test_failed_requests_are_noticed_counted_and_retried_by_the_next_run(tmp_path):
    workdir = copy_workflow(tmp_path / "scievals")
    with FlakyServer(n=2) as server:
        extra = {
            "models": {"gpt": {"provider": "openai", "model": "fake",
                               "base_url": server.openai_base_url,
                               "api_key_env": "SCIEVALS_TEST_LLM_KEY"}},
            # One attempt per request; 2 of 15 = 0.13 is below the default share (0.25).
            "llm": {"max_attempts": 1, "cache_dir": ".cache/llm"},
            "gating": {"models": ["marker_baseline", "gpt"], "contexts": ["minimal"],
                       "strategies": ["direct"]},
        }
        (workdir / "flaky.yaml").write_text(yaml.safe_dump(extra))

        first = _run(workdir, *TARGET)
        assert first.returncode == 0, first.stderr[-4000:]
        requests = server.count
        assert requests == 15 and len(server.failed) == 2  # the 15 embedded cases, once each
        # Said at the end of the run (after the last job) and in the run report.
        tail = first.stderr[first.stderr.rindex("notice(s) about this run"):]
        assert "[gating] failed_request: gpt: 2 of 15 requests failed" in tail
        report = json.loads((workdir / "results" / "run_report.json").read_text())
        [notice] = [n for n in report["notices"] if n["kind"] != MISSING_EXTRA]
        assert notice["details"] == {"model": "gpt", "label": "minimal_direct", "failed": 2,
                                     "requests": 15, "retry": True}
        # Counted in the tables: the model's score table and the benchmark summary.
        assert _failed_requests(workdir) == [("minimal_direct", 2, 15)]
        summary = pd.read_csv(workdir / "results" / "gating" / "summary.csv")
        row = summary[(summary["model"] == "gpt") & (summary["metric"] == "failed_requests")]
        assert list(row["value"]) == [2]

        # Run 2, the server healthy: only the prediction job that failed, only its failures.
        server.healthy = True
        server.reset_log()
        second = _run(workdir, *TARGET)
        assert second.returncode == 0, second.stderr[-4000:]
        assert sorted(server.prompts()) == sorted(server.failed)
        ran = complete_log(second.stderr)  # the jobs' rule blocks
        assert "gating_predict_llm" in ran
        assert "gating_predict_baseline" not in ran
        report = json.loads((workdir / "results" / "run_report.json").read_text())
        # (gpt's re-scoring says again, without the `semantic` extra, that it left those out)
        assert [n for n in report["notices"] if n["kind"] != MISSING_EXTRA] == []
        if "notice(s) about this run" in second.stderr:
            assert report["notices"][0]["kind"] == MISSING_EXTRA
        assert _failed_requests(workdir) == [("minimal_direct", 0, 15)]

        # Run 3: nothing left to retry, nothing to do.
        third = _run(workdir, *TARGET, "--dry-run")
        assert third.returncode == 0
        assert "Nothing to be done" in third.stdout + third.stderr
