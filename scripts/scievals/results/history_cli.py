"""``python -m scievals compare A B`` and ``python -m scievals history``.

``compare`` answers two questions by what it is given: two result summaries (CSV paths or
history refs) are compared row by row (:mod:`scievals.results.compare`); two or more logs
of other tools (inspect_ai, lm-eval, Every Eval Ever, or tables ``import`` kept) get the
paired comparison of their shared items (:mod:`scievals.interop.paired_logs`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.common.io import write_json
from scievals.common.provenance import RUN_RECORD_SUFFIX
from scievals.common.redaction import has_userinfo, redact_data
from scievals.results.compare import compare, comparison_json, format_comparison
from scievals.results.history import read_index, resolve, snapshot_state

DEFAULT_HISTORY = "results/history"


def register(sub: argparse._SubParsersAction) -> None:
    cmp = sub.add_parser(
        "compare",
        help="what changed between two result summaries; or paired answers on two or more "
        "logs of other tools",
        description="Two summary CSVs (paths, or @latest, @previous, @N from the history "
        "index): compared row by row on (benchmark, dataset, model, condition, metric). Results "
        "are value, ci_low, ci_high, n and each benchmark's dataset (name, sha256): every "
        "difference is listed; cache_hits and latency_mean_s rows are bookkeeping, listed "
        "apart. Two or more logs (inspect_ai .eval/.json, lm-eval results_*.json, Every Eval "
        "Ever records, tables kept by `import`): the paired comparison of their shared items "
        "per metric - difference, 95 % interval, p, p_holm, tiers, detectable difference - "
        "and how many items did not pair and why (docs/importing-logs.md).",
    )
    cmp.add_argument("a", help="older summary: path or @previous/@N; or a log; or a kept run "
                     "(id or prefix from `logs`, latest, latest-full, imported:<id>)")
    cmp.add_argument("b", help="newer summary: path or @latest/@N; or a log or kept run")
    cmp.add_argument("more", nargs="*", metavar="LOG", help="more logs (logs only)")
    cmp.add_argument("--seed", type=int, default=0,
                     help="logs: seed of the Monte-Carlo sign-flip test above 13 items "
                     "(default 0)")
    cmp.add_argument("--csv", metavar="FILE",
                     help="logs: also write the pairs (comparisons.csv's columns) to FILE")
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
    # kept runs by id, arm names (scievals.interop.kept_compare)
    cmp.add_argument("--name", action="append", default=[], metavar="LABEL",
                     help="logs and kept runs: name the arm(s) of the n-th argument (repeat, "
                     "in order)")
    cmp.add_argument("--runs-dir", default="results/runs", help=argparse.SUPPRESS)
    cmp.add_argument("--imported-dir", default="results/imported", help=argparse.SUPPRESS)
    cmp.set_defaults(func=_compare)

    hist = sub.add_parser("history", help="list the recorded summaries (results/history/index.csv)")
    hist.add_argument("--history-dir", default=DEFAULT_HISTORY)
    hist.add_argument("--json", action="store_true", help="print the list as JSON records")
    hist.add_argument("--scrub", action="store_true",
                      help="rewrite the run records kept with the history (and "
                      "results/run_manifest.json beside it) without URL credentials "
                      "(records written before scievals redacted them)")
    hist.set_defaults(func=_history)


def _compare(args: argparse.Namespace) -> int:
    from scievals.interop.refs import refers_to_kept  # light: the readers load below if needed

    if refers_to_kept([args.a, args.b, *args.more]):
        from scievals.interop.kept_compare import compare_command  # only for kept runs

        return compare_command([args.a, args.b, *args.more], args)
    if args.name and not (args.more or is_log(args.a) or is_log(args.b)):
        raise ScievalsError("--name", "names arms of logs or kept runs, not result summaries",
                            "leave it out when comparing summaries")
    if args.more or is_log(args.a) or is_log(args.b):
        from scievals.interop.paired_logs import compare_logs_command  # only for logs

        return compare_logs_command([args.a, args.b, *args.more], args)
    warn_credentials(args.history_dir)
    path_a = resolve(args.a, args.history_dir)
    path_b = resolve(args.b, args.history_dir)
    result = compare(path_a, path_b, args.tolerance, args.benchmark)
    if args.json:
        print(json.dumps(comparison_json(result, str(path_a), str(path_b)), indent=1))
    else:
        print(format_comparison(result, str(path_a), str(path_b)))
    return 2 if args.fail_on_change and not result.identical else 0


def is_log(path: str) -> bool:
    """A log of another tool (or a table ``import`` kept), not a result summary: a folder,
    by name (.eval, .json, .jsonl), or a CSV whose header has ``arm`` and ``item`` columns."""
    if path.startswith("@"):
        return False
    if Path(path).is_dir():  # a folder of logs (an lm-eval output folder); summaries are files
        return True
    suffix = Path(path).suffix.lower()
    if suffix in (".eval", ".json", ".jsonl"):
        return True
    if suffix == ".csv" and Path(path).is_file():
        with open(path, encoding="utf-8", errors="replace") as handle:
            header = handle.readline().strip().split(",")
        return "arm" in header and "item" in header and "benchmark" not in header
    return False


def _history(args: argparse.Namespace) -> int:
    if args.scrub:
        return _scrub(args.history_dir)
    warn_credentials(args.history_dir)
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
          else history_table(index, args.history_dir))
    return 0


# Hashes as `show` cuts them: the full ones are in --json and index.csv.
SHORT_HASH = 12


def history_table(index, history_dir: str | Path) -> str:
    """The index for a terminal (about 100 columns, it was 228): hashes cut to 12
    characters, the snapshot and run record files named by --json (and the folder below)."""
    shown = index.assign(
        recorded_utc=index["recorded_utc"].astype(str).str.replace("T", " ")
        .str.replace("+00:00", "", regex=False),
        git_commit=index["git_commit"].astype(str).str[:SHORT_HASH],
        sha256=index["sha256"].astype(str).str[:SHORT_HASH],
        benchmarks=index["benchmarks"].astype(str).str.replace(";", ", "),
        run_record=["yes" if name != "-" else "-" for name in index["run_record"]],
    ).drop(columns="file")
    return (shown.to_string(index=False) + f"\nFiles in {history_dir}/; --json gives their "
            "names and the full hashes.")


def _run_record(history_dir: str, entry_file: str) -> str:
    """The run record kept beside a history entry (scievals.report.run_manifest), or "-"."""
    record = Path(history_dir) / (Path(entry_file).stem + RUN_RECORD_SUFFIX)
    return record.name if record.is_file() else "-"


def _run_records(history_dir: str | Path) -> list[Path]:
    """The run records kept with the history, and the newest one beside the history folder."""
    folder = Path(history_dir)
    latest = folder.parent / "run_manifest.json"
    found = sorted(folder.glob(f"*{RUN_RECORD_SUFFIX}")) if folder.is_dir() else []
    return found + ([latest] if latest.is_file() else [])


def _with_credentials(history_dir: str | Path) -> list[Path]:
    out = []
    for record in _run_records(history_dir):
        try:
            if has_userinfo(record.read_text(encoding="utf-8", errors="replace")):
                out.append(record)
        except OSError:  # unreadable: the history's own checks say so
            continue
    return out


def warn_credentials(history_dir: str | Path) -> None:
    """One warning when run records written before redaction hold URL credentials."""
    found = _with_credentials(history_dir)
    if found:
        print(f"warning: {len(found)} run record(s) in {history_dir} and beside it hold "
              f"credentials in a URL (e.g. {found[0].name}; written before scievals redacted "
              f"them): run `python -m scievals history --scrub --history-dir {history_dir}` "
              "to rewrite them, and change that password", file=sys.stderr)


def _scrub(history_dir: str | Path) -> int:
    """Rewrite every run record that holds URL credentials, redacted (atomically)."""
    found = _with_credentials(history_dir)
    for record in found:
        try:
            data = json.loads(record.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ScievalsError(str(record), f"not JSON ({exc})",
                                "delete the file (a run record explains, it holds no "
                                "results)") from None
        write_json(record, redact_data(data))
        print(f"scrubbed {record}")
    print(f"{len(found)} run record(s) rewritten without URL credentials"
          + ("" if found else " (none held any)"))
    return 0
