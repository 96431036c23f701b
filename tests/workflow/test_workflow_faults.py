"""Faults the workflow already survives, kept under test (issue 14, "held up well").

A run killed with SIGKILL or SIGTERM (early, and while the summary is written)
resumes to a byte-identical results/summary.csv, and a second run started while
one is going is refused by Snakemake's lock without touching the first.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import copy_workflow, snakemake

pytestmark = pytest.mark.slow
ENV = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit")
TARGET = ("--cores", "2", "results/summary.csv")


def _start(workdir: Path) -> subprocess.Popen:
    # A session of its own, so a signal reaches snakemake and every job it started.
    return subprocess.Popen(
        [sys.executable, "-m", "snakemake", *TARGET], cwd=workdir, env=ENV,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )


def _wait_for(condition, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the workflow")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """A clean run, during which a second run is started and must be refused by the lock."""
    workdir = copy_workflow(tmp_path_factory.mktemp("wf") / "scievals")
    first = _start(workdir)
    locks = workdir / ".snakemake" / "locks"
    _wait_for(lambda: locks.is_dir() and any(locks.iterdir()) or first.poll() is not None)
    second = snakemake(workdir, *TARGET, check=False)
    out, _ = first.communicate(timeout=900)
    assert first.returncode == 0, out[-4000:]
    return workdir, second


def test_second_concurrent_run_is_refused_by_the_lock(reference):
    workdir, second = reference
    assert second.returncode != 0
    assert "cannot be locked" in second.stdout + second.stderr
    # The refused run left the first one's results alone, and the lock is gone afterwards.
    assert (workdir / "results" / "summary.csv").stat().st_size > 0
    locks = workdir / ".snakemake" / "locks"
    assert not locks.exists() or not any(locks.iterdir())


@pytest.mark.parametrize(
    ("sig", "when"),
    [(signal.SIGKILL, "early"), (signal.SIGTERM, "early"), (signal.SIGKILL, "summary")],
)
def test_killed_run_resumes_to_an_identical_summary(reference, tmp_path, sig, when):
    workdir = copy_workflow(tmp_path / "scievals")
    run = _start(workdir)
    if when == "early":
        time.sleep(2.5)
    else:  # the per-benchmark summaries are being merged
        _wait_for(lambda: (workdir / "logs" / "summarize_benchmark").is_dir())
    os.killpg(run.pid, sig)
    run.communicate(timeout=120)
    locks = workdir / ".snakemake" / "locks"
    if locks.is_dir() and any(locks.iterdir()):
        snakemake(workdir, "--unlock")  # after SIGKILL: the documented recovery
    snakemake(workdir, *TARGET)
    expected = (reference[0] / "results" / "summary.csv").read_bytes()
    assert (workdir / "results" / "summary.csv").read_bytes() == expected
