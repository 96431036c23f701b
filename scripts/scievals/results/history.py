"""Versioned summaries: keep every distinct results/summary.csv.

``record_history`` copies a new summary to ``results/history/<UTC>_<commit>.csv``
and appends a line to ``results/history/index.csv``; an unchanged summary is not
stored twice: same sha256 as the newest entry, or a difference only in bookkeeping
rows (``cache_hits``: how this run got its replies, not what they were). ``resolve``
turns ``@latest``/``@previous``/``@N`` into a snapshot for ``scievals.results.compare``.

The history is a record, not a gate: ``record_history`` never fails the summary.
A history folder that is a file, or an index that cannot be read, is set aside
(renamed, never overwritten), the index is rebuilt from the snapshots still
there, and a run notice says so. Snapshots are checked against the sha256 in the
index whenever they are read, and a missing or damaged snapshot of the current
summary is stored again.
"""

from __future__ import annotations

import logging
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from scievals.common import notices
from scievals.common.errors import ScievalsError
from scievals.common.io import atomic_path, sha256_file, write_csv
from scievals.common.provenance import git_commit
from scievals.common.tables import read_result_table
from scievals.llm.usage_rows import BOOKKEEPING_METRICS

INDEX_COLUMNS = ["recorded_utc", "git_commit", "file", "sha256", "rows", "benchmarks"]
# <UTC stamp to the millisecond>_<commit>.csv: a plain name inside the history folder.
SNAPSHOT_NAME = re.compile(r"(\d{8}T\d{6})(\d{3})Z_([A-Za-z0-9._-]+)\.csv")
SHA256 = re.compile(r"[0-9a-f]{64}")
REPAIR = "the next workflow run sets it aside and rebuilds the index from the stored snapshots"

log = logging.getLogger(__name__)


class HistoryDamaged(ScievalsError):
    """The history folder or its index cannot be used as it is."""


def read_index(history_dir: str | Path) -> pd.DataFrame:
    """The history index; :class:`HistoryDamaged` (one line) if it is not one."""
    folder = Path(history_dir)
    if folder.exists() and not folder.is_dir():
        raise HistoryDamaged(folder, "is a file, not the history folder", REPAIR)
    index = folder / "index.csv"
    if not index.exists():
        return pd.DataFrame(columns=INDEX_COLUMNS)
    try:
        frame = pd.read_csv(index, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, OSError) as exc:
        raise HistoryDamaged(index, f"not a readable history index ({type(exc).__name__})",
                             REPAIR) from None
    missing = [c for c in INDEX_COLUMNS if c not in frame.columns]
    if missing:
        raise HistoryDamaged(index, f"not a history index (lacks columns {missing})", REPAIR)
    for row, (name, digest) in enumerate(zip(frame["file"], frame["sha256"]), start=2):
        if not SNAPSHOT_NAME.fullmatch(name) or not SHA256.fullmatch(digest):
            raise HistoryDamaged(f"{index}:{row}", "not a history entry (file name or sha256)",
                                 REPAIR)
    return frame[INDEX_COLUMNS]


def _stamp(now: datetime) -> str:
    return now.strftime("%Y%m%dT%H%M%S") + f"{now.microsecond // 1000:03d}Z"


def _index_row(snapshot: Path, recorded: datetime, commit: str, digest: str) -> dict:
    table = read_result_table(snapshot)
    return {
        "recorded_utc": recorded.isoformat(timespec="seconds"),
        "git_commit": commit,
        "file": snapshot.name,
        "sha256": digest,
        "rows": str(len(table)),
        "benchmarks": ";".join(sorted(table["benchmark"].astype(str).unique())),
    }


def rebuild_index(history_dir: Path) -> pd.DataFrame:
    """An index of the readable snapshots in ``history_dir``, oldest first.

    Their sha256 is taken as they are now: a snapshot damaged before the index
    was lost cannot be told from a good one.
    """
    rows = []
    for path in sorted(history_dir.glob("*.csv")):
        match = SNAPSHOT_NAME.fullmatch(path.name)
        if not match:
            continue
        recorded = datetime.strptime(match[1], "%Y%m%dT%H%M%S").replace(tzinfo=UTC)
        try:
            rows.append(_index_row(path, recorded, match[3], sha256_file(path)))
        except ScievalsError as exc:
            log.warning("history: %s is not a result table, left out of the index", exc.where)
    return pd.DataFrame(rows, columns=INDEX_COLUMNS)


