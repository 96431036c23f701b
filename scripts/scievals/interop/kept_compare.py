"""``python -m scievals compare RUN_A RUN_B``: two kept runs (or imports, or a run and a log)
compared item by item, per task (benchmark and dataset), arm (model [condition]) and
metric: "did my prompt change help?" without finding the runs' record files by hand.

Arms are matched by task and label: the same model (and condition) in both runs is one
paired comparison (a smoke run's task, ``<dataset> (limited to N items)``, is its full
task: the two pair on the items the smoke run holds, and a note says so), named ``<label> @ <run id>`` (``@ <--name>`` when the runs are named).
Within a task, the arms left without a partner (an imported log beside our run of its
task, models only one run scored) are compared with each other, as one family (Holm over
their pairs), when they come from two arguments or more; otherwise they are listed as not
compared. Each comparison is the engine's
(:func:`scievals.interop.paired_logs.compare_runs`): means with intervals, the paired
difference with its interval, p, p_holm, the detectable difference, what did not pair.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from scievals.common.errors import ScievalsError
from scievals.common.io import write_csv
from scievals.common.selection import unlimited_label
from scievals.interop import arms as arms_module
from scievals.interop import run_ids
from scievals.interop.paired_logs import LogComparison, comparison_text, compare_runs


# a note on one benchmark's arms: "<benchmark>[/<dataset>]: not compared, ...", "...: limited
# to N items in <run>: ..." or
# "<run id>: <benchmark> <label> was kept without items..."
TASK_NOTE = re.compile(r"^(?:([^/: ]+)(?:/[^:]*)?: (?:not compared|limited to)|[^: ]+: (\S+) "
                       r".* was kept without items)")


@dataclass
class Group:
    """One comparison: a task and the arms compared on it."""

    task: str
    title: str
    arms: list[arms_module.Arm]


def groups(arguments: Sequence[str], names: Sequence[str] = (),
           runs_dir=run_ids.RUNS_DIR, imported_dir=run_ids.IMPORTED_DIR,
           notes: list[str] | None = None) -> list[Group]:
    """The comparisons the arguments make (module docstring); raises on the first
    unreadable argument."""
    notes = [] if notes is None else notes
    sources = arms_module.read_arguments(arguments, runs_dir, imported_dir)
    if sources.errors:
        raise sources.errors[0]
    notes.extend(sources.notes)
    if len(names) > len(sources.runs):
        raise ScievalsError("--name", f"{len(names)} names for {len(sources.runs)} runs",
                            "give at most one --name per run or log")
    tags = [names[k] if k < len(names) else _origin_tag(arg, runs)
            for k, (arg, runs) in enumerate(sources.runs)]
    if len(set(tags)) < len(tags):
        raise ScievalsError(", ".join(arguments), "the same run twice",
                            "give two different runs (python -m scievals logs)")
    by_task: dict[str, dict[str, list[tuple[int, arms_module.Arm]]]] = {}
    for side, (argument, runs) in enumerate(sources.runs):
        for origin, run in runs:
            for label in sorted(set(run.rows["dataset"])):
                # a smoke run's task (<dataset> (limited to N items)) pairs with the full one
                task, cut = unlimited_label(label)
                said = f"{task}: {cut} in {tags[side]}: compared on those items"
                if cut and said not in notes:
                    notes.append(said)
                arm = arms_module.Arm(task, run.arm, arms_module.task_run(run, label, task),
                                      origin)
                by_task.setdefault(task, {}).setdefault(run.arm, []).append((side, arm))
    out = []
    for task, labels in sorted(by_task.items()):
        left: list[tuple[int, arms_module.Arm]] = []
        for label, found in sorted(labels.items()):
            sides = {side for side, _ in found}
            if len(sides) > 1 and len(sides) == len(found):
                out.append(Group(task, f"{task} / {label}", _named(found, tags)))
            else:
                left.extend(found)
        if len({side for side, _ in left}) > 1:
            named = [_relabel(a, f"{a.label} @ {tags[s]}") for s, a in left]
            out.append(Group(task, f"{task} / " + " vs ".join(a.label for a in named), named))
        elif left:
            shown = "; ".join(f"{tags[s]}: {a.label}" for s, a in left)
            notes.append(f"{task}: not compared, no partner in the other run(s) ({shown})")
    if not out:
        raise ScievalsError(", ".join(arguments), "no task and model (or condition) is in "
                            "two of these runs", "compare runs of the same benchmark "
                            "(python -m scievals logs lists what each holds)")
    return out


def _origin_tag(argument: str, runs) -> str:
    """A run's id as `logs` prints it; a log's own path."""
    return runs[0][0] if runs else argument


def _named(found, tags) -> list[arms_module.Arm]:
    return [_relabel(arm, f"{arm.label} @ {tags[side]}") for side, arm in found]


def _relabel(arm: arms_module.Arm, label: str) -> arms_module.Arm:
    arm.label = arm.run.arm = label
    return arm


def compare_groups(found: list[Group], seed: int = 0,
                   notes: list[str] | None = None) -> list[tuple[Group, LogComparison]]:
    """Each group's comparison; a group whose arms share no metric is a note, not an end."""
    out = []
    for group in found:
        try:
            out.append((group, compare_runs([a.run for a in group.arms], seed)))
        except ScievalsError as exc:
            if notes is None:
                raise
            notes.append(f"{group.title}: not compared ({exc.problem})")
    if not out:
        raise ScievalsError(", ".join(g.title for g in found), "no comparison could be made",
                            "; ".join(notes or []) or "compare runs of the same benchmark")
    return out


