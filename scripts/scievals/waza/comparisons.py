"""waza's items for the paired comparisons: the tasks of each suite (one dataset per suite).

Read from each model's graded results (``results/waza/graded/<model>.json``), so the A/B
arm without skills (``<model> [no-skill]``, its own leaderboard row) is an arm too.
``pass_rate`` is per-task pass/fail (a task passes when every run passed, waza's
``success_rate``), compared with the exact McNemar test; ``weighted_score`` and
``aggregate_score`` are per-task means over runs (paired t). ``trigger_accuracy`` has no
per-item values and is not compared."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from scievals.stats.comparisons import Arm, ItemMetric, bounds
from scievals.common.io import read_json
from scievals.waza.recording import BASELINE_ARM

# headline metric -> (per-task value, kind)
ITEM_VALUES = {
    "pass_rate": (lambda task: 1.0 if task["status"] == "passed" else 0.0, "pass_fail"),
    "weighted_score": (lambda task: task["stats"]["avg_weighted_score"], "mean"),
    "aggregate_score": (lambda task: task["stats"]["avg_score"], "mean"),
}


def task_rows(arm: Arm, suite: str, outcome: Mapping) -> list[dict]:
    return [{"arm": arm, "suite": suite, "task_id": task["test_id"],
             **{metric: value(task) for metric, (value, _) in ITEM_VALUES.items()}}
            for task in outcome.get("tasks") or []]


def item_metrics(inputs: Mapping[str, Sequence[str]], models: Sequence[str],
                 headline: Sequence[str], section: Mapping,
                 bootstrap: Mapping | None = None, ranges: Mapping | None = None,
                 ) -> list[ItemMetric]:
    suites = read_json(inputs["download"][0]).get("suites", {})
    datasets = {}  # a smoke run's labels, as the score job wrote them (waza.score)
    rows = []
    for model, path in zip(models, inputs["graded"]):
        graded = read_json(path)
        datasets.update(graded.get("datasets") or {})
        for suite, outcome in graded["suites"].items():
            rows += task_rows(Arm(model, model), suite, outcome)
            if outcome.get("baseline_outcome"):
                rows += task_rows(Arm(f"{model} [{BASELINE_ARM}]", model, BASELINE_ARM), suite,
                                  outcome["baseline_outcome"])
    if not rows:
        return []
    tasks = pd.DataFrame(rows)
    out = []
    for suite, group in tasks.groupby("suite", sort=True):
        dataset = datasets.get(suite) or suites.get(suite, {}).get("dataset", suite)
        for metric in headline:
            if metric in ITEM_VALUES:
                values = group.assign(arm=group["arm"].map(lambda a: a.label)).pivot_table(
                    index="task_id", columns="arm", values=metric, aggfunc="mean")
                arms = {a.label: a for a in group["arm"]}
                low, high = bounds(ranges, metric)
                out.append(ItemMetric(str(dataset), metric, ITEM_VALUES[metric][1], values,
                                      tuple(arms[c] for c in values.columns), high - low, low))
    return out
