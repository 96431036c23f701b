"""Prediction files (one JSON object per line) as users and the workflow give them.

One reader for bring-your-own files and prediction files handed to ``score``: JSON
nested past what the parser can read is the same one-line error as a tree deeper than
:data:`tree.MAX_DEPTH`, and two lines predicting the same (case, condition, sample)
refuse the file, naming both lines (averaging them would silently change the score).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

from scievals.common.errors import ScievalsError
from scievals.gating.tree import TOO_DEEP

DEEP_FIX = "a gating hierarchy is a tree of at most a few dozen levels; check the file"


def read_lines(path: str | os.PathLike) -> list[tuple[int, Any]]:
    """(line number, value) of every non-blank line."""
    return list(iter_lines(path))


def iter_lines(path: str | os.PathLike) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line in turn (one line in memory at a time)."""
    try:
        with open(path, encoding="utf-8") as handle:
            for lineno, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                except RecursionError:
                    raise ScievalsError(f"{path}:{lineno}", TOO_DEEP, DEEP_FIX) from None
                except json.JSONDecodeError as exc:
                    raise ScievalsError(f"{path}:{lineno}", f"not valid JSON ({exc.msg})",
                                        "one JSON object per line") from None
                yield lineno, value
    except FileNotFoundError:
        raise ScievalsError(path, "file not found", "check the path") from None
    except IsADirectoryError:
        raise ScievalsError(path, "is a directory", "give a .jsonl prediction file") from None
    except UnicodeDecodeError:
        raise ScievalsError(path, "not UTF-8 text", "save the file as UTF-8 JSON lines") from None


def refuse_duplicates(path, numbered: list[tuple[int, dict]]) -> None:
    """Raise when two lines predict the same (case_id, condition, sample_index).

    ``numbered`` holds (line number, record) with those keys filled in; the message
    names the lines of the first clashes.
    """
    duplicates = Duplicates()
    for lineno, record in numbered:
        duplicates.see(lineno, record)
    duplicates.refuse(path)


class Duplicates:
    """:func:`refuse_duplicates` one record at a time, for readers that stream a file: only
    each (case, condition, sample) key and its first line are kept."""

    def __init__(self) -> None:
        self.first: dict[tuple, int] = {}
        self.clashes: list[str] = []

    def see(self, lineno: int, record: dict) -> None:
        key = (str(record["case_id"]), str(record["condition"]),
               str(record.get("sample_index") or 0))
        if key in self.first:
            case_id, condition, sample = key
            self.clashes.append(f"case_id {case_id!r} (condition {condition!r}, sample "
                                f"{sample}) on lines {self.first[key]} and {lineno}")
        else:
            self.first[key] = lineno

    def refuse(self, path) -> None:
        if self.clashes:
            more = f" (+{len(self.clashes) - 3} more)" if len(self.clashes) > 3 else ""
            raise ScievalsError(path, "duplicate predictions: " + "; ".join(self.clashes[:3])
                                + more, "keep one line per case, condition and sample_index")
