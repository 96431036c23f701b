"""The checks of an abdev prediction file that need only its first line, without pandas: what
the copy job of the user's own files (scripts/copy_own.py) asks before it copies anything into
``results/``, and the first checks of the full validation (scievals.abdev.validate).

A file that fails them is not a prediction table at all (another delimiter, another kind of
file, a link to ``/etc/passwd``): its bytes are never copied; the copy job puts its one-line
error where the copy would be (scievals.common.table_files.write_not_scored), and the score
job reports it as not scored, beside the batch's valid files."""

from __future__ import annotations

import csv
import io
import os

from scievals.abdev.constants import PROPERTY_LIST
from scievals.common.errors import ScievalsError

SEPARATORS = {";": ";", "tab": "\t", "|": "|"}
# Bytes read for the header: a prediction file's first line is a few hundred characters.
HEADER_BYTES = 64 * 1024


def other_separator(header: list[str]) -> str | None:
    """``';'``, ``'\\t'`` or ``'|'`` when a one-column header holds that separator (a CSV
    written with another delimiter, as European spreadsheets write ``;``), else None."""
    if len(header) != 1:
        return None
    for separator, name in ((";", ";"), ("\t", "tab"), ("|", "|")):
        if separator in header[0]:
            return name
    return None


def separator_error(header: list[str]) -> str | None:
    """The one error of a file written with another delimiter (None if it is not)."""
    separator = other_separator(header)
    if separator is None:
        return None
    first = str(header[0])
    if "\n" in first or "\r" in first:  # one line: a quoted header cell may hold line breaks
        first = " ".join(first.split())
    first = first[:60]
    return (f"the file looks {separator}-separated (its header is one column: {first!r}); write it "
            f"comma-separated, e.g. pandas.read_csv(f, sep={SEPARATORS[separator]!r})"
            ".to_csv(f, index=False)")


def missing_column_errors(columns) -> list[str]:
    """The reference's first two format checks: ``antibody_name`` and an assay column."""
    errors = []
    if "antibody_name" not in columns:
        errors.append("Missing required column 'antibody_name'")
    if not [c for c in columns if c in PROPERTY_LIST]:
        errors.append(f"No property columns found. Must have at least one of: {PROPERTY_LIST}")
    return errors


def check_own_header(path: str | os.PathLike) -> None:
    """One :class:`ScievalsError` naming ``path`` if its first line is not the header of an abdev
    prediction table (UTF-8 text, comma-separated, with ``antibody_name`` and an assay)."""
    with open(path, "rb") as handle:
        head = handle.read(HEADER_BYTES)
    fix = "give a comma-separated prediction table with antibody_name and one or more assay columns"
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not a multi-byte character cut at the read's end
            raise ScievalsError(str(path), "not UTF-8 text (an abdev prediction file is a CSV "
                                "table)", fix) from None
        text = head[:exc.start].decode("utf-8-sig")
    if "\0" in text:
        raise ScievalsError(str(path), "not a text file (it holds NUL bytes)", fix)
    # the first line with a value, as pandas reads it (it skips blank lines): this check must
    # never refuse a file the full validation accepts
    rows = csv.reader(io.StringIO(text, newline=""))
    header = next((row for row in rows if any(cell.strip() for cell in row)), [])
    separator = separator_error(header)
    errors = [separator] if separator else missing_column_errors(header)
    if errors:
        raise ScievalsError(str(path), "; ".join(errors), fix)
