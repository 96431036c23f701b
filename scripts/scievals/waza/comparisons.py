"""waza's items for the paired comparisons: the tasks of each suite (one dataset per suite).

``pass_rate`` is per-task pass/fail (a task passes when every run passed, waza's
``success_rate``), compared with the exact McNemar test; ``weighted_score`` and
``aggregate_score`` are per-task means over runs (paired t). ``trigger_accuracy`` has no
per-item table and is not compared."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from scievals.common.comparisons import ItemMetric
from scievals.common.io import read_json, user_file

# headline metric -> (per-case column, kind)
ITEM_COLUMNS = {"pass_rate": ("passed", "pass_fail"),
                "weighted_score": ("avg_weighted_score", "mean"),
                "aggregate_score": ("avg_score", "mean")}


def item_metrics(inputs: Mapping[str, Sequence[str]], models: Sequence[str],
                 headline: Sequence[str], section: Mapping) -> list[ItemMetric]:
    suites = read_json(inputs["download"][0]).get("suites", {})
    frames = []
    for model, path in zip(models, inputs["per_case"]):
        frame = pd.read_csv(user_file(path), dtype={"suite": str, "task_id": str})
        frames.append(frame.assign(model=model,
                                   passed=(frame["status"] == "passed").astype(float)))
    if not frames:
        return []
    tasks = pd.concat(frames, ignore_index=True)
    out = []
    for suite, rows in tasks.groupby("suite", sort=True):
        dataset = suites.get(suite, {}).get("dataset", suite)
        for metric in headline:
            if metric not in ITEM_COLUMNS:
                continue
            column, kind = ITEM_COLUMNS[metric]
            values = rows.pivot_table(index="task_id", columns="model", values=column,
                                      aggfunc="mean")
            out.append(ItemMetric(str(dataset), metric, kind, values))
    return out
