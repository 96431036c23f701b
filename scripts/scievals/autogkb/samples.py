"""autogkb's items for the report's sample viewer: one per (article, condition, sample).

The input is the prompt (the article's evidence or full text and the task), the reply the
annotations parsed from it above the raw text (a baseline's annotations), drawn as the
expected ones are (:func:`reply_text`), the expected answer the article's curated
annotations (one block per annotation, the fields the scorer compares), the metrics the
article's row of its ``per_case.csv``, the score its ``one_to_one_score`` (0-100), and the
parse error where the reply could not be read. Where annotations state confidences, the
reply starts with each one's confidence beside whether it matched (``experiments.units``, at
the default threshold).
"""

from __future__ import annotations

from pathlib import Path

from scievals.autogkb.curate import read_cases
from scievals.autogkb.metrics import DEFAULT_THRESHOLD, FIELDS
from scievals.autogkb.prompts import build_prompt
from scievals.autogkb.score import TABLE_METRICS
from scievals.autogkb.workflow import CASES, PREDICTIONS, USAGE
from scievals.autogkb.experiments import units
from scievals.common.experiments import parse_condition
from scievals.common.samples import Sample, prediction_samples, pretty, unit_lines

PER_CASE = "results/autogkb/scores/{model}.per_case.csv"
SCORE = "one_to_one_score"


def annotations_text(annotations) -> str:
    """Curated annotations as ``#1`` blocks of ``field: value`` lines, the fields the scorer
    compares (empty ones left out); anything that is not a list of objects as JSON text."""
    if not isinstance(annotations, list) or not all(isinstance(a, dict) for a in annotations):
        return pretty(annotations)
    blocks = []
    for number, annotation in enumerate(annotations, 1):
        lines = [f"#{number}"] + [f"  {key}: {annotation[key]}" for key in FIELDS
                                  if annotation.get(key) not in (None, "", [])]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def reply_text(record: dict) -> str:
    """The reply as the viewer shows it beside the expected annotations: their fields in
    the same order and form (a baseline's annotations; an LLM's as parsed, above its raw
    text, which follows unchanged), so the two panes read line by line alike."""
    raw, annotations = record.get("raw_text"), record.get("annotations")
    parsed = annotations_text(annotations) if annotations else ""
    if raw and parsed:
        return f"Parsed annotations:\n{parsed}\n\nRaw reply:\n{raw}"
    return raw or parsed or pretty(annotations)


def samples(root: str | Path, model: str, threshold: float = DEFAULT_THRESHOLD) -> list[Sample]:
    root = Path(root)
    cases = {c["case_id"]: c for c in read_cases(root / CASES)} \
        if (root / CASES).is_file() else {}

    def describe(record: dict) -> tuple[str, str, str]:
        case = cases.get(record["case_id"])
        reply = reply_text(record)
        if case is None:
            return (f"(article not in {CASES})", reply, f"(article not in {CASES})")
        ok = record.get("parse_status") == "ok"
        stated = unit_lines(units(record.get("annotations") if ok else None, case, threshold),
                            "annotation")
        confidence = parse_condition(str(record.get("condition", ""))).confidence
        return (build_prompt(case, confidence), f"{stated}\n\n{reply}" if stated else reply,
                annotations_text(case.get("truth")))

    return prediction_samples(
        root / PREDICTIONS.format(model=model), root / PER_CASE.format(model=model),
        root / USAGE.format(model=model), TABLE_METRICS, describe, SCORE,
        parsed=lambda record: pretty(record.get("annotations")))
