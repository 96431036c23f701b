"""waza's items for the report's sample viewer: one per task run.

The input is the task's prompt (the curated case), the reply the agent's final output and
its session transcript, the metrics each grader's score, the rationale each grader's
feedback (an LLM judge's reasoning included), and the tokens the agent's turns used.
Results are the score stage's graded file (recorded and imported runs with their verdicts),
else the recorded runs as the prediction step wrote them.
"""

from __future__ import annotations

import json
from pathlib import Path

from scievals.common.io import read_jsonl
from scievals.common.samples import Sample, number, read_usage, request_cost
from scievals.waza.workflow import CASES, GRADED, IMPORTED, USAGE

PREDICTIONS_DIR = "results/waza/predictions/{model}"


def _suites(data) -> list[dict]:
    """Results objects of a file: ``{"suites": {suite: results}}``, a list, or one."""
    if isinstance(data, dict) and isinstance(data.get("suites"), dict):
        return list(data["suites"].values())
    return data if isinstance(data, list) else [data]


def _results(root: Path, model: str) -> list[dict]:
    """Every results object of ``model``: the score stage's graded file (every recorded or
    imported run with its graders' verdicts), else the recorded runs themselves."""
    graded = root / GRADED.format(model=model)
    if graded.is_file():
        return _suites(json.loads(graded.read_text(encoding="utf-8")))
    folder = root / PREDICTIONS_DIR.format(model=model)
    paths = sorted(p for p in folder.glob("*.json") if not p.name.endswith(".usage.json")) \
        if folder.is_dir() else []
    imported = root / IMPORTED.format(model=model)
    found = []
    for path in [*paths, *([imported] if imported.is_file() else [])]:
        found += _suites(json.loads(path.read_text(encoding="utf-8")))
    return found


def _event_line(event: dict) -> str:
    data = event.get("data") or {}
    kind = event.get("type", "?")
    if kind == "assistant.usage":
        return f"[{kind}] in {data.get('input_tokens')}, out {data.get('output_tokens')}"
    text = data.get("content") or data.get("arguments") or data.get("result") or data
    return f"[{kind}] {text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)}"


def _reply(run: dict) -> str:
    transcript = run.get("transcript") or []
    parts = [run.get("final_output") or ""]
    if transcript:
        parts += ["", "--- transcript ---", *(_event_line(e) for e in transcript)]
    if run.get("error_msg"):
        parts += ["", f"error: {run['error_msg']}"]
    return "\n".join(parts).strip()


def _tokens(run: dict) -> tuple[int | None, int | None]:
    usage = [e.get("data") or {} for e in run.get("transcript") or []
             if e.get("type") == "assistant.usage"]
    if not usage:
        return None, None
    return (sum(int(u.get("input_tokens") or 0) for u in usage),
            sum(int(u.get("output_tokens") or 0) for u in usage))


def samples(root: str | Path, model: str) -> list[Sample]:
    root = Path(root)
    prompts = {}
    if (root / CASES).is_file():
        prompts = {(c["suite"], c["task_id"]): c.get("prompt", "") for c in
                   read_jsonl(root / CASES)}
    out = []
    for result in _results(root, model):
        suite = result.get("skill") or result.get("eval_name") or ""
        usage = read_usage(root / USAGE.format(model=model, suite=suite))  # agent runs only
        for task in result.get("tasks") or []:
            task_id = task.get("test_id", "")
            for run in task.get("runs") or []:
                validations = run.get("validations") or {}
                tokens_in, tokens_out = _tokens(run)
                out.append(Sample(
                    item=f"{suite}/{task_id}#{run.get('run_number', 1)}", condition="",
                    input=prompts.get((suite, task_id), task.get("display_name", "")),
                    reply=_reply(run), parse_status="-",
                    outcome=str(run.get("status") or "-"),
                    metrics={name: number(v.get("score")) for name, v in validations.items()},
                    rationale="\n".join(f"{name}: {v.get('feedback', '')}"
                                        for name, v in validations.items()),
                    tokens_in=tokens_in, tokens_out=tokens_out,
                    cost_usd=request_cost(tokens_in, tokens_out, usage),
                    latency_s=(run.get("duration_ms") or 0) / 1000))
    return out
