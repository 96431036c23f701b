"""An own file's score tables, kept so that a batch job re-scores only the files that changed.

Own files are scored a batch per job (``<b>_score_own_<k>``, scievals.common.workflow.byo_batches),
and Snakemake removes every output of a job before it runs it: adding one own file re-ran its
whole batch, a few dozen files at 300 and over a thousand at 10,000. So a batch job keeps a copy
of each file's tables under ``.snakemake/scievals-scores/<key>/``, keyed by the SHA-256 of
everything the tables are made of: the prediction file's bytes, every truth file's bytes, the
model and the user's file name, the settings, bootstrap and config hash, the score code (its
version, the digest of its source and the versions of the libraries it imports,
scievals.common.code_digest), and the package version and git commit the tables record. A file
whose key is kept gets its tables back, byte for byte what scoring it again would write; only
the others are scored.

A kept table is served only if it is the one that was written: the entry holds copies (an edit
of a result table in place never reaches it), and the SHA-256 and size of each, recorded when
it was kept and checked when it is restored. An entry that differs (a value changed, a file
truncated, missing or unreadable) is removed and its file scored again, said in one line.
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
from scievals.common import notices
from scievals.common.code_digest import library_versions, score_code_digest
from scievals.common.io import atomic_path
from scievals.common.jobs import ScoreJob
from scievals.common.provenance import git_commit
from scievals.common.table_files import NOT_SCORED

CACHE_DIR = Path(".snakemake") / "scievals-scores"
DIGESTS = "digests.json"  # in each entry: output name -> {"sha256", "bytes"} as kept
SHOWN = 3  # damaged entries named in the one line that says so (then a count of the rest)


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
         "code": score_code_digest(job.benchmark), "outputs": sorted(job.outputs),
         "libraries": library_versions(f"scievals.{job.benchmark}.score"),
         # what the tables' provenance records (the code itself is named by its digest)
         "version": __version__, "commit": git_commit()},
        sort_keys=True, default=str).encode())
    for path in job.predictions:
        digest.update(b"\0predictions\0")
        _digest_file(digest, path)
    return digest.hexdigest()


def _digest(data: bytes) -> dict[str, Any]:
    return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


class DamagedEntry(Exception):
    """A kept entry that is not what was written: a file changed, truncated, missing or
    unreadable, or its digests gone."""


def _checked(kept: Path, names: Sequence[str]) -> dict[str, bytes]:
    """The kept files ``names`` of an entry, each equal to the digest recorded when it was
    kept; else :class:`DamagedEntry` saying what differs."""
    try:
        recorded = json.loads((kept / DIGESTS).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DamagedEntry(f"its {DIGESTS} is unreadable ({exc.__class__.__name__})") from exc
    tables = {}
    for name in names:
        expected = recorded.get(name) if isinstance(recorded, dict) else None
        if not isinstance(expected, dict):
            raise DamagedEntry(f"no digest recorded for {name}")
        try:
            data = (kept / name).read_bytes()
        except OSError as exc:
            raise DamagedEntry(f"{name} unreadable ({exc.strerror or exc})") from exc
        if _digest(data) != expected:
            raise DamagedEntry(
                f"{name} is {len(data)} bytes, {expected.get('bytes')} when kept"
                if len(data) != expected.get("bytes") else
                f"{name} changed since it was kept (same size, another SHA-256)")
        tables[name] = data
    return tables


def restore(job: ScoreJob, key: str) -> bool:
    """Put back the kept tables of ``key`` as the job's outputs; False if none are kept.

    Each kept file is checked against its digest first; a damaged entry is removed (the file
    is then scored, and kept again) and :class:`DamagedEntry` says why."""
    kept = CACHE_DIR / key
    if not kept.is_dir():
        return False
    try:
        tables = _checked(kept, list(job.outputs))
    except DamagedEntry:
        shutil.rmtree(kept, ignore_errors=True)
        raise
    for name, path in job.outputs.items():
        # a copy, written now: newer than the job's inputs, as a table scored now is, and
        # not the kept file itself (an edit of the result must not reach the cache)
        with atomic_path(path) as tmp:
            tmp.write_bytes(tables[name])
    try:
        os.utime(kept)  # in use: kept by scievals.common.housekeeping's pruning
    except OSError:
        pass
    return True


def _not_scored(path: str | os.PathLike) -> bool:
    with open(path, "rb") as handle:
        return handle.read(len(NOT_SCORED)) == NOT_SCORED.encode()


def keep(job: ScoreJob, key: str) -> None:
    """Keep copies of the job's freshly written outputs under ``key``, with their digests (a
    folder renamed into place, so a reader sees all of them or none). A failure to keep them
    costs only a later re-score."""
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
        digests = {}
        for name, path in job.outputs.items():
            data = Path(path).read_bytes()
            (folder / name).write_bytes(data)
            digests[name] = _digest(data)
        (folder / DIGESTS).write_text(json.dumps(digests, sort_keys=True), encoding="utf-8")
        os.replace(folder, target)
    except OSError:  # a full disk, or another job kept the same key first
        shutil.rmtree(folder, ignore_errors=True)


def split(jobs: Sequence[ScoreJob], code_version: str) -> tuple[list[int], list[str]]:
    """(indices of the jobs to score, every job's key); the jobs whose tables were kept have
    them back already. Damaged entries are scored again, said in one notice."""
    truth = truth_digest(jobs[0].truth) if jobs else ""
    keys = [job_key(job, code_version, truth) for job in jobs]
    todo, damaged = [], []
    for i, job in enumerate(jobs):
        try:
            if restore(job, keys[i]):
                continue
        except DamagedEntry as exc:
            damaged.append(f"{job.origin or job.model}: {exc}")
        todo.append(i)
    if damaged:
        more = f" and {len(damaged) - SHOWN} more" if len(damaged) > SHOWN else ""
        notices.record("other", jobs[0].benchmark,
                       f"{len(damaged)} kept score table(s) under {CACHE_DIR} were damaged "
                       f"({'; '.join(damaged[:SHOWN])}{more}): discarded and scored again",
                       once=True)
    return todo, keys
