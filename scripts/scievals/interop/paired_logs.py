"""Paired answers on imported logs: ``python -m scievals compare LOG_A LOG_B ...`` and
``python -m scievals plan --from LOG_A LOG_B --diff X``.

Each log is an arm (named by its model; by model and file when two logs share a model). The
arms are compared per shared (dataset, metric) through :func:`scievals.stats.api.compare`,
the engine the workflow's comparisons.csv comes from, on the items both scored; an item's
score is its mean over its epochs. The answer says, per pair, how many items did not pair
and why: only in one log, or scored in different epochs (still paired, each side on its own
epochs). A metric is pass/fail when it is in every log; its range the widest any log gives.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from scievals.common.errors import ScievalsError
from scievals.common.io import check_output_file, sha256_file, write_csv
from scievals.interop.arms import check_names
from scievals.interop.importing import read_log, read_logs
from scievals.interop.runs import ImportedRun
from scievals.stats import api


@dataclass
class LogComparison:
    """The engine's answer on the logs' shared items, and what did not pair."""

    runs: list[ImportedRun]
    result: api.Comparison
    pairing: pd.DataFrame  # dataset, metric, arm_a, arm_b, paired, only_a, only_b, epochs
    notes: list[str] = field(default_factory=list)


def read_runs(paths: Sequence[str], notes: list[str] | None = None,
              ) -> tuple[list[ImportedRun], list[ScievalsError]]:
    """Every readable log as a run with a unique arm name, and the errors of the others.
    Folders and globs are read as ``import`` reads them (:func:`importing.read_logs`);
    ``notes`` gets what that passes over."""
    runs, errors, seen = [], [], {}
    for path, found in read_logs(list(paths), [] if notes is None else notes, _once(seen)):
        if isinstance(found, ScievalsError):
            errors.append(found)
        else:
            runs.append(found)
    models = [r.model for r in runs]
    for run in runs:
        if models.count(run.model) > 1:
            run.arm = f"{run.model} ({run.path.name})"
    return runs, errors


def _once(seen: dict):
    """read_log refusing a log whose content was read already (``seen``: sha256 -> path)."""
    def read(path: Path) -> ImportedRun:
        digest = sha256_file(path) if path.is_file() else None
        if digest is not None and digest in seen:
            raise ScievalsError(path, f"the same log as {seen[digest]} (identical "
                                "content): a log compared with itself says nothing",
                                "give logs of different runs")
        run = read_log(path)
        seen[digest] = path
        return run
    return read


def joint_table(runs: Sequence[ImportedRun]) -> tuple[pd.DataFrame, dict, set, list[str]]:
    """The runs' per-item tables stacked, with one kind per metric; the metrics' ranges (for
    :func:`scievals.stats.api.compare`), the lower-is-better ones, and notes on metrics
    only some logs hold."""
    table = pd.concat([r.table() for r in runs], ignore_index=True)
    keep, ranges, lower, notes = [], {}, set(), []
    for (dataset, metric), rows in table.groupby(["dataset", "metric"], sort=True):
        arms = sorted(set(rows["arm"]))
        if len(arms) < 2:
            notes.append(f"{dataset} {metric}: only in {arms[0]}: not compared")
            continue
        binary = sorted(set(rows.loc[rows["kind"] == "pass_fail", "arm"]))
        rows, ranges[_pattern(metric)], lower_better = one_kind(rows)
        if rows["kind"].iloc[0] == "mean" and len(binary) >= 2:  # one test per metric
            notes.append(f"{dataset} {metric}: pass/fail in {', '.join(binary)} but graded in "
                         f"{', '.join(sorted(set(arms) - set(binary)))}: every pair of it is "
                         "tested as means (sign-flip), also the pairs that alone would get "
                         "the exact McNemar test; compare those logs alone for it")
        if lower_better:
            lower.add(metric)
        keep.append(rows)
    if not keep:
        raise ScievalsError(", ".join(str(r.path) for r in runs),
                            "no (task, metric) is in two of these logs",
                            "compare logs of the same task")
    return pd.concat(keep, ignore_index=True), ranges, lower, notes


def one_kind(rows: pd.DataFrame) -> tuple[pd.DataFrame, tuple[float, float], bool]:
    """One metric's rows of several arms with one kind (pass/fail only when every arm says
    so: the engine takes one test per metric), its widest range, and whether any arm says
    lower is better."""
    kind = "pass_fail" if set(rows["kind"]) == {"pass_fail"} else "mean"
    return (rows.assign(kind=kind), (float(rows["low"].min()), float(rows["high"].max())),
            bool(rows["lower_is_better"].astype(str).eq("True").any()))


def _pattern(metric: str) -> str:
    """The metric's name as an fnmatch pattern matching only itself."""
    return re.sub(r"([*?\[])", r"[\1]", metric)


