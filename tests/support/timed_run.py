"""Wall and CPU time of one command and every process it starts (for benchmarks/)."""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path


def timed_run(cmd: list[str], cwd: Path, env: Mapping[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of ``cmd`` and all its descendants); exits with the
    command's stderr tail when it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=dict(env),
                          check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
