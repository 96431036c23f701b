"""What differs between two result summaries (``python -m scievals compare A B``).

Rows are lined up on (benchmark, dataset, model, condition, metric). A row's results are
its ``value``, ``ci_low``, ``ci_high`` and ``n``, and each benchmark's dataset (name and
sha256): a difference in any of them is listed, one line per row and field, and counts
as a change (``--fail-on-change`` exits 2). ``--tolerance`` ignores numeric differences
up to that size (NaN equals only NaN). Bookkeeping rows (``cache_hits``,
``latency_mean_s``) are listed
apart and never count; the provenance columns (version, commit, config hash) are shown
as notes.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from scievals.common.errors import ScievalsError
from scievals.common.tables import read_result_table
from scievals.llm.usage_rows import BOOKKEEPING_METRICS
from scievals.results.dataset_diff import SHORT_SHA256, dataset_differences, datasets_lines

KEY = ["benchmark", "dataset", "model", "condition", "metric"]
RESULT_FIELDS = ["value", "ci_low", "ci_high", "n"]
PROVENANCE = ["scievals_version", "git_commit", "config_hash"]
DIFFERENCE_COLUMNS = KEY + ["field", "a", "b", "delta"]
SUMMARY_COLUMNS = ["benchmark", "models added", "models removed", "rows added", "rows removed",
                   "rows changed"]


@dataclass
class Comparison:
    differences: pd.DataFrame  # one row per (row, result field) that differs: DIFFERENCE_COLUMNS
    only_a: pd.DataFrame
    only_b: pd.DataFrame
    bookkeeping: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=DIFFERENCE_COLUMNS))  # differences in bookkeeping rows: listed, never a change
    provenance: list[str] = field(default_factory=list)
    datasets: list[str] = field(default_factory=list)  # benchmarks scored on different data
    datasets_shown: list[str] = field(default_factory=list)  # the same, sha256s abbreviated
    # benchmark -> (its models in A, its models in B), for the opening summary
    models: dict[str, tuple[set[str], set[str]]] = field(default_factory=dict)

    def by_benchmark(self) -> pd.DataFrame:
        """One line per benchmark of either side: models added and removed, rows added,
        removed and changed (a changed row: any of value, ci_low, ci_high, n differs)."""
        lines = []
        for benchmark, (models_a, models_b) in sorted(self.models.items()):
            def rows_of(frame: pd.DataFrame, name: str = benchmark) -> int:
                return int((frame["benchmark"] == name).sum())

            changed = self.differences[self.differences["benchmark"] == benchmark]
            lines.append({
                "benchmark": benchmark,
                "models added": ", ".join(sorted(models_b - models_a)) or "-",
                "models removed": ", ".join(sorted(models_a - models_b)) or "-",
                "rows added": rows_of(self.only_b), "rows removed": rows_of(self.only_a),
                "rows changed": len(changed.drop_duplicates(KEY)),
            })
        return pd.DataFrame(lines, columns=SUMMARY_COLUMNS)

    @property
    def changed(self) -> pd.DataFrame:
        """The value changes alone: KEY, value_a, value_b, delta."""
        rows = self.differences[self.differences["field"] == "value"]
        return rows.drop(columns="field").rename(columns={"a": "value_a", "b": "value_b"}) \
            .reset_index(drop=True)

    @property
    def identical(self) -> bool:
        """No result differs: values, CIs, n, rows present and datasets are all the same."""
        return (self.differences.empty and self.only_a.empty and self.only_b.empty
                and not self.datasets)


def _same(x: float, y: float, tolerance: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return abs(x - y) <= tolerance


def _read(path: str | Path) -> pd.DataFrame:
    frame = read_result_table(path)
    dup = frame.duplicated(KEY)
    if dup.any():
        first = frame.loc[dup, KEY].iloc[0].to_dict()
        raise ScievalsError(path, f"duplicate result rows, e.g. {first}", "regenerate the summary")
    return frame


def field_differences(both: pd.DataFrame, tolerance: float) -> pd.DataFrame:
    """Lined-up rows (columns ``<field>_a``/``<field>_b``) -> one row per differing field."""
    parts = []
    for name in RESULT_FIELDS:
        a = both[f"{name}_a"].astype(float)
        b = both[f"{name}_b"].astype(float)
        differs = [not _same(x, y, tolerance) for x, y in zip(a, b)]
        part = both.loc[differs, KEY].copy()
        part["field"], part["a"], part["b"] = name, a[differs], b[differs]
        parts.append(part)
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=KEY)
    out["delta"] = out["b"] - out["a"]
    return out.sort_values(KEY, kind="stable").reset_index(drop=True)[DIFFERENCE_COLUMNS]


def provenance_notes(both: pd.DataFrame) -> list[str]:
    notes = set()
    for column in PROVENANCE:
        pairs = both[[f"{column}_a", f"{column}_b"]].astype(str).drop_duplicates()
        notes.update(f"{column}: {old} -> {new}" for old, new in pairs.itertuples(index=False)
                     if old != new)
    return sorted(notes)


def compare(path_a: str | Path, path_b: str | Path, tolerance: float = 0.0,
            benchmarks: list[str] | None = None) -> Comparison:
    """Line up two summaries; ``benchmarks``: only these benchmarks' rows (each must be in
    one of the two summaries)."""
    if not tolerance >= 0:  # also refuses NaN
        raise ScievalsError(
            "--tolerance", f"{tolerance} is not a tolerance", "give 0 or a positive number"
        )
    a, b = _read(path_a), _read(path_b)
    if benchmarks:
        present = sorted(set(a["benchmark"].astype(str)) | set(b["benchmark"].astype(str)))
        unknown = [name for name in benchmarks if name not in present]
        if unknown:
            raise ScievalsError("--benchmark", f"no rows of {', '.join(unknown)} in either "
                                "summary", f"pick from: {', '.join(present) or '(none)'}")
        a, b = a[a["benchmark"].isin(benchmarks)], b[b["benchmark"].isin(benchmarks)]
    merged = a.merge(b, on=KEY, how="outer", suffixes=("_a", "_b"), indicator=True)
    both = merged[merged["_merge"] == "both"]
    kept = ~both["metric"].isin(BOOKKEEPING_METRICS)
    one_sided = merged[(merged["_merge"] != "both") & ~merged["metric"].isin(BOOKKEEPING_METRICS)]
    return Comparison(
        differences=field_differences(both[kept], tolerance),
        only_a=one_sided.loc[one_sided["_merge"] == "left_only", KEY].reset_index(drop=True),
        only_b=one_sided.loc[one_sided["_merge"] == "right_only", KEY].reset_index(drop=True),
        bookkeeping=field_differences(both[~kept], tolerance),
        provenance=provenance_notes(both),
        datasets=dataset_differences(a, b),
        datasets_shown=dataset_differences(a, b, digits=SHORT_SHA256),
        models={name: (_models(a, name), _models(b, name))
                for name in set(a["benchmark"].astype(str)) | set(b["benchmark"].astype(str))},
    )


def _models(frame: pd.DataFrame, benchmark: str) -> set[str]:
    return set(frame.loc[frame["benchmark"].astype(str) == benchmark, "model"].astype(str))


def _table(frame: pd.DataFrame) -> str:
    return frame.to_string(index=False, float_format=lambda v: f"{v:.6g}")


def _counts(differences: pd.DataFrame) -> str:
    counts = differences["field"].value_counts()
    return ", ".join(f"{name} {counts[name]}" for name in RESULT_FIELDS if name in counts)


def format_comparison(result: Comparison, label_a: str, label_b: str) -> str:
    lines = datasets_lines(result.datasets_shown) if result.datasets else []
    lines += [f"A: {label_a}", f"B: {label_b}"]
    summary = result.by_benchmark()
    if not summary.empty:
        lines += ["", "Per benchmark (B against A):", summary.to_string(index=False)]
    if result.identical:
        lines.append("No result changed (value, ci_low, ci_high, n and datasets are the same).")
    if not result.differences.empty:
        lines.append(f"\n{len(result.differences)} result difference(s) "
                     f"({_counts(result.differences)}):")
        lines.append(_table(result.differences))
    for label, frame, side in (("only in A", result.only_a, 0), ("only in B", result.only_b, 1)):
        # rows of a model the other side lacks altogether are counted above, not listed
        whole = [(b, m) for b, models in result.models.items()
                 for m in models[side] - models[1 - side]]
        of_whole = pd.Series([(b, m) in set(whole) for b, m in
                              zip(frame["benchmark"], frame["model"])], index=frame.index,
                             dtype=bool)
        listed = frame[~of_whole]
        if not listed.empty:
            lines.append(f"\n{len(listed)} row(s) {label}:")
            lines.append(listed.to_string(index=False))
        if of_whole.any():
            lines.append(f"\n{int(of_whole.sum())} row(s) {label} belong to models "
                         f"{'removed' if side == 0 else 'added'} (counted above, not listed).")
    if not result.bookkeeping.empty:
        named = sorted(set(result.bookkeeping["metric"]))  # the ones that differ here
        lines.append(f"\nBookkeeping, not results ({', '.join(named)}):")
        lines.append(_table(result.bookkeeping))
    if result.provenance:
        lines.append("\nProvenance differences:")
        lines.extend(f"  {note}" for note in result.provenance)
    return "\n".join(lines)


def comparison_json(result: Comparison, label_a: str, label_b: str) -> dict:
    """``compare --json``: the same content as :func:`format_comparison`, as plain data."""
    def records(frame: pd.DataFrame) -> list[dict]:
        return json.loads(frame.to_json(orient="records"))

    return {"a": label_a, "b": label_b, "identical": result.identical,
            "datasets_differ": result.datasets, "by_benchmark": records(result.by_benchmark()),
            "differences": records(result.differences), "only_in_a": records(result.only_a),
            "only_in_b": records(result.only_b), "bookkeeping": records(result.bookkeeping),
            "provenance": result.provenance}
