"""``python -m scievals compare A B`` and ``python -m scievals history``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from scievals.results.compare import compare, comparison_json, format_comparison
from scievals.results.history import read_index, resolve, snapshot_state

DEFAULT_HISTORY = "results/history"
# The run record's copy beside an entry: <entry stem> + this (written by
# scievals.report.run_manifest.keep_with_history, which sits above this module).
RUN_RECORD_SUFFIX = ".manifest.json"


def register(sub: argparse._SubParsersAction) -> None:
    cmp = sub.add_parser(
        "compare",
        help="show what changed between two result summaries",
        description="Compare two summary CSVs (paths, or @latest, @previous, @N from the history "
        "index) row by row on (benchmark, dataset, model, condition, metric). Results are value, "
        "ci_low, ci_high, n and each benchmark's dataset (name, sha256): every difference is "
        "listed; cache_hits and latency_mean_s rows are bookkeeping, listed apart.",
    )
    cmp.add_argument("a", help="older summary: path or @previous/@N")
    cmp.add_argument("b", help="newer summary: path or @latest/@N")
    cmp.add_argument("--tolerance", type=float, default=0.0,
                     help="ignore differences of value, ci_low, ci_high and n up to this "
                     "(default 0)")
    cmp.add_argument("--history-dir", default=DEFAULT_HISTORY, help=f"default {DEFAULT_HISTORY}")
    cmp.add_argument("--fail-on-change", action="store_true",
                     help="exit 2 when any result differs: a value, CI bound or n beyond the "
                     "tolerance, a row on one side only, or a dataset (name or sha256); "
                     "bookkeeping rows and provenance columns do not count")
    cmp.add_argument("--benchmark", action="append", metavar="NAME",
                     help="compare only this benchmark's rows (repeat for several)")
    cmp.add_argument("--json", action="store_true",
                     help="print the comparison as JSON (per-benchmark summary, differences, "
                     "one-sided rows) instead of text")
    cmp.set_defaults(func=_compare)

    hist = sub.add_parser("history", help="list the recorded summaries (results/history/index.csv)")
    hist.add_argument("--history-dir", default=DEFAULT_HISTORY)
    hist.add_argument("--json", action="store_true", help="print the list as JSON records")
    hist.set_defaults(func=_history)


def _compare(args: argparse.Namespace) -> int:
    path_a = resolve(args.a, args.history_dir)
    path_b = resolve(args.b, args.history_dir)
    result = compare(path_a, path_b, args.tolerance, args.benchmark)
    if args.json:
        print(json.dumps(comparison_json(result, str(path_a), str(path_b)), indent=1))
    else:
        print(format_comparison(result, str(path_a), str(path_b)))
    return 2 if args.fail_on_change and not result.identical else 0


def _history(args: argparse.Namespace) -> int:
    index = read_index(args.history_dir)
    if index.empty:
        print("[]" if args.json else f"No summaries recorded in {args.history_dir} yet.")
        return 0
    index.insert(0, "ref", [f"@{i}" for i in range(len(index))])
    index["run_record"] = [_run_record(args.history_dir, name) for name in index["file"]]
    # Each snapshot checked against its recorded sha256: a damaged one is said, not used.
    index["check"] = [
        snapshot_state(Path(args.history_dir) / name, digest)
        for name, digest in zip(index["file"], index["sha256"])
    ]
    print(json.dumps(json.loads(index.to_json(orient="records")), indent=1) if args.json
          else index.to_string(index=False))
    return 0


def _run_record(history_dir: str, entry_file: str) -> str:
    """The run record kept beside a history entry (scievals.report.run_manifest), or "-"."""
    record = Path(history_dir) / (Path(entry_file).stem + RUN_RECORD_SUFFIX)
    return record.name if record.is_file() else "-"