def _set_aside(history_dir: Path, problem: HistoryDamaged, now: datetime) -> pd.DataFrame:
    """Rename the damaged part out of the way and start from what is left."""
    if history_dir.exists() and not history_dir.is_dir():
        moved = history_dir.with_name(f"{history_dir.name}.damaged-{_stamp(now)}")
        history_dir.rename(moved)
        history_dir.mkdir(parents=True)
        index, what = pd.DataFrame(columns=INDEX_COLUMNS), "a new history was started"
    else:
        old = history_dir / "index.csv"
        moved = old.with_name(f"index.csv.damaged-{_stamp(now)}")
        old.rename(moved)
        index = rebuild_index(history_dir)
        what = f"the index was rebuilt from {len(index)} stored snapshot(s)"
    message = f"history {problem.one_line()}: moved to {moved}; {what}"
    notices.record("history_set_aside", notices.WORKFLOW, message)
    return index


def record_history(
    summary_path: str | Path, history_dir: str | Path, now: datetime | None = None
) -> Path | None:
    """Store ``summary_path`` in the history unless the newest entry is identical.

    Returns the stored snapshot, or None when nothing had to be stored (or the
    history could not be written, which is logged and noticed, never raised).
    """
    history_dir = Path(history_dir)
    now = now or datetime.now(UTC)
    try:
        return _record(Path(summary_path), history_dir, now)
    except OSError as exc:
        message = f"history {history_dir}: not updated ({exc}); the summary itself was written"
        notices.record("history_not_updated", notices.WORKFLOW, message)
        return None


def _record(summary_path: Path, history_dir: Path, now: datetime) -> Path | None:
    try:
        index = read_index(history_dir)
    except HistoryDamaged as problem:
        index = _set_aside(history_dir, problem, now)
    digest = sha256_file(summary_path)
    if len(index) and index.iloc[-1]["sha256"] == digest:
        snapshot = history_dir / index.iloc[-1]["file"]
        if snapshot_state(snapshot, digest) == "ok":
            return None
        with atomic_path(snapshot) as tmp:
            shutil.copyfile(summary_path, tmp)
        log.warning("history: snapshot %s of the current summary was missing or damaged; "
                    "stored again", snapshot)
        return snapshot
    if len(index) and _only_bookkeeping_differs(summary_path, history_dir, index.iloc[-1]):
        return None
    if len(index):
        say_model_changes(summary_path, history_dir, index.iloc[-1])
    commit = git_commit()
    snapshot = history_dir / f"{_stamp(now)}_{re.sub(r'[^A-Za-z0-9._-]', '_', commit)}.csv"
    with atomic_path(snapshot) as tmp:
        shutil.copyfile(summary_path, tmp)
    row = _index_row(snapshot, now, commit, digest)
    write_csv(history_dir / "index.csv", pd.concat([index, pd.DataFrame([row])], ignore_index=True))
    return snapshot


def model_changes(new: pd.DataFrame, old: pd.DataFrame) -> dict[str, dict[str, list]]:
    """benchmark -> {"lost": [(model, rows)], "gained": [model]} between two summaries
    (benchmarks without a change left out)."""
    def rows_by_model(table: pd.DataFrame) -> dict[tuple[str, str], int]:
        counts = table.groupby(["benchmark", "model"]).size()
        return {(str(b), str(m)): int(n) for (b, m), n in counts.items()}

    before, after = rows_by_model(old), rows_by_model(new)
    changes: dict[str, dict[str, list]] = {}
    for (bench, model), rows in sorted(before.items()):
        if (bench, model) not in after:
            changes.setdefault(bench, {"lost": [], "gained": []})["lost"].append((model, rows))
    for bench, model in sorted(set(after) - set(before)):
        changes.setdefault(bench, {"lost": [], "gained": []})["gained"].append(model)
    return changes


