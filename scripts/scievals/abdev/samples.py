"""abdev's items for the report's sample viewer: one per cross-validation fold.

A fold is abdev's unit of scoring: the input lists its antibodies, the reply is the model's
out-of-fold predictions for them (one line per antibody, the five assays), the expected
answer the measured values of the same antibodies (the truth table, same layout), the
metrics the fold's rows of the model's score table (Spearman and top-10 % recall per
assay), and the score the mean of the fold's per-assay Spearman. A prediction file without
the fold column is one item, "all".
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pandas as pd

from scievals.abdev.constants import DEFAULT_FOLD_COL, PROPERTY_LIST
from scievals.abdev.workflow import TRUTH
from scievals.common.samples import Sample, number

PREDICTIONS = "results/abdev/predictions/{model}.csv"
SCORES = "results/abdev/scores/{model}.csv"
SCORE = f"mean Spearman ({len(PROPERTY_LIST)} assays)"


def fold_score(metrics: dict[str, float | None]) -> float | None:
    """The mean of the fold's ``<assay>:spearman`` values that exist (None: none do)."""
    values = [metrics.get(f"{assay}:spearman") for assay in PROPERTY_LIST]
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _fold_metrics(scores: pd.DataFrame, condition: str) -> dict[str, float | None]:
    rows = scores[scores["condition"] == condition]
    return {m: number(v) for m, v in zip(rows["metric"], rows["value"])}


def _lines(frame: pd.DataFrame) -> tuple[str, list[str]]:
    """The header and one tab-separated line per antibody of the assays ``frame`` has."""
    assays = [a for a in PROPERTY_LIST if a in frame.columns]
    lines = [f"{name}\t" + "\t".join("-" if pd.isna(v) else f"{v:.4g}" for v in values)
             for name, values in zip(frame["antibody_name"].astype(str),
                                     frame[assays].to_numpy(dtype=float))]
    return "antibody_name\t" + "\t".join(assays), lines


def _values(frame: pd.DataFrame) -> str:
    header, lines = _lines(frame)
    return "\n".join([header, *lines])


@lru_cache(maxsize=4)
def _truth_lines(path: Path, modified_ns: int) -> tuple[str, dict[str, str]]:
    """The truth table's header and each antibody's line, read once per file version (the
    viewer asks for every model)."""
    truth = pd.read_csv(path, usecols=lambda c: c == "antibody_name" or c in PROPERTY_LIST)
    header, lines = _lines(truth.drop_duplicates("antibody_name"))
    return header, {line.split("\t", 1)[0]: line for line in lines}


def _expected(truth_path: Path, names: list[str]) -> str:
    """The measured values of ``names`` (in their order), or why there are none."""
    if not truth_path.is_file():
        return f"(no truth table {TRUTH})"
    header, lines = _truth_lines(truth_path, truth_path.stat().st_mtime_ns)
    known = [lines[n] for n in names if n in lines]
    missing = len(names) - len(known)
    return "\n".join([header, *known]) + (
        f"\n({missing} antibodies not in {TRUTH})" if missing else "")


def samples(root: str | Path, model: str) -> list[Sample]:
    root = Path(root)
    predictions = root / PREDICTIONS.format(model=model)
    if not predictions.is_file():
        return []
    frame = pd.read_csv(predictions)
    scores_path = root / SCORES.format(model=model)
    scores = (pd.read_csv(scores_path, dtype={"condition": str}) if scores_path.is_file()
              else pd.DataFrame(columns=["condition", "metric", "value"]))
    if DEFAULT_FOLD_COL in frame.columns:
        groups = [(f"fold={int(k)}", g) for k, g in frame.groupby(DEFAULT_FOLD_COL, sort=True)]
    else:
        groups = [("all", frame)]
    out = []
    for condition, group in groups:
        names = group["antibody_name"].astype(str).tolist()
        metrics = _fold_metrics(scores, condition)
        out.append(Sample(
            item=condition, condition=condition,
            input=f"{len(names)} antibodies: " + ", ".join(names),
            reply=_values(group), parse_status="-", outcome="scored", metrics=metrics,
            expected=_expected(root / TRUTH, names), score=fold_score(metrics), score_name=SCORE))
    return out
