"""Kept runs named by id: our own run logs (``results/runs/<id>/``, :mod:`runlogs`) and the
tables ``import`` kept (``results/imported/``), read as :class:`ImportedRun` arms, so
``compare`` and ``leaderboard`` take ``20261128T041500Z-3fa9c1`` (or a unique prefix),
``latest``, ``latest-full`` (``@latest``, ``@latest-full`` too) or ``imported:<8 hex>``
where they take a log file.

A kept run holds one Every Eval Ever record per benchmark x model x condition; each is read
by :mod:`eee_read` (the reader of anyone's EEE records) and becomes one arm labelled as
``logs`` labels it (``model [condition]``). A record kept without instance rows (no item was
shown) has nothing to pair and is left out with a note.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.interop import eee_read, runlogs
from scievals.interop.imported_store import (
    IMPORTED_DIR,
    IMPORTED_PREFIX,
    imported_id,
    imported_tables,
)
from scievals.interop.importing import read_kept
from scievals.interop.runs import ImportedRun

RUNS_DIR = Path("results/runs")
NAMED = {"latest", "latest-full", "@latest", "@latest-full"}
# what `logs` prints as a run id, or its first characters (at least the date's 8 digits)
RUN_PREFIX = re.compile(r"\d{8}(T\d{0,6}(Z(-[0-9a-f]{0,6})?)?)?")
IMPORTED_ID = re.compile(r"[0-9a-f]{4,8}")


@dataclass
class KeptArms:
    """The arms one reference names: ``source`` says which kept run or import they are."""

    source: str
    runs: list[ImportedRun]
    notes: list[str] = field(default_factory=list)


def is_ref(text: str) -> bool:
    """True when ``text`` names a kept run or import (and no file of that name exists)."""
    if Path(text).exists():
        return False
    if text in NAMED or text.startswith(IMPORTED_PREFIX):
        return True
    return bool(RUN_PREFIX.fullmatch(text))


def resolve(ref: str, runs_dir: str | Path = RUNS_DIR,
            imported_dir: str | Path = IMPORTED_DIR) -> KeptArms:
    """The arms of a kept run or import (module docstring); a ScievalsError when ``ref``
    names none or several."""
    if ref.startswith(IMPORTED_PREFIX):
        return _imported(ref, Path(imported_dir))
    run = runlogs.find_run(ref.lstrip("@"), runs_dir)
    runs, notes = [], []
    folder = Path(run["folder"])
    for entry in run.get("records", []):
        if not entry.get("samples"):
            notes.append(f"{run['run_id']}: {entry['benchmark']} {entry['label']} was kept "
                         "without items: not compared")
            continue
        path = folder / entry["aggregate"]
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ScievalsError(path, f"kept run {run['run_id']} is damaged "
                                f"({type(exc).__name__})", "give another run "
                                "(python -m scievals logs)") from None
        found = eee_read.read_record(path, data)
        found.arm = entry["label"]
        runs.append(found)
    if not runs:
        raise ScievalsError(run["folder"], f"kept run {run['run_id']} holds no item",
                            "give a run that scored items (python -m scievals logs)")
    return KeptArms(run["run_id"], runs, notes)


def _imported(ref: str, imported_dir: Path) -> KeptArms:
    digest = ref[len(IMPORTED_PREFIX):]
    tables = imported_tables(imported_dir)
    matches = [p for p in tables if imported_id(p)[len(IMPORTED_PREFIX):].startswith(digest)]
    if not IMPORTED_ID.fullmatch(digest) or len(matches) != 1:
        known = ", ".join(imported_id(p) for p in tables[-5:]) or "none kept yet"
        raise ScievalsError(imported_dir, f"no single kept import {ref!r} ({len(matches)} "
                            "match)", f"give an id from `python -m scievals logs` ({known})")
    return KeptArms(imported_id(matches[0]), [read_kept(matches[0])])
