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
import math
import re
import sys
from pathlib import Path

import pandas as pd

from scievals.common.errors import ScievalsError
from scievals.common.io import sha256_file, write_csv
from scievals.interop import eee_read, inspect_logs, json_stream, lm_eval
from scievals.interop.imported_store import IMPORTED_BOUNDS, prune_imported
from scievals.interop.runs import TABLE_COLUMNS, ImportedRun, MetricInfo, usable

DEFAULT_OUT = "results/imported"
# A log read whole rather than streamed says so from this many samples (memory then matters)
STREAM_NOTE_SAMPLES = 10_000
HELP = "read inspect_ai, lm-eval or Every Eval Ever logs into per-item tables"
KNOWN = ("an inspect_ai .eval/.json log, an lm-eval results_<timestamp>.json, an Every Eval "
         "Ever record, or a table kept by `python -m scievals import`")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("import", help=HELP, description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="log files or folders (an lm-eval output folder, out/model/*)")
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"folder (default {DEFAULT_OUT})")
    parser.add_argument("--max-entry-mb", type=float, metavar="MB",
                        default=inspect_logs.MAX_ENTRY_BYTES / 1e6,
                        help="refuse a .eval entry that expands beyond this (a zip bomb; "
                        "default %(default)g)")
    parser.set_defaults(func=_import)


def _import(args: argparse.Namespace) -> int:
    if not (math.isfinite(args.max_entry_mb) and args.max_entry_mb > 0):
        raise ScievalsError("--max-entry-mb", f"{args.max_entry_mb} is not a positive size",
                            "give a size in MB, e.g. --max-entry-mb 256")
    cap, inspect_logs.MAX_ENTRY_BYTES = inspect_logs.MAX_ENTRY_BYTES, int(args.max_entry_mb * 1e6)
    try:
        return _import_all(args)
    finally:  # the module's default again (import may run inside a longer Python session)
        inspect_logs.MAX_ENTRY_BYTES = cap


def _import_all(args: argparse.Namespace) -> int:
    failed = 0
    written = set()
    passed: list[str] = []
    for _, found in read_logs(args.paths, passed):
        try:
            if isinstance(found, ScievalsError):
                raise found
            run = found
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
    for note in passed:  # samples files read with their log, folder files that are no log
        print(note)
    _bound(Path(args.out), written)
    return 1 if failed else 0


# Files read with another one: lm-eval's samples_<task>_<stamp>.jsonl with the results file
# of the same stamp, an Every Eval Ever <uuid>_samples.jsonl with its <uuid>.json.
LM_EVAL_SAMPLES = re.compile(r"^.+_(?P<stamp>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}"
                             r"(?:\.\d+)?)\.jsonl$")


def log_paths(paths: list[str]) -> tuple[list[Path], list[tuple[Path, Path]]]:
    """The logs among ``paths`` (a folder stands for the files under it, in name order), and
    (companion, the log it is read with) for the files another log reads: a samples file is
    not a log of its own. A companion whose log is not there stays in the list, so it gets
    its one-line error."""
    files: list[Path] = []
    for given in map(Path, paths):
        if given.is_dir():
            files += folder_files(given)
        else:
            files.append(given)
    logs, companions = [], []
    for path in dict.fromkeys(files):  # a file named and also in a named folder: read once
        owner = _owner(path)
        if owner is not None and owner.is_file():
            companions.append((path, owner))
        else:
            logs.append(path)
    return logs, companions


def folder_files(folder: Path) -> list[Path]:
    """The files under ``folder`` a log can be, in name order: no hidden ones, and only the
    endings logs, their samples files and kept tables have (a README is not read)."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in FOLDER_SUFFIXES
                  and not any(part.startswith(".") for part in p.relative_to(folder).parts))


FOLDER_SUFFIXES = (".eval", ".json", ".jsonl", ".csv")
NOT_A_LOG = "JSON that is no log this reads"


def read_logs(paths: list[str], notes: list[str], read=None):
    """(path, its run or the ScievalsError saying why not) of each log among ``paths``
    (:func:`log_paths`), one at a time, as ``import``, ``compare`` and ``leaderboard`` read
    them. ``notes`` gets a samples file named on its own (read with its log) and what is
    passed over: a JSON file found in
    a folder that is no log (inspect's ``logs.json`` listing, a VERSION.json); a file named
    on its own is always read or refused. A folder with no log in it is an error. ``read``:
    the reader (default :func:`read_log`)."""
    read = read or read_log
    logs, companions = log_paths(paths)
    folders = [Path(p) for p in paths if Path(p).is_dir()]
    named = {Path(p) for p in paths} - set(folders)
    # a samples file named on its own (a glob's) is said to be read with its log
    notes.extend(f"{companion}: read with {owner}" for companion, owner in companions
                 if companion in named)
    found: dict[Path, int] = dict.fromkeys(folders, 0)
    passed: dict[Path, int] = dict.fromkeys(folders, 0)
    for path in logs:
        home = next((f for f in folders if f in path.parents), None)
        try:
            outcome = read(path)
        except ScievalsError as exc:
            if home is not None and path not in named and NOT_A_LOG in exc.problem:
                passed[home] += 1
                continue
            outcome = exc
        if home is not None:
            found[home] += 1
        yield path, outcome
    for folder in folders:
        if passed[folder]:
            notes.append(f"{folder}: {passed[folder]} JSON file(s) that are no log passed over")
        if not found[folder]:
            yield folder, ScievalsError(folder, "a folder without an inspect_ai, lm-eval or "
                                        "Every Eval Ever log", "give the folder lm-eval or "
                                        "inspect_ai wrote, or the log files")


def _owner(path: Path) -> Path | None:
    """The log a companion file belongs to (None: ``path`` is no companion)."""
    if path.name.endswith("_samples.jsonl"):
        return path.with_name(path.name[: -len("_samples.jsonl")] + ".json")
    match = LM_EVAL_SAMPLES.match(path.name)
    if match:  # beside it, or above it for a task named with a '/' (samples_group/task_...)
        for folder in [path.parent, *path.parents[:2]]:
            found = sorted(folder.glob(f"*_{match['stamp']}.json"))
            if found:
                return found[0]
    return None


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
        raise ScievalsError(path, "a folder", f"give the log file, or `import` the folder: "
                            f"{KNOWN}")
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
    data, why = json_stream.head(path)  # all but the samples, in constant memory
    if data is None:
        data = _json(path)
    if inspect_logs.looks_like_inspect(data):
        if why:  # read whole: the samples are in data
            run = inspect_logs.read_json_log(path, data)
            if len(data.get("samples") or ()) > STREAM_NOTE_SAMPLES:
                run.notes.append(json_stream.WHOLE_NOTE.format(why=why))
            return run
        return inspect_logs.read_json_log(path, data, json_stream.items(path))
    if lm_eval.looks_like_lm_eval(data):
        return lm_eval.read_results(path, data)
    if eee_read.looks_like_eee(data):
        return eee_read.read_record(path, data)
    raise ScievalsError(path, NOT_A_LOG, f"give {KNOWN}")


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
    rows, notes = usable(frame[["dataset", "metric", "item", "sample", "score"]]
                         .reset_index(drop=True))
    if rows.empty:
        raise ScievalsError(path, "a kept table without a usable score", "; ".join(notes))
    return ImportedRun(path, "table kept by scievals import", arm, rows, metrics, notes=notes)
