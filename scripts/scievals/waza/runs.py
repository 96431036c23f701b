"""Grade runs and assemble waza's results JSON (EvaluationOutcome, specs/waza.md §5, §7).

Shared by ``waza run`` (executed runs) and ``waza grade`` (recorded runs): global graders
run first, then task graders; results are keyed by grader name, so a task grader of the
same name replaces the global one. Any grader error (bad config or path, crashed script,
judge failure) makes the run ``error`` with ``running graders: ...``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scievals.common.errors import ScievalsError
from scievals.waza import metrics
from scievals.waza.context import Grader, GraderContext, GraderOptions, build, grade_all
from scievals.waza.data import GraderSpec, Suite, Task


def graders_for(suite: Suite, task: Task) -> list[GraderSpec]:
    chosen: dict[str, GraderSpec] = {g.name: g for g in suite.graders}
    for grader in task.graders:
        chosen[grader.name] = grader
    return list(chosen.values())


@dataclass
class BuiltGrader:
    """A grader built once for a task's runs; ``error`` is its build error, reported as
    every run's grader error (Go builds graders per run, so each run would hit it)."""

    spec: GraderSpec
    grader: Grader | None
    error: str = ""


def build_graders(graders: Sequence[GraderSpec], options: GraderOptions) -> list[BuiltGrader]:
    """Build each grader once (a constructor reads SKILL.md or schema files), with its suite
    name, which some feedback quotes (``action_sequence grader '<name>': ...``)."""
    built = []
    for spec in graders:
        try:
            built.append(BuiltGrader(spec, build(spec.type, spec.config, options, spec.name)))
        except ScievalsError as exc:
            built.append(BuiltGrader(spec, None, exc.one_line()))
    return built


def grade_runs(graders: Sequence[BuiltGrader],
               contexts: Sequence[GraderContext]) -> list[tuple[dict[str, dict], str]]:
    """(validations by grader name, error message or "") per context, each grader over
    all runs at once (``grade_all``: the ``code`` assertions of many runs share a worker
    request). A run stops at its first grader error, keeping the validations before it."""
    validations: list[dict[str, dict]] = [{} for _ in contexts]
    errors = [""] * len(contexts)
    for built in graders:
        live = [i for i, error in enumerate(errors) if not error]
        if not live:
            break
        if built.grader is None:
            for i in live:
                errors[i] = f"running graders: {built.spec.name}: {built.error}"
            continue
        verdicts = _grade_batch(built.grader, [contexts[i] for i in live])
        if verdicts is None:  # run by run, so an error belongs to its run only
            verdicts = [_grade_one(built.grader, contexts[i]) for i in live]
        for i, (result, elapsed_ms) in zip(live, verdicts, strict=True):
            if isinstance(result, ScievalsError):
                errors[i] = f"running graders: {built.spec.name}: {result.one_line()}"
                continue
            if not math.isfinite(float(result.score)):  # NaN would poison every mean
                errors[i] = (f"running graders: {built.spec.name}: score {result.score} is "
                             "not a finite number")
                continue
            spec = built.spec
            validations[i][spec.name] = {
                "identifier": spec.name, "type": spec.type, "score": float(result.score),
                "weight": metrics.grader_weight(spec.weight), "passed": bool(result.passed),
                "feedback": result.feedback, "details": result.details,
                "duration_ms": round(elapsed_ms)}
    return list(zip(validations, errors, strict=True))


def _grade_batch(grader: Grader, contexts: list[GraderContext]) -> list | None:
    """(result, ms) per context from one ``grade_all`` call, for graders that batch
    (side-effect free, so a failed batch can be graded again run by run); else None."""
    if getattr(grader, "grade_many", None) is None:
        return None
    started = time.perf_counter()
    try:
        results = grade_all(grader, contexts)
    except ScievalsError:
        return None
    each_ms = (time.perf_counter() - started) * 1000 / len(contexts)
    return [(result, each_ms) for result in results]


