"""Prediction files (one JSON object per line) as users and the workflow give them.

One reader for bring-your-own files and prediction files handed to ``score``: JSON
nested past what the parser can read is the same one-line error as a tree deeper than
:data:`tree.MAX_DEPTH`, and two lines predicting the same (case, condition, sample)
refuse the file, naming both lines (averaging them would silently change the score).
"""

from __future__ import annotations

import json
import os
from typing import Any

from scievals.common.errors import ScievalsError
from scievals.gating.tree import TOO_DEEP

DEEP_FIX = "a gating hierarchy is a tree of at most a few dozen levels; check the file"


def read_lines(path: str | os.PathLike) -> list[tuple[int, Any]]:
    """(line number, value) of every non-blank line."""
    out = []
    try:
        with open(path, encoding="utf-8") as handle:
            for lineno, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    out.append((lineno, json.loads(line)))
                except RecursionError:
                    raise ScievalsError(f"{path}:{lineno}", TOO_DEEP, DEEP_FIX) from None
                except json.JSONDecodeError as exc:
                    raise ScievalsError(f"{path}:{lineno}", f"not valid JSON ({exc.msg})",
                                        "one JSON object per line") from None
    except FileNotFoundError:
        raise ScievalsError(path, "file not found", "check the path") from None
    except IsADirectoryError:
        raise ScievalsError(path, "is a directory", "give a .jsonl prediction file") from None
    except UnicodeDecodeError:
        raise ScievalsError(path, "not UTF-8 text", "save the file as UTF-8 JSON lines") from None
    return out


def refuse_duplicates(path, numbered: list[tuple[int, dict]]) -> None:
    """Raise when two lines predict the same (case_id, condition, sample_index).

    ``numbered`` holds (line number, record) with those keys filled in; the message
    names the lines of the first clashes.
    """
    first: dict[tuple, int] = {}
    clashes: list[str] = []
    for lineno, record in numbered:
        key = (str(record["case_id"]), str(record["condition"]),
               str(record.get("sample_index") or 0))
        if key in first:
            case_id, condition, sample = key
            clashes.append(f"case_id {case_id!r} (condition {condition!r}, sample {sample}) "
                           f"on lines {first[key]} and {lineno}")
        else:
            first[key] = lineno
    if clashes:
        more = f" (+{len(clashes) - 3} more)" if len(clashes) > 3 else ""
        raise ScievalsError(path, "duplicate predictions: " + "; ".join(clashes[:3]) + more,
                            "keep one line per case, condition and sample_index")
