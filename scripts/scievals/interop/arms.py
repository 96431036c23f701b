"""The arms of ``leaderboard`` and ``compare``: what each command-line argument names (a log
file, a folder of logs, a kept run or import by id), split per task, with a label per arm.

- A folder (or a glob's files) is read as ``import`` reads it
  (:func:`scievals.interop.importing.read_logs`): samples files go with their results
  file, JSON files in a folder that are no log (inspect's ``logs.json`` listing) are
  passed over with a note.
- A run holding several tasks (lm-eval's ``--tasks a,b``, a kept run of four benchmarks)
  is one arm per task: tasks are never mixed in one table.
- Labels: the model (a kept run's record label ``model [condition]``); ``--name`` names the
  arguments in order (an argument naming several arms of one task prefixes theirs); two
  arms of one task with one label are told apart by their log (the file name, or the run
  id).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.interop import run_ids
from scievals.interop.importing import read_log, read_logs
from scievals.interop.refs import is_ref
from scievals.interop.runs import ImportedRun

@dataclass
class Arm:
    """One arm of one task: its label, the run's rows of that task, where it came from."""

    task: str
    label: str
    run: ImportedRun
    origin: str  # the log file, or the kept run's / import's id


@dataclass
class Sources:
    """Every argument's runs ([(argument, [(origin, run)])], in order), errors and notes."""

    runs: list[tuple[str, list[tuple[str, ImportedRun]]]] = field(default_factory=list)
    errors: list[ScievalsError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def read_arguments(arguments: Sequence[str], runs_dir=run_ids.RUNS_DIR,
                   imported_dir=run_ids.IMPORTED_DIR) -> Sources:
    """The runs each argument names (module docstring); one error per unreadable one."""
    found = Sources()
    for argument in arguments:
        try:
            found.runs.append((argument, _runs_of(argument, runs_dir, imported_dir,
                                                  found.notes)))
        except ScievalsError as exc:
            found.errors.append(exc)
    return found


def _runs_of(argument: str, runs_dir, imported_dir, notes: list[str]):
    if is_ref(argument):
        kept = run_ids.resolve(argument, runs_dir, imported_dir)
        notes.extend(kept.notes)
        return [(kept.source, run) for run in kept.runs]
    runs = []
    for path, found in read_logs([argument], notes, _read):
        if isinstance(found, ScievalsError):
            raise found
        runs.append((str(path), found))
    return runs


def _read(path: Path) -> ImportedRun:
    """A log; an Every Eval Ever record with every metric its rows carry (ours exported)."""
    run = read_log(path)
    if run.format.startswith("Every Eval Ever"):
        run = run_ids.with_item_metrics(run, json.loads(path.read_text(encoding="utf-8")))
    return run


def check_names(names: list[str]) -> None:
    """``--name`` labels: visible, one line, unique."""
    for name in names:
        if not name.strip() or any(ch in name for ch in "\r\n\t"):
            raise ScievalsError("--name", f"label {name!r} is empty or spans lines",
                                "give each arm a visible one-line name")
    if len(set(names)) < len(names):
        raise ScievalsError("--name", "the same label twice", "give each arm its own name")


def task_arms(sources: Sources, names: Sequence[str] = ()) -> dict[str, list[Arm]]:
    """task -> its arms, labelled (module docstring). ``names``: one label per argument, in
    order (fewer is fine: the rest keep their model's name)."""
    if len(names) > len(sources.runs):
        raise ScievalsError("--name", f"{len(names)} names for {len(sources.runs)} "
                            "arguments", "give at most one --name per log or run id")
    tasks: dict[str, list[Arm]] = {}
    for number, (argument, runs) in enumerate(sources.runs):
        name = names[number] if number < len(names) else None
        per_task: dict[str, list[Arm]] = {}
        for origin, run in runs:
            for task in sorted(set(run.rows["dataset"])):
                per_task.setdefault(task, []).append(
                    Arm(task, run.arm, task_run(run, task), origin))
        for task, arms in per_task.items():
            for arm in arms:
                if name:
                    arm.label = name if len(arms) == 1 else f"{name}: {arm.label}"
            tasks.setdefault(task, []).extend(arms)
    for arms in tasks.values():
        _tell_apart(arms)
    return dict(sorted(tasks.items()))


def task_run(run: ImportedRun, task: str, named: str | None = None) -> ImportedRun:
    """``run`` restricted to one task (a copy: the run itself is left as it is); ``named``:
    the task called so in the copy (a limited run's task paired with the full run's)."""
    named = named or task
    rows = run.rows[run.rows["dataset"] == task].reset_index(drop=True).assign(dataset=named)
    metrics = {(named, k[1]): v for k, v in run.metrics.items() if k[0] == task}
    part = ImportedRun(run.path, run.format, run.model, rows, metrics, run.reported,
                       list(run.notes),
                       errored={(named, e[1]) for e in run.errored if e[0] == task})
    part.arm = run.arm
    if run.usage is not None:
        part.usage = {named: run.usage[task]} if task in run.usage else {}
    return part


def _short_origin(arm: Arm) -> str:
    """The log's file name; lm-eval's output folder for its results_<timestamp>.json."""
    path = Path(arm.origin)
    return path.parent.name if path.name.startswith("results_") and path.parent.name \
        else path.name


def _tell_apart(arms: list[Arm]) -> None:
    """Labels made unique within a task: by the log's name, then its whole path."""
    for describe in (_short_origin, lambda a: a.origin):
        labels = [a.label for a in arms]
        for arm in arms:
            if labels.count(arm.label) > 1:
                arm.label = f"{arm.label} ({describe(arm)})"
    labels = [a.label for a in arms]
    if len(set(labels)) < len(labels):
        twice = next(label for label in labels if labels.count(label) > 1)
        raise ScievalsError(twice, "the same log is given twice",
                            "give each log once")
    for arm in arms:
        arm.run.arm = arm.label
