"""Versioned summaries: keep every distinct results/summary.csv and diff any two.

``record_history`` copies a new summary to ``results/history/<UTC>_<commit>.csv``
and appends a line to ``results/history/index.csv``; an unchanged summary (same
sha256 as the newest entry) is not stored twice. ``compare`` lines two summaries
up by (benchmark, dataset, model, condition, metric).
"""

from __future__ import annotations

import math
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from scievals.common.dataset_diff import dataset_differences, datasets_line
from scievals.common.errors import ScievalsError
from scievals.common.io import atomic_path, sha256_file, write_csv
from scievals.common.provenance import git_commit
from scievals.common.tables import read_result_table

KEY = ["benchmark", "dataset", "model", "condition", "metric"]
INDEX_COLUMNS = ["recorded_utc", "git_commit", "file", "sha256", "rows", "benchmarks"]
PROVENANCE = ["dataset_sha256", "scievals_version", "git_commit", "config_hash"]


def read_index(history_dir: str | Path) -> pd.DataFrame:
    index = Path(history_dir) / "index.csv"
    if not index.exists():
        return pd.DataFrame(columns=INDEX_COLUMNS)
    return pd.read_csv(index, dtype=str)


def record_history(summary_path: str | Path, history_dir: str | Path, now: datetime | None = None) -> Path | None:
    """Store ``summary_path`` in the history unless the newest entry is identical."""
    history_dir = Path(history_dir)
    digest = sha256_file(summary_path)
    index = read_index(history_dir)
    if len(index) and index.iloc[-1]["sha256"] == digest:
        return None
    now = now or datetime.now(UTC)
    stamp = now.strftime("%Y%m%dT%H%M%S") + f"{now.microsecond // 1000:03d}Z"
    commit = git_commit()
    name = f"{stamp}_{commit}.csv"
    with atomic_path(history_dir / name) as tmp:
        shutil.copyfile(summary_path, tmp)
    table = read_result_table(summary_path)
    row = {
        "recorded_utc": now.isoformat(timespec="seconds"),
        "git_commit": commit,
        "file": name,
        "sha256": digest,
        "rows": str(len(table)),
        "benchmarks": ";".join(sorted(table["benchmark"].astype(str).unique())),
    }
    write_csv(history_dir / "index.csv", pd.concat([index, pd.DataFrame([row])], ignore_index=True))
    return history_dir / name


def resolve(ref: str, history_dir: str | Path) -> Path:
    """A summary path, or ``@latest``, ``@previous`` or ``@N`` (0-based row of the index)."""
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
    return Path(history_dir) / entry["file"]


@dataclass
class Comparison:
    changed: pd.DataFrame
    only_a: pd.DataFrame
    only_b: pd.DataFrame
    provenance: list[str] = field(default_factory=list)
    datasets: list[str] = field(default_factory=list)  # benchmarks scored on different data

    @property
    def identical(self) -> bool:
        return self.changed.empty and self.only_a.empty and self.only_b.empty


def _same(x: float, y: float, tolerance: float) -> bool:
    if math.isnan(x) and math.isnan(y):
        return True
    return abs(x - y) <= tolerance


def compare(path_a: str | Path, path_b: str | Path, tolerance: float = 0.0) -> Comparison:
    a = read_result_table(path_a)
    b = read_result_table(path_b)
    for frame, path in ((a, path_a), (b, path_b)):
        dup = frame.duplicated(KEY)
        if dup.any():
            first = frame.loc[dup, KEY].iloc[0].to_dict()
            raise ScievalsError(path, f"duplicate result rows, e.g. {first}", "regenerate the summary")
    merged = a.merge(b, on=KEY, how="outer", suffixes=("_a", "_b"), indicator=True)
    both = merged[merged["_merge"] == "both"]
    value_changed = [
        not _same(x, y, tolerance) for x, y in zip(both["value_a"], both["value_b"])
    ]
    changed = both.loc[value_changed, KEY + ["value_a", "value_b"]].copy()
    changed["delta"] = changed["value_b"] - changed["value_a"]
    notes = []
    for column in PROVENANCE:
        pairs = both[[f"{column}_a", f"{column}_b"]].astype(str).drop_duplicates()
        for old, new in pairs.itertuples(index=False):
            if old != new:
                notes.append(f"{column}: {old} -> {new}")
    return Comparison(
        changed=changed.reset_index(drop=True),
        only_a=merged.loc[merged["_merge"] == "left_only", KEY].reset_index(drop=True),
        only_b=merged.loc[merged["_merge"] == "right_only", KEY].reset_index(drop=True),
        provenance=sorted(set(notes)),
        datasets=dataset_differences(a, b),
    )


def format_comparison(result: Comparison, label_a: str, label_b: str) -> str:
    lines = [datasets_line(result.datasets)] if result.datasets else []
    lines += [f"A: {label_a}", f"B: {label_b}"]
    if result.identical:
        lines.append("No value changed.")
    if not result.changed.empty:
        lines.append(f"\n{len(result.changed)} value(s) changed:")
        lines.append(result.changed.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    for label, frame in (("only in A", result.only_a), ("only in B", result.only_b)):
        if not frame.empty:
            lines.append(f"\n{len(frame)} row(s) {label}:")
            lines.append(frame.to_string(index=False))
    if result.provenance:
        lines.append("\nProvenance differences:")
        lines.extend(f"  {note}" for note in result.provenance)
    return "\n".join(lines)
