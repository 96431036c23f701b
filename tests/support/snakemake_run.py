"""Run the real ``snakemake`` in a workflow copy as a user would: offline, from the copy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """``python -m snakemake ARGS`` in ``workdir``; with ``check`` a failure is an
    AssertionError carrying the output's tail."""
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit")
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=workdir, env=env, capture_output=True, text=True, timeout=900, check=False,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}")
    return proc