def text(results: list[tuple[Group, LogComparison]], notes: list[str]) -> str:
    out = []
    for group, found in results:
        out.append(f"== {group.title}")
        body = LogComparison([], found.result, found.pairing, found.notes)
        out.append(comparison_text(body).strip("\n"))
        out.append("")
    out += [f"note: {note}" for note in notes]
    return "\n".join(out).rstrip() + "\n"


def compare_command(arguments: Sequence[str], args) -> int:
    """``compare`` given kept runs (module docstring): text, ``--json``, ``--csv FILE``."""
    summary_only = [flag for flag, on in (("--tolerance", args.tolerance),
                                          ("--fail-on-change", args.fail_on_change)) if on]
    if summary_only:
        raise ScievalsError(summary_only[0], "applies to result summaries, not to kept runs",
                            "leave it out when comparing runs by id")
    names = getattr(args, "name", None) or []
    arms_module.check_names(names)
    notes: list[str] = []
    found = groups(arguments, names, getattr(args, "runs_dir", run_ids.RUNS_DIR),
                   getattr(args, "imported_dir", run_ids.IMPORTED_DIR), notes)
    if args.benchmark:  # a kept run's tasks are <benchmark>/<dataset>
        found = [g for g in found if g.task.split("/", 1)[0] in args.benchmark]
        other = [n for n in notes if (m := TASK_NOTE.match(n))
                 and (m.group(1) or m.group(2)) not in args.benchmark]
        notes[:] = [n for n in notes if n not in other]
        if not found:
            raise ScievalsError("--benchmark", f"{', '.join(args.benchmark)}: in no task both "
                                "runs hold", "leave it out to see what the runs share")
    results = compare_groups(found, args.seed, notes)
    pairs = [found.result.comparisons.assign(dataset=group.task) for group, found in results]
    pairs = pd.concat([p for p in pairs if len(p)], ignore_index=True) if any(
        len(p) for p in pairs) else pd.DataFrame()
    if args.csv:
        write_csv(args.csv, pairs)
    if args.json:
        print(json.dumps({
            "comparisons": json.loads(pairs.to_json(orient="records")),
            "means": [r for _, f in results
                      for r in json.loads(f.result.means.to_json(orient="records"))],
            "pairing": [r for _, f in results
                        for r in json.loads(f.pairing.to_json(orient="records"))],
            "notes": notes + [n for _, f in results for n in f.notes]}, indent=1))
    else:
        sys.stdout.write(text(results, notes))
    return 0
