"""One ``python -m scievals run`` at a time in a folder: an OS lock held from before the
run's config overlay is written until its Snakemake exits.

Two runs of one benchmark share ``.scievals/run/<benchmark>.yaml``: without the lock the
second run rewrote the overlay the first one's Snakemake was about to read, and the first
exited 0 with the second's model (issue 46). A second run is refused in one line, naming
the run that holds the folder; the lock (``fcntl.flock``) goes with the process that holds
it, so a killed run never leaves the folder locked.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scievals.common.errors import ScievalsError, visible

try:
    import fcntl
except ImportError:  # Windows: no flock; Snakemake's own lock still refuses a second run
    fcntl = None

LOCK_NAME = ".lock"


@contextmanager
def run_lock(folder: str | os.PathLike, what: str) -> Iterator[None]:
    """Hold ``folder/.lock`` while the block runs; a :class:`ScievalsError` (one line) when
    another live run holds it. ``what`` (the run's benchmarks and models) is written into
    the lock file, so the refusal of a second run can say which run is in the way."""
    if fcntl is None:
        yield
        return
    path = Path(folder) / LOCK_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _busy(path, _holder(fd)) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(), "run": what}).encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)  # the lock file says nothing once the run is over
    finally:
        os.close(fd)  # releases the lock


def _holder(fd: int) -> str:
    """What the lock file says about the run holding it ("" when unreadable)."""
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
        return visible(f"pid {int(data['pid'])}: {str(data['run'])[:120]}", keep="")
    except (OSError, ValueError, KeyError, TypeError):
        return ""


def _busy(path: Path, holder: str) -> ScievalsError:
    who = f" ({holder})" if holder else ""
    return ScievalsError(path, f"another `python -m scievals run`{who} is running in this "
                         "folder; two runs here would share its config overlay and result "
                         "files", "wait for it to end, then run again; or run from another "
                         "copy of the workflow")