def pairing(table: pd.DataFrame, errored: dict[str, set] | None = None) -> pd.DataFrame:
    """Per (dataset, metric) and pair of arms: items paired, only in a, only in b (of them,
    how many the other log holds as errored samples), and paired items whose epochs differ.
    ``errored``: arm -> its run's errored (dataset, item)."""
    errored = errored or {}
    out = []
    for (dataset, metric), rows in table.groupby(["dataset", "metric"], sort=True):
        epochs = {arm: group.groupby("item")["sample"].agg(frozenset).to_dict()
                  for arm, group in rows.groupby("arm", sort=True)}
        arms = sorted(epochs)
        for i, a in enumerate(arms):
            for b in arms[i + 1:]:
                shared = epochs[a].keys() & epochs[b].keys()
                out.append({"dataset": dataset, "metric": metric, "arm_a": a, "arm_b": b,
                            "paired": len(shared),
                            "only_a": len(epochs[a].keys() - shared),
                            "only_b": len(epochs[b].keys() - shared),
                            "errored_b": sum((dataset, k) in errored.get(b, ())
                                             for k in epochs[a].keys() - shared),
                            "errored_a": sum((dataset, k) in errored.get(a, ())
                                             for k in epochs[b].keys() - shared),
                            "epochs_differ": sum(epochs[a][k] != epochs[b][k]
                                                 for k in shared)})
    return pd.DataFrame(out, columns=["dataset", "metric", "arm_a", "arm_b", "paired",
                                      "only_a", "only_b", "errored_a", "errored_b",
                                      "epochs_differ"])


def compare_logs(paths: Sequence[str], seed: int = 0) -> LogComparison:
    """The paired comparison of the logs at ``paths`` (the first unreadable one raises)."""
    runs, errors = read_runs(paths)
    if errors:
        raise errors[0]
    return compare_runs(runs, seed)


def compare_runs(runs: Sequence[ImportedRun], seed: int = 0) -> LogComparison:
    if len(runs) < 2:
        raise ScievalsError(runs[0].path if runs else "compare", "one log",
                            "give two logs or more to compare")
    table, ranges, lower, notes = joint_table(runs)
    result = api.compare(table, ranges, seed=seed, lower_is_better=lower)
    # what each reader left out (hostile scores, errored samples, ...) is said here too
    read = [f"{run.arm}: {note}" for run in runs for note in run.notes]
    return LogComparison(runs, result, pairing(table, {r.arm: r.errored for r in runs}),
                         read + notes + result.notes)


def plan_logs(paths: Sequence[str], diff: float, metric: str | None = None) -> str:
    """``plan --from``: items needed per shared metric, from the logs' paired spread; a
    --diff no estimate can use is refused as ``plan BENCH`` refuses it (one line)."""
    if not math.isfinite(diff):
        raise ScievalsError("--diff", f"{diff} is not a finite number",
                            "give a number, e.g. --diff 0.05")
    if not diff > 0:
        raise ScievalsError("--diff", f"{diff:g} is not a positive difference",
                            "give the true difference to detect, e.g. --diff 0.05")
    runs, errors = read_runs(paths)
    if errors:
        raise errors[0]
    if len(runs) < 2:
        raise ScievalsError(paths[0], "one log: the spread of paired differences needs two",
                            "give two logs of the same task (--from A B)")
    table, ranges, _, _ = joint_table(runs)
    if metric is not None:
        table = table[table["metric"] == metric]
        if table.empty:
            raise ScievalsError("--metric", f"{metric!r} is in no two of the logs",
                                "name a metric the logs share")
    spans = {(d, m): ranges[_pattern(m)][1] - ranges[_pattern(m)][0]
             for d, m in table[["dataset", "metric"]].drop_duplicates().itertuples(index=False)}
    if all(diff > span for span in spans.values()):
        (dataset, name), span = max(spans.items(), key=lambda kv: kv[1])
        low, high = ranges[_pattern(name)]
        raise ScievalsError("--diff", f"{diff:g} exceeds the whole range [{low:g}, {high:g}] "
                            f"of {dataset} {name}: no two models can differ by that much",
                            f"give a difference of at most {span:g}")
    frame = api.plan(diff, table=table, ranges=ranges)
    lines = []
    for row in frame.itertuples():
        test = "exact McNemar" if row.kind == "pass_fail" else "sign-flip"
        if diff > spans.get((row.dataset, row.metric), math.inf):
            lines.append(f"{row.dataset} {row.metric}: a difference of {diff:g} exceeds the "
                         "metric's whole range: no two models can differ by that much.")
        elif math.isnan(row.items):
            lines.append(f"{row.dataset} {row.metric}: a difference of {diff:g} is not "
                         f"detectable at 80 % power with up to 5000 items ({test}, "
                         f"{row.source} {row.spread:.3g}).")
        else:
            lines.append(f"{row.dataset} {row.metric}: about {int(row.items)} items detect "
                         f"a true difference of {diff:g} with 80 % power at the 5 % level "
                         f"({test}; {row.source}: {row.spread:.3g}).")
    return "\n".join(lines)


