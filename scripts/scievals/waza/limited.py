"""Grader commands (``program``, ``script``) under :mod:`scievals.common.subprocess_limits`.

A grader command runs in the run's temporary workspace (a fresh empty folder when the run
has none, e.g. ``waza grade`` without ``--workspace``), with the agent shell's scrubbed
environment plus ``WAZA_WORKSPACE_DIR``, its own process group and memory/CPU limits.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from scievals.common.subprocess_limits import Finished, run_limited, scrubbed_env
from scievals.waza.graders.base import GraderContext

GRADER_MEMORY_MB = 2048


@contextlib.contextmanager
def working_dir(context: GraderContext) -> Iterator[Path]:
    """The run's workspace, or a temporary folder removed afterwards."""
    if context.workspace_dir is not None and Path(context.workspace_dir).is_dir():
        yield Path(context.workspace_dir)
        return
    scratch = Path(tempfile.mkdtemp(prefix="waza-grader-"))
    try:
        yield scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def caller_path(path: str) -> str:
    """A relative path with a folder part (``graders/check.py``, ``./run.sh``) made absolute
    against this process's directory: it meant that before graders moved to the workspace.
    A bare program name stays one (looked up on PATH)."""
    if os.sep in path and not os.path.isabs(path):
        return os.path.abspath(path)
    return path


def run_grader_command(argv: Sequence[str], context: GraderContext, timeout_s: float,
                       input: bytes = b"") -> Finished:
    """Run one grader command for ``context``'s run; ``OSError`` if it cannot start."""
    workspace = str(context.workspace_dir or "")
    with working_dir(context) as cwd:
        env = scrubbed_env(cwd, {"WAZA_WORKSPACE_DIR": workspace})
        return run_limited(list(argv), cwd=cwd, timeout_s=timeout_s, input=input, env=env,
                           memory_mb=GRADER_MEMORY_MB)
