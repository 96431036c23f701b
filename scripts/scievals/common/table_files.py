"""Result tables as CSV text, without pandas: the column set every table shares, and the
concatenation a benchmark's summary job makes (its start-up would otherwise be mostly the
pandas import). Cells are copied as written; rows sorted as ``tables.concat_tables`` sorts.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable

from scievals.common.errors import ScievalsError
from scievals.common.io import read_user_text, write_text

RESULT_COLUMNS = [
    "benchmark",
    "dataset",
    "dataset_sha256",
    "model",
    "condition",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "ci_method",  # how the interval was made (docs/statistics.md); older tables lack it
    "scievals_version",
    "git_commit",
    "config_hash",
]
SORT_KEY = ["benchmark", "dataset", "model", "condition", "metric"]
# The first line of a score table an invalid own file got instead of its scores, when other
# files of its score job were valid: the job keeps their tables (a failed job would lose them
# all), and every reader of this one stops with the file's own one-line error.
NOT_SCORED = "# scievals: not scored: "


def write_not_scored(path: str | os.PathLike, error: ScievalsError) -> None:
    """Put the one-line error of an invalid own file where its score table would be."""
    write_text(path, NOT_SCORED + json.dumps([error.where, error.problem, error.fix]) + "\n")


def raise_if_not_scored(path: str | os.PathLike, text: str) -> None:
    """The stored error of a :func:`write_not_scored` table, raised again."""
    if text.startswith(NOT_SCORED):
        where, problem, fix = json.loads(text[len(NOT_SCORED):].splitlines()[0])
        raise ScievalsError(where, problem, fix)


def stored_error(path: str | os.PathLike) -> ScievalsError | None:
    """The error a :func:`write_not_scored` file holds in place of its content, else None
    (an own file refused before it was copied: scripts/copy_own.py)."""
    try:
        with open(path, "rb") as handle:
            if handle.read(len(NOT_SCORED)) != NOT_SCORED.encode():
                return None
            text = NOT_SCORED + handle.readline().decode("utf-8")
    except OSError:  # the reader that follows names a missing or unreadable file
        return None
    try:
        raise_if_not_scored(path, text)
    except ScievalsError as exc:
        return exc
    return None


def read_rows(path: str | os.PathLike) -> list[dict[str, str]]:
    """A result table's rows as text cells, checked for the shared columns."""
    text = read_user_text(path)
    raise_if_not_scored(path, text)
    if not text.strip():
        raise ScievalsError(path, "not a readable CSV (empty file)", "give a scievals result table")
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        rows = list(reader)
    except csv.Error as exc:
        raise ScievalsError(path, f"not a readable CSV ({exc})",
                            "give a scievals result table") from None
    missing = [c for c in RESULT_COLUMNS
               if c not in (reader.fieldnames or []) and c != "ci_method"]
    if missing:
        raise ScievalsError(path, f"result table lacks columns {missing}",
                            "tables must be written by scievals.common.tables")
    return rows


def concat_files(paths: Iterable[str | os.PathLike], out: str | os.PathLike) -> int:
    """Write the rows of every table in ``paths`` to ``out`` (atomic), sorted by benchmark,
    dataset, model, condition and metric (stable); returns the number of rows."""
    rows = [row for path in paths for row in read_rows(path)]
    rows.sort(key=lambda row: tuple(row[c] or "" for c in SORT_KEY))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, RESULT_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    write_text(out, buffer.getvalue())
    return len(rows)