def comparison_text(found: LogComparison) -> str:
    """The answer as text: per metric the arms' means, each pair's paired difference with
    its interval, p, p_holm and detectable difference, what did not pair, and the tiers."""
    result = found.result
    lines = [run.summary() for run in found.runs]
    for (dataset, metric), means in result.means.groupby(["dataset", "metric"], sort=True):
        pairs = result.comparisons[(result.comparisons["dataset"] == dataset)
                                   & (result.comparisons["metric"] == metric)]
        kind = means["kind"].iloc[0]
        lines.append("")
        lines.append(f"{dataset} / {metric} ({'pass/fail' if kind == 'pass_fail' else 'mean'})")
        for row in means.itertuples():
            lines.append(f"  {row.arm}: {row.value:.4g} [{row.ci_low:.4g}, {row.ci_high:.4g}] "
                         f"over {row.n} items ({row.ci_method})")
        if pairs.empty:
            lines.append("  no pair of logs scored an item in common: nothing compared")
        for row in pairs.itertuples():
            lines.append(f"  {row.arm_a} - {row.arm_b}: {row.diff:+.4g} "
                         f"[{row.ci_low:.4g}, {row.ci_high:.4g}] on {row.n} paired items, "
                         f"p {row.p_value:.3g}, p_holm {row.p_holm:.3g} ({row.method}); "
                         f"detectable difference {_mdd(row.mdd)}")
        for row in found.pairing[(found.pairing["dataset"] == dataset)
                                 & (found.pairing["metric"] == metric)].itertuples():
            lines.append(f"  {row.arm_a} / {row.arm_b}: {_unpaired(row)}")
        tiers = result.tiers[(result.tiers["dataset"] == dataset)
                             & (result.tiers["metric"] == metric)]
        lines.append("  tiers: " + "; ".join(f"{r.rank} {r.arm}" for r in tiers.itertuples()))
    for note in found.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines)


def _mdd(value: float) -> str:
    """The detectable difference in words where it is no number (docs/statistics.md)."""
    if math.isnan(value):
        return "not estimable (the same difference on every item)"
    return "none at this n" if math.isinf(value) else f"{value:.3g}"


def _unpaired(row) -> str:
    if not (row.only_a or row.only_b or row.epochs_differ):
        return f"all {row.paired} items paired, in the same epochs"
    return (f"{row.paired} items paired; not paired: {row.only_a} only in {row.arm_a}"
            f"{_why(row.only_a, row.errored_b, row.arm_b)}, {row.only_b} only in {row.arm_b}"
            f"{_why(row.only_b, row.errored_a, row.arm_a)}; {row.epochs_differ} paired items "
            "scored in different epochs (each side's mean over its own)")


def _why(only: int, errored: int, other: str) -> str:
    """Why items of one log are not in the other: errored there, or not there at all."""
    if not only:
        return ""
    missing = only - errored
    parts = ([f"{errored} errored in {other}"] if errored else []) + (
        [f"{missing} not in {other}"] if missing else [])
    return f" ({', '.join(parts)})"


def name_arms(runs: Sequence[ImportedRun], names: Sequence[str]) -> None:
    """``--name``: the n-th log's arm is called the n-th name (board, issue 46 item 7)."""
    check_names(list(names))
    if len(names) > len(runs):
        raise ScievalsError("--name", f"{len(names)} names for {len(runs)} logs",
                            "give at most one --name per log")
    for run, name in zip(runs, names):
        run.arm = name


def compare_logs_command(paths: Sequence[str], args) -> int:
    """``compare`` given logs: one line per unreadable log (exit 1), else the answer as text
    (``--json``: records of the pairs, means, tiers and pairing) and ``--csv FILE``."""
    summary_only = [flag for flag, on in (("--tolerance", args.tolerance),
                                          ("--fail-on-change", args.fail_on_change),
                                          ("--benchmark", args.benchmark)) if on]
    if summary_only:
        raise ScievalsError(summary_only[0], "applies to result summaries, not to logs",
                            "leave it out when comparing logs")
    if args.csv:  # before any work: a bad target is one line, not a late traceback
        check_output_file(args.csv, "--csv")
    passed: list[str] = []
    runs, errors = read_runs(paths, passed)
    for error in errors:
        print(f"error: {error.one_line()}", file=sys.stderr)
    if errors:
        return 1
    name_arms(runs, getattr(args, "name", None) or [])
    found = compare_runs(runs, seed=args.seed)
    found.notes[:0] = passed
    if args.csv:
        write_csv(args.csv, found.result.comparisons)
    if args.json:
        print(json.dumps({name: json.loads(frame.to_json(orient="records"))
                          for name, frame in (("comparisons", found.result.comparisons),
                                              ("means", found.result.means),
                                              ("tiers", found.result.tiers),
                                              ("pairing", found.pairing))}
                         | {"notes": found.notes}, indent=1))
    else:
        print(comparison_text(found))
    return 0
