"""Long-format result tables.

One row per (benchmark, dataset, model, condition, metric). Every benchmark's
score table, the per-benchmark summaries and ``results/summary.csv`` share this
column set, so they concatenate without reshaping. ``ci_method`` says how the row's
interval was made (``t``, ``wilson``, ``percentile-cluster``...; empty without an interval;
docs/statistics.md); tables written before it existed read as empty.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping

import pandas as pd

from scievals.common import interrupts
from scievals.common.errors import ScievalsError
from scievals.common.io import user_file, write_csv
from scievals.common.provenance import Provenance
from scievals.common.table_files import RESULT_COLUMNS, raise_if_not_scored


def result_rows(
    provenance: Provenance,
    model: str,
    condition: str,
    metrics: Iterable[Mapping],
) -> pd.DataFrame:
    """Build a result table from ``metrics`` dicts.

    Each dict needs ``metric`` and ``value``; ``ci_low``, ``ci_high`` and ``n``
    are optional (empty when absent).
    """
    base = provenance.as_columns()
    rows = []
    for item in metrics:
        rows.append(
            {
                **base,
                "model": model,
                "condition": condition,
                "metric": item["metric"],
                "value": _number(item["value"]),
                "ci_low": _number(item.get("ci_low")),
                "ci_high": _number(item.get("ci_high")),
                "n": item.get("n"),
                "ci_method": item.get("ci_method") or "",
            }
        )
    return pd.DataFrame(rows, columns=RESULT_COLUMNS)


def _number(value) -> float:
    if value is None:
        return math.nan
    return float(value)


def check_result_table(frame: pd.DataFrame, where: str) -> pd.DataFrame:
    missing = [c for c in RESULT_COLUMNS if c not in frame.columns]
    if missing:
        raise ScievalsError(
            where,
            f"result table lacks columns {missing}",
            "tables must be written by scievals.common.tables",
        )
    return frame[RESULT_COLUMNS]


def read_result_table(path: str | os.PathLike) -> pd.DataFrame:
    with open(user_file(path), encoding="utf-8", errors="replace") as handle:
        raise_if_not_scored(path, handle.readline())  # the header line, or the stored error
    try:
        frame = pd.read_csv(
            user_file(path),
            dtype={"git_commit": str, "config_hash": str, "condition": str, "ci_method": str},
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        interrupts.check()  # Ctrl-C inside pandas' reader comes out as a ParserError
        raise ScievalsError(path, f"not a readable CSV ({exc})", "give a scievals result table") from None
    if "ci_method" not in frame.columns:  # a table from before the column existed
        frame["ci_method"] = ""
    frame = check_result_table(frame, str(path))
    frame["condition"] = frame["condition"].fillna("")
    frame["ci_method"] = frame["ci_method"].fillna("").astype(str)
    return frame


def concat_tables(paths: Iterable[str | os.PathLike]) -> pd.DataFrame:
    frames = [read_result_table(p) for p in paths]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=RESULT_COLUMNS)
    merged = pd.concat(frames, ignore_index=True)
    return merged.sort_values(
        ["benchmark", "dataset", "model", "condition", "metric"], kind="stable"
    ).reset_index(drop=True)


def write_result_table(path: str | os.PathLike, frame: pd.DataFrame) -> None:
    write_csv(path, check_result_table(frame, str(path)))
