"""autogkb's items for the report's sample viewer: one per (article, condition, sample).

The input is the prompt (the article's evidence or full text and the task), the reply the
raw text (a baseline's annotations), the metrics the article's row of its
``per_case.csv``, and the parse error where the reply could not be read.
"""

from __future__ import annotations

from pathlib import Path

from scievals.autogkb.curate import read_cases
from scievals.autogkb.prompts import build_prompt
from scievals.autogkb.score import TABLE_METRICS
from scievals.autogkb.workflow import CASES, PREDICTIONS, USAGE
from scievals.common.samples import Sample, prediction_samples, pretty

PER_CASE = "results/autogkb/scores/{model}.per_case.csv"


def samples(root: str | Path, model: str) -> list[Sample]:
    root = Path(root)
    cases = {c["case_id"]: c for c in read_cases(root / CASES)} \
        if (root / CASES).is_file() else {}

    def describe(record: dict) -> tuple[str, str]:
        case = cases.get(record["case_id"])
        return (build_prompt(case) if case else f"(article not in {CASES})",
                record.get("raw_text") or pretty(record.get("annotations")))

    return prediction_samples(
        root / PREDICTIONS.format(model=model), root / PER_CASE.format(model=model),
        root / USAGE.format(model=model), TABLE_METRICS, describe)
