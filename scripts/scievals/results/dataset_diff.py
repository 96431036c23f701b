"""Which benchmarks two result summaries scored on different data.

Comparing a real-data summary with a demo one lines up no row (the dataset is part of the
key), so ``compare`` says this first, a wrapped line per benchmark naming the datasets of
each side the other lacks (sha256s cut to 12 characters, as ``show`` does), before the
one-sided rows.
"""

from __future__ import annotations

import textwrap

import pandas as pd


def datasets_of(table: pd.DataFrame) -> dict[str, set[tuple[str, str]]]:
    """benchmark -> {(dataset, dataset_sha256)} of a result table."""
    out: dict[str, set[tuple[str, str]]] = {}
    pairs = table[["benchmark", "dataset", "dataset_sha256"]].astype(str).drop_duplicates()
    for benchmark, dataset, sha256 in pairs.itertuples(index=False):
        out.setdefault(benchmark, set()).add((dataset, sha256))
    return out


# A dataset's sha256 as the terminal shows it (as `show` does); --json keeps the full one.
SHORT_SHA256 = 12


def _label(pairs: set[tuple[str, str]], digits: int | None) -> str:
    return ", ".join(f"{name} (sha256 {sha[:digits]})" for name, sha in sorted(pairs)) or "-"


def dataset_differences(a: pd.DataFrame, b: pd.DataFrame,
                        digits: int | None = None) -> list[str]:
    """One note per benchmark present on both sides whose datasets (name or sha256) differ,
    naming the datasets of each side that the other lacks (sha256s cut to ``digits``)."""
    left, right = datasets_of(a), datasets_of(b)
    return [f"{benchmark}: A {_label(left[benchmark] - right[benchmark], digits)} vs "
            f"B {_label(right[benchmark] - left[benchmark], digits)}"
            for benchmark in sorted(set(left) & set(right)) if left[benchmark] != right[benchmark]]


def datasets_lines(notes: list[str], width: int = 100) -> list[str]:
    """The heading, then each benchmark's note wrapped to ``width`` columns."""
    lines = ["DATASETS DIFFER, rows of different data cannot be compared:"]
    for note in notes:
        lines += textwrap.wrap(note, width, initial_indent="  ", subsequent_indent="    ",
                               break_long_words=False, break_on_hyphens=False)
    return lines
