"""Reading abdev's CSV files (truth and predictions) as the reference does: pandas' default
parser, only the columns needed, one clear error per unreadable file."""

from __future__ import annotations

import csv
import os

import pandas as pd

from scievals.common.errors import ScievalsError


def csv_header(path: str | os.PathLike) -> list[str]:
    """Column names from the first line (``pd.read_csv(nrows=0)`` costs as much as 1/3 of a full read)."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return next(csv.reader(handle), [])


def read_csv(path: str | os.PathLike, columns: set[str] | None = None) -> pd.DataFrame:
    """``pd.read_csv`` with the default parser (as the reference); pandas' exceptions pass through.

    ``columns`` restricts parsing to those columns (others are skipped, which
    halves the time for GDPa1's long DNA columns; parsed values are the same).
    """
    if columns is None:
        return pd.read_csv(path)
    # a list is much faster than a callable; pandas rejects names it lacks
    return pd.read_csv(path, usecols=[c for c in csv_header(path) if c in columns] or None)


def read_csv_checked(path: str | os.PathLike, role: str, columns: set[str] | None = None) -> pd.DataFrame:
    """:func:`read_csv` with one clear error per problem; the file must have ``antibody_name``."""
    try:
        frame = read_csv(path, columns)
    except FileNotFoundError:
        raise ScievalsError(str(path), f"{role} file not found", "check the path") from None
    except IsADirectoryError:
        raise ScievalsError(str(path), f"{role} path is a directory", "give the CSV file itself") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise ScievalsError(
            str(path),
            f"cannot read {role} CSV ({' '.join(str(exc).split())})",
            "write a comma-separated file with a header row",
        ) from None
    if "antibody_name" not in frame.columns:
        header = csv_header(path) if columns is not None else list(frame.columns)
        raise ScievalsError(
            str(path),
            f"{role} file has no 'antibody_name' column (columns: {header[:8]})",
            "name the column holding the antibody names exactly 'antibody_name'",
        )
    return frame
