"""Fixtures that run the real ``snakemake`` on a temporary copy of the workflow."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.workflow_copy import copy_workflow as support_copy

ROOT = Path(__file__).resolve().parents[2]


def copy_workflow(dest: Path) -> Path:
    return support_copy(ROOT, dest)


def snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run snakemake as a user would, from the workflow copy, offline."""
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit")
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=workdir, env=env, capture_output=True, text=True, timeout=900, check=False,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}")
    return proc


# What the default run printed (stdout, stderr), beside its copy: quick_start_output(workdir).
QUICK_START_OUTPUT = "quick_start_output.txt"


@pytest.fixture(scope="session")
def default_run(tmp_path_factory) -> Path:
    """The README's main command on the embedded default, run once per session."""
    workdir = copy_workflow(tmp_path_factory.mktemp("wf") / "scievals")
    proc = snakemake(workdir, "--cores", "2", "results/summary.csv")
    (workdir.parent / QUICK_START_OUTPUT).write_text(proc.stdout + proc.stderr)
    return workdir


def quick_start_output(workdir: Path) -> str:
    return (workdir.parent / QUICK_START_OUTPUT).read_text()
