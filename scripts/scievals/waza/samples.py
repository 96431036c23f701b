"""waza's items for the report's sample viewer: one per task run.

Items are named ``<suite folder>/<task>#<run>``, the suite as the leaderboard names it. The
input is the task's prompt (the curated case; every turn's of a multi-turn task), the reply the agent's final output and
its session transcript, the expected answer what the task's graders check (each grader's
type, weight and configuration, read from the suite), the metrics each grader's score,
the score the run's weighted grader score, the rationale each grader's feedback (an LLM
judge's reasoning included), and the tokens the agent's turns used.
Results are the score stage's graded file (recorded and imported runs with their verdicts),
else the recorded runs as the prediction step wrote them. A suite's no-skill arm (waza's
``baseline_outcome``) gives its runs too, with condition ``no-skill``: the tables' model
``<model> [no-skill]``.
"""

from __future__ import annotations

import json
import logging
from contextlib import contextmanager
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.common.io import read_jsonl
from scievals.common.samples import Sample, number, read_usage, request_cost
from scievals.waza import suites
from scievals.waza.metrics import weighted_run_score
from scievals.waza.recording import BASELINE_ARM
from scievals.waza.suites import GraderSpec
from scievals.waza.workflow import CASES, GRADED, IMPORTED, SUITES_DIR, USAGE

PREDICTIONS_DIR = "results/waza/predictions/{model}"
SCORE = "weighted grader score"


def grader_text(graders: list[GraderSpec], expected: dict | None = None) -> str:
    """What each grader checks: name, type and weight, then its configuration as JSON;
    first the task's own ``expected`` block, where it has one."""
    blocks = [f"expected\n{json.dumps(expected, indent=2, ensure_ascii=False)}"] \
        if expected else []
    for grader in graders:
        weight = "" if grader.weight is None else f", weight {grader.weight:g}"
        head = f"{grader.name} ({grader.kind or 'grader'}{weight})"
        config = json.dumps(grader.config, indent=2, ensure_ascii=False, sort_keys=True) \
            if grader.config else "(no configuration)"
        blocks.append(head + "\n" + config)
    return "\n\n".join(blocks) or "(no graders)"


@contextmanager
def _quiet(logger: logging.Logger):
    """Without ``logger``'s warnings: a suite's notes were said when it was curated
    (waza_curate); the viewer, reading it again, does not repeat them."""
    drop = logging.Filter()
    drop.filter = lambda record: record.levelno > logging.WARNING
    logger.addFilter(drop)
    try:
        yield
    finally:
        logger.removeFilter(drop)


def expectations(root: Path) -> dict[tuple[str, str], str]:
    """(suite, task id) -> :func:`grader_text` of the suite's and the task's graders, for
    every suite under ``SUITES_DIR``, keyed by its folder, eval name and skill (the results
    name a suite by either). A suite that does not load gives its error as the text."""
    return suite_texts(root)[0]


def turns_text(prompt: str, follow_ups: list[str]) -> str:
    """A multi-turn task's prompts, each turn numbered (a one-turn task: its prompt)."""
    if not follow_ups:
        return prompt
    return "\n\n".join(f"turn {n}: {text.strip()}"
                         for n, text in enumerate([prompt, *follow_ups], 1))


def suite_texts(root: Path) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], str]]:
    """(:func:`expectations`, (suite, task id) -> every turn's prompt of each multi-turn
    task), from one reading of the suites."""
    found: dict[tuple[str, str], str] = {}
    turns: dict[tuple[str, str], str] = {}
    folder = root / SUITES_DIR
    for path in sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []:
        try:
            with _quiet(suites.log):
                suite = suites.load_suite(path)
        except ScievalsError as exc:
            found[(path.name, "*")] = f"(suite did not load: {exc.one_line()})"
            continue
        for task in suite.tasks:
            text = grader_text(suite.graders + task.graders, task.raw.get("expected"))
            for name in {path.name, suite.name, suite.skill} - {""}:
                found[(name, task.id)] = text
                if task.follow_ups:  # the curated case holds the first prompt only
                    turns[(name, task.id)] = turns_text(task.prompt, task.follow_ups)
    return found, turns


