"""One scored item as the report's sample viewer shows it (``scievals.report.viewer``).

Each benchmark package turns its own prediction and per-item score files into
:class:`Sample` objects (the function its registry entry names as ``samples``); the viewer
adds the benchmark and model and lays them out. Values are plain JSON: NaN becomes None.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

from scievals.common.io import read_jsonl


@dataclass
class Sample:
    item: str  # case id, article, suite/task#run, fold
    condition: str  # the benchmark's condition ("" when it has none)
    input: str  # the prompt, or the input a baseline read
    reply: str  # the raw reply, transcript or predicted values
    parse_status: str  # ok / failed / ... ("-" where nothing is parsed)
    outcome: str  # what the viewer filters on: scored, parse failed, passed, failed, ...
    metrics: dict[str, float | None] = field(default_factory=dict)
    rationale: str = ""  # grader feedback / judge rationale, where there is one
    expected: str = ""  # the answer key: truth tree, curated annotations, grader config, ...
    score: float | None = None  # the item's headline score, what the viewer sorts on
    score_name: str = ""  # what ``score`` is (a metric name, or how it was formed)
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_s: float | None = None
    parsed: str = ""  # the value parsed from the reply, where it differs from the reply text

    def as_dict(self) -> dict:
        return asdict(self)


def unit_lines(units: Iterable, noun: str = "unit") -> str:
    """Each unit's stated confidence beside whether it is right (common.experiments.Unit),
    most confident first; "" when no unit states one (nothing to show)."""
    units = list(units)
    if not any(u.confidence is not None for u in units):
        return ""
    ordered = sorted(units, key=lambda u: (u.confidence is None, -(u.confidence or 0.0)))
    lines = [f"Stated confidence per {noun} (right = matches the truth):"]
    for u in ordered:
        stated = f"{'-':^4}" if u.confidence is None else f"{u.confidence:.2f}"
        lines.append(f"  {stated}  {'right' if u.correct else 'wrong'}  {u.key}")
    return "\n".join(lines)


def number(value) -> float | None:
    """A metric value as JSON: None for missing or NaN."""
    if value is None or value == "":
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(value) else value


def metric_values(row: Mapping, names: Iterable[str]) -> dict[str, float | None]:
    return {name: number(row.get(name)) for name in names}


def request_cost(tokens_in: int | None, tokens_out: int | None, usage: Mapping) -> float | None:
    """USD of one request at the prices ``usage.json`` recorded (None when unpriced)."""
    price_in, price_out = usage.get("price_in_per_mtok"), usage.get("price_out_per_mtok")
    if price_in is None or price_out is None or tokens_in is None or tokens_out is None:
        return None
    return (tokens_in * price_in + tokens_out * price_out) / 1e6


def read_usage(path: str | Path) -> dict:
    """The model-level usage summary of a ``usage.json`` ({} when there is none); gating
    nests it under ``total``."""
    path = Path(path)
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data.get("total", data) if isinstance(data, dict) else {}


def per_item_rows(path: str | Path) -> dict[tuple[str, str, int], dict]:
    """(case_id, condition, sample_index) -> its row of a ``<model>.per_case.csv`` ({} when
    the file does not exist): the per-item metric values a sample shows."""
    path = Path(path)
    if not path.is_file():
        return {}
    frame = pd.read_csv(path, dtype={"case_id": str, "condition": str},
                        keep_default_na=False, na_values=[""])
    return {(r["case_id"], r["condition"], int(r["sample_index"])): r
            for r in frame.to_dict("records")}


def prediction_sample(record: Mapping, per_item: Mapping, usage: Mapping,
                      metrics: Iterable[str], input: str, reply: str, expected: str = "",
                      score: str = "", parsed: str = "") -> Sample:
    """The sample of one prediction record an LLM or baseline predictor wrote (gating,
    autogkb: ``case_id``, ``condition``, ``sample_index``, ``parse_status``, ``error``,
    ``parse_error``, tokens, ``latency_s``), with its ``per_case.csv`` row from ``per_item``
    (:func:`per_item_rows`), its cost at ``usage``'s prices, and the metric named ``score``
    as its headline score."""
    index = int(record.get("sample_index", 0))
    key = (record["case_id"], record.get("condition") or "", index)
    tokens_in, tokens_out = record.get("tokens_in"), record.get("tokens_out")
    values = metric_values(per_item.get(key, {}), metrics)
    return Sample(
        item=record["case_id"] + (f"#{index}" if index else ""), condition=key[1],
        input=input + conversation_text(record), reply=reply,
        parse_status=str(record.get("parse_status") or "-"),
        outcome=_prediction_outcome(record), metrics=values,
        rationale="; ".join(filter(None, [record.get("error"), record.get("parse_error"),
                                          turn_note(record)])),
        expected=expected, score=values.get(score), score_name=score,
        tokens_in=tokens_in, tokens_out=tokens_out,
        cost_usd=request_cost(tokens_in, tokens_out, usage), latency_s=record.get("latency_s"),
        parsed=parsed)


def prediction_samples(predictions: Path, per_case: Path, usage: Path,
                       metrics: Iterable[str],
                       describe: Callable[[dict], tuple[str, str, str]],
                       score: str,
                       parsed: Callable[[dict], str] | None = None) -> list[Sample]:
    """:func:`prediction_sample` of every record of a ``predictions`` JSONL file (none when
    the file does not exist), with the rows of its ``per_case`` table and the prices of its
    ``usage`` file; ``describe(record)`` gives the record's (input, reply, expected answer),
    ``score`` names the metric that is each item's headline score, ``parsed(record)`` the
    value parsed from a raw reply (what the run logs keep beside it)."""
    if not predictions.is_file():
        return []
    scores = per_item_rows(per_case)
    prices = read_usage(usage)
    return [prediction_sample(record, scores, prices, metrics, *describe(record), score=score,
                              parsed=parsed(record) if parsed and record.get("raw_text")
                              else "")
            for record in read_jsonl(predictions)]


def conversation_text(record: Mapping) -> str:
    """A refinement turn's conversation after the first prompt (earlier replies and the
    feedback each drew), to append to the prompt; "" for a record of no refinement turn."""
    lines = []
    turn = 0
    for message in record.get("conversation") or []:
        if message.get("role") == "assistant":
            lines.append(f"--- reply, turn {turn} ---\n{message.get('content')}")
        else:
            turn += 1
            lines.append(f"--- feedback, turn {turn} ---\n{message.get('content')}")
    return "".join(f"\n\n{line}" for line in lines)


def turn_note(record: Mapping) -> str:
    """What the checks said on a refinement turn's reply (what the next turn sends)."""
    if "turn" not in record:
        return ""
    stood = " (no request: the reply of the turn before stood)" \
        if record.get("refine_status") == "stood" else ""
    said = record.get("next_feedback")
    return (f"turn {record['turn']}{stood}; feedback on this reply: {said}" if said
            else f"turn {record['turn']}{stood}; the checks found nothing in this reply")


def _prediction_outcome(record: Mapping) -> str:
    if record.get("error"):
        return "request failed"
    if record.get("parse_status") != "ok":
        return "parse failed"
    return "scored"


def pretty(value) -> str:
    """Structured predictions (a hierarchy, annotations) as indented JSON text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)
