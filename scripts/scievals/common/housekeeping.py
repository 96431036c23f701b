"""Pruning the workflow's own bookkeeping folders, which otherwise grow with every job ever run.

Two folders under ``.snakemake/`` gain an entry per distinct job or own file and nothing else
removes them: the job files (:data:`scievals.common.job_spec.SPEC_DIR`, one per distinct set
of a job's facts) and the kept score tables (:data:`scievals.common.score_cache.CACHE_DIR`,
one folder per distinct own file). Every run marks what it uses (a job file is touched when
the DAG names it again, a kept folder when its tables are restored), so an entry untouched for
:data:`MAX_AGE_DAYS` belongs to no job of any run since: a successful run removes those. An
entry removed too early costs only a re-write (job file) or a re-score (kept tables).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from scievals.common.job_spec import SPEC_DIR
from scievals.common.score_cache import CACHE_DIR

MAX_AGE_DAYS = 30


def prune_unused(folder: str | os.PathLike, max_age_days: float = MAX_AGE_DAYS,
                 now: float | None = None) -> int:
    """Remove the entries of ``folder`` (files or folders) last used more than
    ``max_age_days`` ago; returns how many were removed. Never raises: housekeeping must not
    fail a run that succeeded."""
    cutoff = (time.time() if now is None else now) - max_age_days * 86400
    removed = 0
    try:
        if Path(folder).is_symlink():  # its entries would be another folder's: never pruned
            return 0
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        try:
            if entry.stat(follow_symlinks=False).st_mtime >= cutoff:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
            removed += 1
        except OSError:
            continue
    return removed


def _linked_out(folder: Path) -> bool:
    """Whether a folder between ``folder`` and ``.snakemake/`` is a symlink (someone linked it
    elsewhere: what is there is not the workflow's to delete; ``folder`` itself is checked by
    :func:`prune_unused`)."""
    return any(part.is_symlink() for part in [*folder.parents][:-2])


def prune_bookkeeping(max_age_days: float = MAX_AGE_DAYS) -> int:
    """Prune the job files and the kept score tables of the working directory; a folder
    reached through a symlink below ``.snakemake/`` is left alone."""
    return sum(prune_unused(Path(folder), max_age_days) for folder in (SPEC_DIR, CACHE_DIR)
               if not _linked_out(Path(folder)))