def _run_score(validations: dict) -> float | None:
    """:func:`weighted_run_score` of a graded run; None when a grader has no score."""
    if not validations or any(number(v.get("score")) is None for v in validations.values()):
        return None
    return weighted_run_score(validations)


def _suites(data, name: str | None = None) -> list[tuple[str, dict]]:
    """(suite name, results object) of a file: ``{"suites": {suite: results}}`` (named by
    its key, the suite's folder), a list, or one (named ``name``, else by its skill or eval
    name). The folder name is the leaderboard's (its dataset is ``<folder>-demo``); a
    suite's skill may differ (grader-showcase's is general-coding-assistant)."""
    if isinstance(data, dict) and isinstance(data.get("suites"), dict):
        return list(data["suites"].items())
    return [(name or result.get("skill") or result.get("eval_name") or "", result)
            for result in (data if isinstance(data, list) else [data])]


def _results(root: Path, model: str) -> list[tuple[str, dict]]:
    """(suite, results object) of ``model``: the score stage's graded file (every recorded or
    imported run with its graders' verdicts), else the recorded runs themselves (a recorded
    file is named by its suite's folder)."""
    graded = root / GRADED.format(model=model)
    if graded.is_file():
        return _suites(json.loads(graded.read_text(encoding="utf-8")))
    folder = root / PREDICTIONS_DIR.format(model=model)
    paths = sorted(p for p in folder.glob("*.json") if not p.name.endswith(".usage.json")) \
        if folder.is_dir() else []
    imported = root / IMPORTED.format(model=model)
    found = []
    for path in paths:
        found += _suites(json.loads(path.read_text(encoding="utf-8")), path.stem)
    if imported.is_file():
        found += _suites(json.loads(imported.read_text(encoding="utf-8")))
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
    expected, turns = suite_texts(root)
    out = []
    for suite, result in _results(root, model):
        usage = read_usage(root / USAGE.format(model=model, suite=suite))  # agent runs only
        arms = [("", result.get("tasks") or [])]
        baseline = result.get("baseline_outcome")
        if isinstance(baseline, dict) and baseline.get("tasks"):
            arms.append((BASELINE_ARM, baseline["tasks"]))  # the no-skill arm's own runs
        for condition, tasks in arms:
            out += _task_samples(suite, condition, tasks, usage, prompts, expected, turns)
    return out


def _task_samples(suite: str, condition: str, tasks: list, usage: dict, prompts: dict,
                  expected: dict, turns: dict) -> list[Sample]:
    out = []
    for task in tasks:
        task_id = task.get("test_id", "")
        for run in task.get("runs") or []:
            validations = run.get("validations") or {}
            tokens_in, tokens_out = _tokens(run)
            out.append(Sample(
                item=f"{suite}/{task_id}#{run.get('run_number', 1)}", condition=condition,
                input=turns.get((suite, task_id)) or prompts.get(
                    (suite, task_id), task.get("display_name", "")),
                reply=_reply(run), parse_status="-",
                outcome=str(run.get("status") or "-"),
                metrics={name: number(v.get("score")) for name, v in validations.items()},
                rationale="\n".join(f"{name}: {v.get('feedback', '')}"
                                    for name, v in validations.items()),
                expected=expected.get((suite, task_id)) or expected.get(
                    (suite, "*"), f"(task {suite}/{task_id} is not in {SUITES_DIR})"),
                score=_run_score(validations), score_name=SCORE,
                tokens_in=tokens_in, tokens_out=tokens_out,
                cost_usd=request_cost(tokens_in, tokens_out, usage),
                latency_s=(run.get("duration_ms") or 0) / 1000))
    return out
