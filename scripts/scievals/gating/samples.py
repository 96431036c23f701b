"""gating's items for the report's sample viewer: one per (case, condition, sample).

The input is the prompt the model got (rebuilt from the case with the condition's context
and strategy; a baseline's panel as the minimal context), the reply the raw text (a
baseline's predicted hierarchy), and the metrics the case's row of ``per_case.csv``.
"""

from __future__ import annotations

from pathlib import Path

from scievals.common.io import read_jsonl
from scievals.common.samples import Sample, prediction_samples, pretty
from scievals.gating.prompts import build_prompt, context_block
from scievals.gating.score import TABLE_METRICS
from scievals.gating.workflow import CASES, PREDICTIONS, USAGE

PER_CASE = "results/gating/scores/{model}.per_case.csv"
KEY = ("case_id", "condition", "sample_index")


def _input(case: dict | None, record: dict) -> str:
    if case is None:
        return f"(case {record['case_id']} is not in {CASES})"
    if record.get("context") and record.get("strategy"):
        return build_prompt(case, record["context"], record["strategy"])
    return context_block(case, "minimal")  # a baseline or own file: what the panel says


def samples(root: str | Path, model: str) -> list[Sample]:
    root = Path(root)
    cases = {c["test_case_id"]: c for c in read_jsonl(root / CASES)} \
        if (root / CASES).is_file() else {}
    return prediction_samples(
        root / PREDICTIONS.format(model=model), root / PER_CASE.format(model=model),
        root / USAGE.format(model=model), TABLE_METRICS,
        lambda record: (_input(cases.get(record["case_id"]), record),
                        record.get("raw_text") or pretty(record.get("hierarchy"))))
