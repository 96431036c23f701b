"""Faults the workflow already survives, kept under test (issue 14, "held up well").

A run killed with SIGKILL or SIGTERM (early, and while the summary is written)
resumes to a byte-identical summary table (the default run's), and a second run started
while one is going is refused by Snakemake's lock without touching the first.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.default_run import copy_default_run

from .conftest import copy_workflow, snakemake

pytestmark = pytest.mark.slow
ENV = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit")
TARGET = ("--cores", "2", "results/summary.csv")
# An early kill hits Snakemake's start and first jobs, the same for one benchmark's target:
# the cheapest one (no model or grader of any cost), resumed and compared on its own table.
EARLY = ("--cores", "2", "autogkb")
EARLY_TABLE = Path("results") / "autogkb" / "summary.csv"


def _start(workdir: Path, target: tuple[str, ...] = TARGET) -> subprocess.Popen:
    # A session of its own, so a signal reaches snakemake and every job it started.
    return subprocess.Popen(
        [sys.executable, "-m", "snakemake", *target], cwd=workdir, env=ENV,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )


def _wait_for(condition, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the workflow")
        time.sleep(0.05)


def test_second_concurrent_run_is_refused_by_the_lock(tmp_path):
    # one benchmark's target (gating's, the longest: the second run's start, about 3 s, must
    # come while the first still runs)
    target = ("--cores", "2", "gating")
    workdir = copy_workflow(tmp_path / "scievals")
    first = _start(workdir, target)
    locks = workdir / ".snakemake" / "locks"
    _wait_for(lambda: locks.is_dir() and any(locks.iterdir()) or first.poll() is not None)
    second = snakemake(workdir, *target, check=False)
    out, _ = first.communicate(timeout=900)
    assert first.returncode == 0, out[-4000:]
    assert second.returncode != 0
    assert "cannot be locked" in second.stdout + second.stderr
    # The refused run left the first one's results alone, and the lock is gone afterwards.
    assert (workdir / "results" / "summary.csv").stat().st_size > 0
    assert not locks.exists() or not any(locks.iterdir())


def _without_summaries(finished: Path, dest: Path) -> Path:
    """A copy of a finished run (its .snakemake records and mtimes kept) without the summary
    stage's outputs and logs: a run in it does the summaries only, the stage the "summary"
    kill hits, instead of every benchmark first."""
    copy_default_run(finished, dest)
    for table in [dest / "results" / "summary.csv", *dest.glob("results/*/summary.csv")]:
        table.unlink()
    shutil.rmtree(dest / "logs" / "summarize_benchmark")
    return dest


@pytest.mark.parametrize(
    ("sig", "when"),
    [(signal.SIGKILL, "early"), (signal.SIGTERM, "early"), (signal.SIGKILL, "summary")],
)
def test_killed_run_resumes_to_an_identical_summary(default_run, tmp_path, sig, when):
    # compared with the session's default run (a benchmark's target writes the same table)
    if when == "early":
        target, table = EARLY, EARLY_TABLE
        workdir = copy_workflow(tmp_path / "scievals")
        run = _start(workdir, target)
        time.sleep(2.5)
    else:  # the per-benchmark summaries are being merged
        target, table = TARGET, Path("results") / "summary.csv"
        workdir = _without_summaries(default_run, tmp_path / "scievals")
        run = _start(workdir, target)
        _wait_for(lambda: (workdir / "logs" / "summarize_benchmark").is_dir())
    os.killpg(run.pid, sig)
    run.communicate(timeout=120)
    locks = workdir / ".snakemake" / "locks"
    if locks.is_dir() and any(locks.iterdir()):
        snakemake(workdir, "--unlock")  # after SIGKILL: the documented recovery
    snakemake(workdir, *target)
    expected = (default_run / table).read_bytes()
    assert (workdir / table).read_bytes() == expected


def test_offline_llm_fails_its_job_instead_of_scoring_zero(tmp_path):
    """Issue 14, item 3 as reported: an offline Anthropic model used to score 0, exit 0."""
    import socket

    import yaml

    workdir = copy_workflow(tmp_path / "scievals")
    with socket.socket() as sock:  # a port nobody listens on: "offline"
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    extra = {
        "models": {"claude": {"provider": "anthropic", "model": "claude-test",
                              "base_url": f"http://127.0.0.1:{port}",
                              "api_key_env": "SCIEVALS_TEST_LLM_KEY", "timeout_s": 2}},
        "llm": {"max_attempts": 1},
        # two cases: each unanswered request waits out its 2 s timeout
        "gating": {"models": ["marker_baseline", "claude"], "contexts": ["minimal"],
                   "strategies": ["direct"], "limit": 2},
    }
    (workdir / "offline.yaml").write_text(yaml.safe_dump(extra))
    env = dict(ENV, SCIEVALS_TEST_LLM_KEY="sk-test-offline-0000")
    # A port that accepts connections but never answers: the preflight's TCP check passes
    # (as it does for an official endpoint, which it does not probe) and every request then
    # times out, as offline.
    listener = socket.socket()
    listener.bind(("127.0.0.1", port))
    listener.listen()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "snakemake", "gating", "--cores", "2",
             "--configfile", "config/config.yaml", "offline.yaml"],
            cwd=workdir, env=env, capture_output=True, text=True, timeout=900, check=False,
        )
    finally:
        listener.close()
    assert proc.returncode != 0
    log = (workdir / "logs" / "gating_predict" / "claude.log").read_text()
    assert "model 'claude' (anthropic at" in log and "requests failed after their retries" in log
    assert not (workdir / "results" / "gating" / "scores" / "claude.csv").exists()
    assert "sk-test-offline" not in log + proc.stdout + proc.stderr
