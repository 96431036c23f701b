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
from scievals.common.io import read_jsonl
from scievals.common.samples import (
    Sample,
    metric_values,
    per_item_rows,
    pretty,
    read_usage,
    request_cost,
)

PER_CASE = "results/autogkb/scores/{model}.per_case.csv"


def _outcome(record: dict) -> str:
    if record.get("error"):
        return "request failed"
    if record.get("parse_status") != "ok":
        return "parse failed"
    return "scored"


def samples(root: str | Path, model: str) -> list[Sample]:
    root = Path(root)
    predictions = root / PREDICTIONS.format(model=model)
    if not predictions.is_file():
        return []
    cases = {c["case_id"]: c for c in read_cases(root / CASES)} \
        if (root / CASES).is_file() else {}
    scores = per_item_rows(root / PER_CASE.format(model=model))
    usage = read_usage(root / USAGE.format(model=model))
    out = []
    for record in read_jsonl(predictions):
        key = (record["case_id"], record.get("condition") or "", int(record.get("sample_index", 0)))
        case = cases.get(record["case_id"])
        tokens_in, tokens_out = record.get("tokens_in"), record.get("tokens_out")
        out.append(Sample(
            item=record["case_id"] + (f"#{key[2]}" if key[2] else ""), condition=key[1],
            input=build_prompt(case) if case else f"(article not in {CASES})",
            reply=record.get("raw_text") or pretty(record.get("annotations")),
            parse_status=str(record.get("parse_status") or "-"), outcome=_outcome(record),
            metrics=metric_values(scores.get(key, {}), TABLE_METRICS),
            rationale="; ".join(filter(None, [record.get("error"), record.get("parse_error")])),
            tokens_in=tokens_in, tokens_out=tokens_out,
            cost_usd=request_cost(tokens_in, tokens_out, usage),
            latency_s=record.get("latency_s")))
    return out
