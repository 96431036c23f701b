"""Things a run must say at its end: fallbacks, failed requests, set-aside files.

A job that succeeds with a caveat records a notice here instead of only logging
a WARNING that scrolls away. Each notice is one JSON object (keys ``kind``,
``benchmark``, ``model``, ``message``) in its own file
``logs/notices/<name>.jsonl``, named by what it is about. Jobs run in parallel
and on other machines, so they never share a file; a job that runs again
cleanly removes its notice with :func:`clear_notice`, so the folder always says
what is true of the current results. ``SCIEVALS_NOTICE_DIR`` moves the folder.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from scievals.common.io import write_text

DEFAULT_DIR = "logs/notices"
NOTICE_KEYS = ("kind", "benchmark", "model", "message")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def notice_dir() -> Path:
    return Path(os.environ.get("SCIEVALS_NOTICE_DIR") or DEFAULT_DIR)


def notice_path(name: str) -> Path:
    """The file of the notice called ``name`` (unsafe characters become ``_``)."""
    return notice_dir() / f"{_UNSAFE.sub('_', name).strip('_') or 'notice'}.jsonl"


def write_notice(name: str, kind: str, benchmark: str, model: str, message: str) -> Path:
    """Record (or replace) the notice ``name``; returns its file."""
    record = {"kind": kind, "benchmark": benchmark, "model": model, "message": message}
    path = notice_path(name)
    write_text(path, json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n")
    return path


def clear_notice(name: str) -> None:
    notice_path(name).unlink(missing_ok=True)


def read_notices() -> list[dict]:
    """Every recorded notice, in file-name order; unreadable lines are skipped."""
    folder = notice_dir()
    if not folder.is_dir():
        return []
    notices = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict):
                notices.append(record)
    return notices