def _grade_one(grader: Grader, context: GraderContext) -> tuple[Any, float]:
    started = time.perf_counter()
    try:
        result: Any = grader.grade(context)
    except ScievalsError as exc:
        result = exc
    return result, (time.perf_counter() - started) * 1000


def grade_run(graders: Sequence[BuiltGrader], context: GraderContext) -> tuple[dict, str]:
    """:func:`grade_runs` of one run."""
    return grade_runs(graders, [context])[0]


def run_record(run_number: int, *, duration_ms: int, context: GraderContext | None,
               validations: Mapping[str, dict], engine_error: str = "",
               grader_error: str = "", skipped: bool = False) -> dict[str, Any]:
    """One entry of a task's ``runs`` (Go key names)."""
    if engine_error or grader_error:
        status = "error"
    else:
        status = metrics.run_status(validations, skipped=skipped)
    ctx = context or GraderContext()
    digest = ctx.session.to_dict() if ctx.session is not None else None
    return {
        "run_number": run_number, "attempts": 1, "status": status, "duration_ms": duration_ms,
        "final_output": ctx.output, "error_msg": engine_error or grader_error,
        "skill_invocations": [vars(s) for s in ctx.skill_invocations],
        "transcript": ctx.transcript, "validations": dict(validations),
        "session_digest": digest,
    }


def task_record(task_id: str, display_name: str, runs: list[dict], seed: int) -> dict:
    return {"test_id": task_id, "display_name": display_name, "group": "",
            "status": metrics.task_status([r["status"] for r in runs]),
            "stats": metrics.task_stats(runs, seed), "runs": runs}


def outcome(suite: Suite, tasks: list[dict], *, model_id: str, engine: str, trials: int,
            seed: int, judge_model: str = "", trigger_results: list[dict] | None = None,
            metadata: Mapping | None = None) -> dict:
    """The EvaluationOutcome: summary, the ``trigger_accuracy`` gate, trigger metrics."""
    result: dict[str, Any] = {
        "eval_id": f"run-{int(time.time())}", "skill": suite.skill, "eval_name": suite.name,
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "config": {"runs_per_test": trials, "model_id": model_id, "engine_type": engine,
                   "timeout_sec": int(suite.config.get("timeout_seconds") or 0),
                   "judge_model": judge_model},
        "summary": metrics.summary(tasks, trials, seed), "metrics": {},
        "metadata": dict(metadata or {}), "is_baseline": False, "tasks": tasks,
    }
    if trigger_results:
        trigger = metrics.trigger_metrics(trigger_results)
        result["trigger_metrics"] = trigger
        result["trigger_results"] = trigger_results
        gate = suite.metric("trigger_accuracy")
        if gate is not None:
            result["metrics"]["trigger_accuracy"] = metrics.trigger_accuracy_metric(
                gate, trigger["accuracy"])
    return result


def transcript_files(outcome: Mapping, prompts: Mapping[str, str]) -> dict[str, dict]:
    """Go's ``--transcript-dir`` files: ``<task>-<YYYYmmdd-HHMMSS>[-run<n>].json`` -> content
    (``task_id, task_name, status, started_at, completed_at, duration_ms, prompt,
    final_output, transcript, validations, session, error_msg``). Runs of one task share the
    timestamp, so every run after the first gets a ``-run<n>`` suffix."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    files = {}
    for task in outcome["tasks"]:
        for run in task["runs"]:
            suffix = "" if run["run_number"] == 1 else f"-run{run['run_number']}"
            files[f"{task['test_id']}-{stamp}{suffix}.json"] = {
                "task_id": task["test_id"], "task_name": task.get("display_name", ""),
                "status": run["status"], "started_at": outcome.get("timestamp", ""),
                "completed_at": outcome.get("timestamp", ""),
                "duration_ms": run["duration_ms"], "prompt": prompts.get(task["test_id"], ""),
                "final_output": run["final_output"], "transcript": run["transcript"],
                "validations": run["validations"], "session": run["session_digest"],
                "error_msg": run["error_msg"]}
    return files