def say_model_changes(summary_path: Path, history_dir: Path, newest: pd.Series) -> None:
    """A notice for this run's end when the new summary lost or gained models against the
    newest history entry (say, a run without the --configfile that added an LLM): which,
    and where the lost ones' tables still are. Never fails the summary."""
    snapshot = history_dir / newest["file"]
    if snapshot_state(snapshot, newest["sha256"]) != "ok":
        return
    try:
        changes = model_changes(read_result_table(summary_path), read_result_table(snapshot))
    except (ScievalsError, OSError, KeyError, ValueError) as exc:
        log.warning("history: models not compared with %s (%s)", snapshot, exc)
        return
    for bench, change in changes.items():
        parts = []
        if change["lost"]:
            where = [f"results/{bench}/scores/{m}.csv" for m, _ in change["lost"]
                     if Path(f"results/{bench}/scores/{m}.csv").is_file()]
            lost = ", ".join(f"{m} ({n} rows)" for m, n in change["lost"])
            parts.append(f"no longer has {lost}; their rows are "
                         f"still in {snapshot}" + (f" and {', '.join(where)}" if where else ""))
        if change["gained"]:
            parts.append(f"gained {', '.join(change['gained'])}")
        notices.record("models_changed", bench,
                       f"{summary_path} {'; '.join(parts)} (against history entry "
                       f"{newest['file']})",
                       details={"lost": [m for m, _ in change["lost"]],
                                "gained": change["gained"], "previous": str(snapshot)},
                       once=True)


def results_only(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` without its bookkeeping rows, renumbered."""
    return table[~table["metric"].isin(BOOKKEEPING_METRICS)].reset_index(drop=True)


def _only_bookkeeping_differs(summary_path: Path, history_dir: Path, newest: pd.Series) -> bool:
    """True when the summary equals the newest intact snapshot once bookkeeping rows are
    left out (a re-run served from the cache changes only ``cache_hits``)."""
    snapshot = history_dir / newest["file"]
    if snapshot_state(snapshot, newest["sha256"]) != "ok":
        return False
    return results_only(read_result_table(summary_path)).equals(
        results_only(read_result_table(snapshot)))


def resolve(ref: str, history_dir: str | Path) -> Path:
    """A summary path, or ``@latest``, ``@previous`` or ``@N`` (0-based row of the index).

    A snapshot from the history is checked against its recorded sha256 first.
    """
    if not ref.startswith("@"):
        path = Path(ref)
        if not path.exists():
            raise ScievalsError(ref, "file not found", "give a summary CSV or @latest/@previous/@N")
        return path
    index = read_index(history_dir)
    names = {"@latest": -1, "@previous": -2}
    try:
        position = names[ref] if ref in names else int(ref[1:])
        entry = index.iloc[position]
    except (ValueError, IndexError):
        if ref == "@previous" and len(index) == 1:  # right after the first run
            raise ScievalsError(
                f"{history_dir}/index.csv", "only one summary recorded so far (@0 = @latest), "
                "so there is no @previous to compare with yet",
                "re-run after a change (config, models, a prediction file) to record a second "
                "one, or compare a saved copy: python -m scievals compare OLD.csv "
                "results/summary.csv",
            ) from None
        raise ScievalsError(
            f"{history_dir}/index.csv", f"no history entry {ref} ({len(index)} recorded)",
            "run the workflow first or pick an existing entry (python -m scievals history)",
        ) from None
    snapshot = Path(history_dir) / entry["file"]
    state = snapshot_state(snapshot, entry["sha256"])
    if state != "ok":
        raise ScievalsError(
            snapshot, f"history entry {ref} is {state} (sha256 recorded in index.csv)",
            "pick another entry; a damaged snapshot of the current summary is stored again "
            "by the next workflow run",
        )
    return snapshot


def snapshot_state(snapshot: Path, digest: str) -> str:
    """``ok``, ``missing`` or ``damaged`` (its content no longer has the recorded sha256)."""
    if not snapshot.is_file():
        return "missing"
    return "ok" if sha256_file(snapshot) == digest else "damaged"
