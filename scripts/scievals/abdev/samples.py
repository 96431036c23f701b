"""abdev's items for the report's sample viewer: one per cross-validation fold.

A fold is abdev's unit of scoring: the input lists its antibodies, the reply is the model's
out-of-fold predictions for them (one line per antibody, the five assays), and the metrics
are the fold's rows of the model's score table (Spearman and top-10 % recall per assay).
A prediction file without the fold column is one item, "all".
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from scievals.abdev.constants import DEFAULT_FOLD_COL, PROPERTY_LIST
from scievals.common.samples import Sample, number

PREDICTIONS = "results/abdev/predictions/{model}.csv"
SCORES = "results/abdev/scores/{model}.csv"


def _fold_metrics(scores: pd.DataFrame, condition: str) -> dict[str, float | None]:
    rows = scores[scores["condition"] == condition]
    return {m: number(v) for m, v in zip(rows["metric"], rows["value"])}


def _reply(frame: pd.DataFrame) -> str:
    assays = [a for a in PROPERTY_LIST if a in frame.columns]
    lines = ["antibody_name\t" + "\t".join(assays)]
    for name, values in zip(frame["antibody_name"], frame[assays].to_numpy(dtype=float)):
        lines.append(f"{name}\t" + "\t".join("-" if pd.isna(v) else f"{v:.4g}"
                                              for v in values))
    return "\n".join(lines)


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
        out.append(Sample(
            item=condition, condition=condition,
            input=f"{len(names)} antibodies: " + ", ".join(names),
            reply=_reply(group), parse_status="-", outcome="scored",
            metrics=_fold_metrics(scores, condition)))
    return out
