"""An own file's score tables, kept so that a batch job re-scores only the files that changed.

Own files are scored a batch per job (``<b>_score_own_<k>``, scievals.common.workflow.byo_batches),
and Snakemake removes every output of a job before it runs it: adding one own file re-ran its
whole batch, a few dozen files at 300 and over a thousand at 10,000. So a batch job keeps each
file's tables under ``.snakemake/scievals-scores/<key>/`` (hard links where the file system
allows, so they take no space), keyed by the SHA-256 of everything the tables are made of: the
prediction file's bytes, every truth file's bytes, the model and the user's file name, the
settings, bootstrap and config hash, the score code's version, and the package version and git
commit the tables record. A file whose key is kept gets its tables back, byte for byte what
scoring it again would write; only the others are scored.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scievals import __version__
from scievals.common.jobs import ScoreJob
from scievals.common.provenance import git_commit
from scievals.common.table_files import NOT_SCORED

CACHE_DIR = Path(".snakemake") / "scievals-scores"


def _digest_file(digest: Any, path: str | os.PathLike) -> None:
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)


def _files(value: Any) -> list[str]:
    return [str(value)] if isinstance(value, (str, os.PathLike)) else [str(v) for v in value]


def truth_digest(truth: Mapping[str, Any]) -> str:
    """SHA-256 of every truth input, by name (read once per batch: the jobs share them)."""
    digest = hashlib.sha256()
    for name in sorted(truth):
        for path in _files(truth[name]):
            digest.update(f"\0{name}\0{path}\0".encode())
            _digest_file(digest, path)
    return digest.hexdigest()


def job_key(job: ScoreJob, code_version: str, truth: str) -> str:
    """The key of one file's tables: what they are made of (see the module docstring)."""
    digest = hashlib.sha256(json.dumps(
        {"model": job.model, "origin": job.origin, "benchmark": job.benchmark,
         "settings": dict(job.settings), "bootstrap": dict(job.bootstrap),
         "config_hash": job.config_hash, "code_version": code_version, "truth": truth,
         "outputs": sorted(job.outputs), "version": __version__, "commit": git_commit()},
        sort_keys=True, default=str).encode())
    for path in job.predictions:
        digest.update(b"\0predictions\0")
        _digest_file(digest, path)
    return digest.hexdigest()


def _place(source: Path, target: Path) -> None:
    """``target`` as a hard link to ``source`` (a copy across file systems), replacing it."""
    tmp = target.with_name(f".{target.name}.cache-tmp")
    tmp.unlink(missing_ok=True)
    try:
        os.link(source, tmp)
    except OSError:
        shutil.copyfile(source, tmp)
    os.replace(tmp, target)


def _not_scored(path: str | os.PathLike) -> bool:
    with open(path, "rb") as handle:
        return handle.read(len(NOT_SCORED)) == NOT_SCORED.encode()


def restore(job: ScoreJob, key: str) -> bool:
    """Put back the kept tables of ``key`` as the job's outputs; False if none are kept."""
    kept = CACHE_DIR / key
    if not all((kept / name).is_file() for name in job.outputs):
        return False
    for name, path in job.outputs.items():
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        _place(kept / name, Path(path))
        # newer than the job's inputs, as a table scored now is (else Snakemake would see an
        # output older than its inputs and run the job again at every run)
        os.utime(path)
    try:
        os.utime(kept)  # in use: kept by scievals.common.housekeeping's pruning
    except OSError:
        pass
    return True


def keep(job: ScoreJob, key: str) -> None:
    """Keep the job's freshly written outputs under ``key`` (a folder renamed into place,
    so a reader sees all of them or none). A failure to keep them costs only a later re-score."""
    target = CACHE_DIR / key
    if target.is_dir() or any(_not_scored(path) for path in job.outputs.values()):
        # an invalid file's error stands in for its tables: it is checked, and its error
        # reported, again at every run until the file is fixed
        return
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(dir=CACHE_DIR, prefix=".tmp-"))
    except OSError:
        return
    try:
        for name, path in job.outputs.items():
            _place(Path(path), folder / name)
        os.replace(folder, target)
    except OSError:  # a full disk, or another job kept the same key first
        shutil.rmtree(folder, ignore_errors=True)


def split(jobs: Sequence[ScoreJob], code_version: str) -> tuple[list[int], list[str]]:
    """(indices of the jobs to score, every job's key); the jobs whose tables were kept have
    them back already."""
    truth = truth_digest(jobs[0].truth) if jobs else ""
    keys = [job_key(job, code_version, truth) for job in jobs]
    return [i for i, job in enumerate(jobs) if not restore(job, keys[i])], keys
