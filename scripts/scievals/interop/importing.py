"""``python -m scievals import PATH...``: other tools' logs read into per-item tables.

A path is recognised by what it holds, not by its name: an inspect_ai ``.eval`` zip or
``.json`` log, an lm-evaluation-harness ``results_<timestamp>.json`` (its
``samples_<task>_<timestamp>.jsonl`` beside it), an Every Eval Ever aggregate record (its
``<uuid>_samples.jsonl`` beside it), or a table this command kept. Each log is kept as one
CSV under ``results/imported/`` (columns arm, dataset, metric, item, sample, score, kind,
low, high, lower_is_better), which ``compare`` and ``plan --from`` read like the log itself:
``python -m scievals compare LOG_A LOG_B`` pairs logs on their shared items. A file that
cannot be read gets one line (file, what is wrong) and the others are still imported; the
exit code is 1 when any failed. Details: docs/importing-logs.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import pandas as pd

from scievals.common.errors import ScievalsError
from scievals.common.io import sha256_file, write_csv
from scievals.interop import eee_read, inspect_logs, lm_eval
from scievals.interop.imported_store import IMPORTED_BOUNDS, prune_imported
from scievals.interop.runs import TABLE_COLUMNS, ImportedRun, MetricInfo

DEFAULT_OUT = "results/imported"
HELP = "read inspect_ai, lm-eval or Every Eval Ever logs into per-item tables"
KNOWN = ("an inspect_ai .eval/.json log, an lm-eval results_<timestamp>.json, an Every Eval "
         "Ever record, or a table kept by `python -m scievals import`")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("import", help=HELP, description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", metavar="PATH", help="log files")
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"folder (default {DEFAULT_OUT})")
    parser.set_defaults(func=_import)


def _import(args: argparse.Namespace) -> int:
    failed = 0
    written = set()
    for path in args.paths:
        try:
            run = read_log(path)
            kept = keep(run, Path(args.out))
        except ScievalsError as exc:
            print(f"error: {exc.one_line()}", file=sys.stderr)
            failed += 1
            continue
        written.add(kept)
        print(f"{run.summary()} -> {kept}")
        if run.reported:  # the tool's own aggregates, for reference (never used here)
            shown = ", ".join(f"{k} {v:.4g}" for k, v in list(run.reported.items())[:8])
            more = len(run.reported) - 8
            print(f"  the log's own figures: {shown}" + (f" (+{more} more)" if more > 0 else ""))
        for note in run.notes:
            print(f"  note: {note}")
    _bound(Path(args.out), written)
    return 1 if failed else 0


def _bound(out: Path, written: set[Path]) -> None:
    """Kept imports stay within their bounds, as run logs do (board: imports by id)."""
    removed = prune_imported(out, written)
    if removed:
        print(f"removed {len(removed)} older kept import(s) from {out} (kept: at most "
              f"{IMPORTED_BOUNDS['keep']} tables, {IMPORTED_BOUNDS['max_mb']} MB)")


def read_log(path: str | Path) -> ImportedRun:
    """The run a log holds (module docstring), or one ScievalsError saying why not."""
    path = Path(path)
    if path.is_dir():
        raise ScievalsError(path, "a folder", f"give the log file: {KNOWN}")
    if not path.is_file():
        raise ScievalsError(path, "not found", f"give {KNOWN}")
    try:
        with path.open("rb") as handle:
            head = handle.read(4)
    except OSError as exc:
        raise ScievalsError(path, f"unreadable ({exc.strerror or exc})",
                            "check the file's permissions") from None
    if not head:
        raise ScievalsError(path, "empty file", f"give {KNOWN}")
    if head.startswith(b"PK"):
        return inspect_logs.read_eval_zip(path)
    if path.suffix == ".csv":
        return read_kept(path)
    data = _json(path)
    if inspect_logs.looks_like_inspect(data):
        return inspect_logs.read_json_log(path, data)
    if lm_eval.looks_like_lm_eval(data):
        return lm_eval.read_results(path, data)
    if eee_read.looks_like_eee(data):
        return eee_read.read_record(path, data)
    raise ScievalsError(path, "JSON that is no log this reads", f"give {KNOWN}")


def _json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ScievalsError(path, "neither a zip nor UTF-8 JSON", f"give {KNOWN}") from None
    except ValueError as exc:
        raise ScievalsError(path, f"not JSON ({exc}): cut, damaged or another format",
                            f"give {KNOWN}") from None
    except RecursionError:
        raise ScievalsError(path, "JSON nested too deeply to be a log", f"give {KNOWN}") from None


def keep(run: ImportedRun, out: Path) -> Path:
    """Write the run's table to ``out/<model>__<datasets>__<sha256 of the log, 8>.csv``."""
    datasets = "+".join(sorted(set(run.rows["dataset"])))
    name = f"{_slug(run.model)}__{_slug(datasets)[:60]}__{sha256_file(run.path)[:8]}.csv"
    target = out / name
    write_csv(target, run.table())
    return target


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "run"


def read_kept(path: Path) -> ImportedRun:
    """A table ``import`` kept, back as a run."""
    try:
        frame = pd.read_csv(path, dtype={"arm": str, "dataset": str, "metric": str,
                                         "item": str, "kind": str}, keep_default_na=False,
                            na_values=[""])
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ScievalsError(path, f"not a readable CSV ({exc})", f"give {KNOWN}") from None
    missing = [c for c in TABLE_COLUMNS if c not in frame.columns]
    if missing:
        raise ScievalsError(path, f"a CSV without the columns {missing} of a kept table",
                            f"give {KNOWN}")
    if frame.empty:
        raise ScievalsError(path, "a kept table without rows", "import the log again")
    frame["dataset"] = frame["dataset"].fillna("")
    metrics = {}
    for (dataset, metric), group in frame.groupby(["dataset", "metric"], sort=True):
        first = group.iloc[0]
        metrics[(dataset, metric)] = MetricInfo(str(first["kind"]), float(first["low"]),
                                                float(first["high"]),
                                                str(first["lower_is_better"]) == "True")
    arm = str(frame["arm"].iloc[0])
    rows = frame[["dataset", "metric", "item", "sample", "score"]].reset_index(drop=True)
    return ImportedRun(path, "table kept by scievals import", arm, rows, metrics)
