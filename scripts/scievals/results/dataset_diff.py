"""Which benchmarks two result summaries scored on different data.

Comparing a real-data summary with a demo one lines up no row (the dataset is part of the
key), so ``compare`` says this first, in one line, before the one-sided rows.
"""

from __future__ import annotations

import pandas as pd


def datasets_of(table: pd.DataFrame) -> dict[str, set[tuple[str, str]]]:
    """benchmark -> {(dataset, dataset_sha256)} of a result table."""
    out: dict[str, set[tuple[str, str]]] = {}
    pairs = table[["benchmark", "dataset", "dataset_sha256"]].astype(str).drop_duplicates()
    for benchmark, dataset, sha256 in pairs.itertuples(index=False):
        out.setdefault(benchmark, set()).add((dataset, sha256))
    return out


def _label(pairs: set[tuple[str, str]]) -> str:
    return ", ".join(f"{name} (sha256 {sha})" for name, sha in sorted(pairs))


def dataset_differences(a: pd.DataFrame, b: pd.DataFrame) -> list[str]:
    """One note per benchmark present on both sides whose datasets (name or sha256) differ."""
    left, right = datasets_of(a), datasets_of(b)
    return [f"{benchmark}: A {_label(left[benchmark])} vs B {_label(right[benchmark])}"
            for benchmark in sorted(set(left) & set(right)) if left[benchmark] != right[benchmark]]


def datasets_line(notes: list[str]) -> str:
    return "DATASETS DIFFER, rows of different data cannot be compared: " + "; ".join(notes)
