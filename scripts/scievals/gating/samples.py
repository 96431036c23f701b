"""gating's items for the report's sample viewer: one per (case, condition, sample).

The input is the prompt the model got (rebuilt from the case with the condition's context
and strategy; a baseline's panel as the minimal context), the reply the raw text (a baseline's predicted
hierarchy, drawn as a tree; an LLM's parsed hierarchy drawn the same way above its raw
JSON, to set beside the expected tree), the expected answer the case's true
gating tree, the metrics the case's row of ``per_case.csv``, and the score its
``hierarchy_f1``. Where the gates state confidences, the reply starts with each gate's
confidence beside whether it is right (``experiments.units``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from scievals.common.io import read_jsonl
from scievals.common.experiments import parse_condition
from scievals.common.samples import Sample, prediction_samples, pretty, unit_lines
from scievals.gating.experiments import units
from scievals.gating.prompts import build_prompt, context_block
from scievals.gating.score import TABLE_METRICS
from scievals.gating.workflow import CASES, PREDICTIONS, USAGE

PER_CASE = "results/gating/scores/{model}.per_case.csv"
KEY = ("case_id", "condition", "sample_index")
SCORE = "hierarchy_f1"


def _input(case: dict | None, record: dict) -> str:
    if case is None:
        return f"(case {record['case_id']} is not in {CASES})"
    if record.get("context") and record.get("strategy"):
        return build_prompt(case, record["context"], record["strategy"],
                            parse_condition(str(record.get("condition", ""))).confidence)
    return context_block(case, "minimal")  # a baseline or own file: what the panel says


def tree_text(tree) -> str:
    """A gating hierarchy (``{"root": gate}`` or a gate) as one indented line per gate:
    its name, its markers, and ``critical`` where the curators marked it so; "" when it is
    not a tree of named gates."""
    if isinstance(tree, Mapping) and isinstance(tree.get("root"), Mapping):
        tree = tree["root"]
    if not isinstance(tree, Mapping) or not tree.get("name"):
        return ""
    lines: list[str] = []

    def walk(gate: Mapping, depth: int) -> None:
        markers = gate.get("markers") or []
        line = "  " * depth + str(gate.get("name"))
        if markers:
            line += "  [" + ", ".join(map(str, markers)) + "]"
        if gate.get("is_critical"):
            line += "  (critical)"
        lines.append(line)
        for child in gate.get("children") or []:
            if isinstance(child, Mapping):
                walk(child, depth + 1)

    walk(tree, 0)
    return "\n".join(lines)


def samples(root: str | Path, model: str) -> list[Sample]:
    root = Path(root)
    cases = {c["test_case_id"]: c for c in read_jsonl(root / CASES)} \
        if (root / CASES).is_file() else {}

    def describe(record: dict) -> tuple[str, str, str]:
        case = cases.get(record["case_id"])
        raw, parsed = record.get("raw_text"), tree_text(record.get("hierarchy"))
        reply = raw or parsed or pretty(record.get("hierarchy"))
        if raw and parsed:  # an LLM's JSON: the tree it parses to, drawn as the expected one
            reply = f"Parsed tree:\n{parsed}\n\nRaw reply:\n{raw}"
        expected = (tree_text(case.get("gating_hierarchy")) if case
                    else f"(case {record['case_id']} is not in {CASES})")
        stated = unit_lines(units(record.get("hierarchy"), case), "gate") if case else ""
        if stated:
            reply = f"{stated}\n\n{reply}"
        return _input(case, record), reply, expected

    return prediction_samples(
        root / PREDICTIONS.format(model=model), root / PER_CASE.format(model=model),
        root / USAGE.format(model=model), TABLE_METRICS, describe, SCORE,
        parsed=lambda record: tree_text(record.get("hierarchy"))
        or pretty(record.get("hierarchy")))
