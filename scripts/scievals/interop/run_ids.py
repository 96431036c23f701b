"""Kept runs named by id: our own run logs (``results/runs/<id>/``, :mod:`runlogs`) and the
tables ``import`` kept (``results/imported/``), read as :class:`ImportedRun` arms, so
``compare`` and ``leaderboard`` take ``20261128T041500Z-3fa9c1`` (or a unique prefix),
``latest``, ``latest-full`` (``@latest``, ``@latest-full`` too) or ``imported:<8 hex>``
where they take a log file.

A kept run holds one Every Eval Ever record per benchmark x model x condition; each is read
by :mod:`eee_read` (the reader of anyone's EEE records) and becomes one arm labelled as
``logs`` labels it (``model [condition]``). An instance row's score is one metric (the
benchmark's per-item score); our rows also carry the item's other metrics
(``metadata["metric.<name>"]``), and each that the record reports as a result of that
evaluation is compared too, with that result's range and direction
(:func:`with_item_metrics`). A record kept without instance rows (no item was shown) has
nothing to pair and is left out with a note.
"""

from __future__ import annotations

import json
import math
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
from scievals.interop.runs import ImportedRun, finished

RUNS_DIR = Path("results/runs")
IMPORTED_ID = re.compile(r"[0-9a-f]{4,8}")


@dataclass
class KeptArms:
    """The arms one reference names: ``source`` says which kept run or import they are."""

    source: str
    runs: list[ImportedRun]
    notes: list[str] = field(default_factory=list)


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
        found = with_item_metrics(eee_read.read_record(path, data), data)
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


def with_item_metrics(run: ImportedRun, aggregate: dict) -> ImportedRun:
    """``run`` (one of our kept records, read) with the item metrics its instance rows carry
    in ``metadata["metric.<name>"]`` (module docstring). Rows marked ``scored: false`` (a
    failed request) have no metrics; values that are not finite numbers are left out."""
    configs = {(r["evaluation_name"], r["metric_config"].get("metric_id")): r["metric_config"]
               for r in aggregate.get("evaluation_results", [])}
    have = set(run.metrics)
    records = list(run.rows.itertuples(index=False, name=None))
    declared = {key: ((info.low, info.high), info.lower_is_better)
                for key, info in run.metrics.items()}
    samples = run.path.with_name(f"{run.path.stem}_samples.jsonl")
    seen: dict[tuple, int] = {}
    for row in _instance_rows(samples):
        task, item = str(row.get("evaluation_name", "")), str(row.get("sample_id", ""))
        seen[(task, item)] = seen.get((task, item), 0) + 1
        metadata = row.get("metadata") or {}
        if metadata.get("scored") == "false":
            continue
        for key, text in metadata.items():
            name = key[len("metric."):] if key.startswith("metric.") else None
            config = configs.get((task, name))
            if config is None or (task, name) in have:
                continue
            try:
                value = float(text)
            except (TypeError, ValueError):
                continue
            if not math.isfinite(value):
                continue
            records.append((task, name, item, seen[(task, item)], value))
            declared.setdefault((task, name), (_config_range(config),
                                               bool(config.get("lower_is_better"))))
    if len(records) == len(run.rows):
        return run
    out = finished(run.path, run.format, run.model, records, declared, run.reported,
                   run.notes, run.errored)
    out.arm, out.usage = run.arm, run.usage
    return out


def _instance_rows(path: Path):
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    yield json.loads(line)
    except (OSError, ValueError):  # read whole by eee_read just before: nothing to add
        return


def _config_range(config: dict) -> tuple[float, float] | None:
    """A result's (min_score, max_score) (``"Infinity"`` for an open end), or None."""
    if "min_score" not in config and "max_score" not in config:
        return None
    ends = []
    for key, default in (("min_score", -math.inf), ("max_score", math.inf)):
        value = config.get(key)
        ends.append(default if value is None else float(value))
    return (ends[0], ends[1])
