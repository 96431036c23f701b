"""The ``replay`` executor: grade runs recorded elsewhere (``waza grade``).

- :func:`read_results` loads a results JSON (waza's EvaluationOutcome) with a clear error
  for a file that is not one.
- :func:`regrade` runs a suite's graders again on every recorded run (its final output,
  transcript, session digest and skill invocations; ``--workspace`` for file graders).
- :func:`recompute` re-derives run/task status, stats, summary and trigger metrics from
  the recorded grader verdicts, without running graders (results of another machine).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scievals.common.errors import ScievalsError
from scievals.common.io import read_json
from scievals.waza import metrics, own_results, runs
from scievals.waza.context import GraderContext, GraderOptions
from scievals.waza.data import Suite

RESULTS_KEYS = ("skill", "tasks")


def read_results(path: str | Path) -> dict:
    return check_results(read_json(path), str(path))


def check_results(data, path: str) -> dict:
    """``data`` if it has waza's results shape (skill, tasks[{test_id, runs[]}])."""
    if not isinstance(data, dict) or any(k not in data for k in RESULTS_KEYS):
        raise ScievalsError(path, "not a waza results file (needs keys skill and tasks)",
                            "give the JSON that `waza run -o` wrote")
    if not isinstance(data["tasks"], list):
        raise ScievalsError(f"{path}: tasks", "must be a list", "use waza's results format")
    for index, task in enumerate(data["tasks"]):
        if not isinstance(task, dict) or not isinstance(task.get("test_id"), str) or not (
                isinstance(task.get("runs"), list)):
            raise ScievalsError(f"{path}: tasks[{index}]", "a task needs test_id (a string) "
                                "and runs[]", "use waza's results format")
        for number, run in enumerate(task["runs"]):
            where = f"{path}: tasks[{index}] ({task['test_id']!r}) runs[{number}]"
            if not isinstance(run, dict):
                raise ScievalsError(where, "a run must be an object", "use waza's results format")
            problem = own_results.run_problem(run)
            if problem:
                raise ScievalsError(where, problem, own_results.FIX)
    problem = own_results.results_problem(data)
    if problem:
        raise ScievalsError(path, problem, own_results.FIX)
    bad_text = own_results.unwritable_text(data)
    if bad_text:
        raise ScievalsError(f"{path}: {bad_text}", "holds a NUL or lone surrogate character",
                            "remove it: the review and tables are UTF-8 text")
    return data


def recorded_context(run: Mapping[str, Any], task: Mapping | None = None,
                     workspace_dir: str | Path | None = None,
                     context_dir: str | Path | None = None) -> GraderContext:
    """What graders see of a recorded run."""
    return GraderContext.from_dict({
        "output": run.get("final_output") or "",
        "transcript": list(run.get("transcript") or []),
        "duration_ms": int(run.get("duration_ms") or 0),
        "session": run.get("session_digest"),
        "skill_invocations": list(run.get("skill_invocations") or []),
        "task": dict(task or {}),
    }, where="recorded run", workspace_dir=workspace_dir, context_dir=context_dir)


def regrade(suite: Suite, results: Mapping, *, seed: int = 0,
            options: GraderOptions | None = None, workspace: str | Path | None = None,
            task_filter: list[str] | None = None) -> dict:
    """Grade every recorded run of ``results`` with ``suite``'s graders."""
    options = options or GraderOptions()
    by_id = {t.id: t for t in suite.tasks}
    tasks = []
    for recorded in results["tasks"]:
        task = by_id.get(recorded["test_id"])
        if task is None:
            raise ScievalsError(f"results: task {recorded['test_id']!r}",
                                f"no such task in {suite.path}",
                                f"task ids: {', '.join(by_id)}")
        if task_filter and task.id not in task_filter:
            continue
        graders = runs.build_graders(runs.graders_for(suite, task), options)
        contexts, engine_errors = [], []
        for run in recorded["runs"]:
            contexts.append(recorded_context(run, task.raw, workspace,
                                             suite.task_fixtures_dir(task)))
            engine_error = ""
            if run.get("status") == "error" and not run.get("validations"):
                engine_error = run.get("error_msg") or "engine error"
            engine_errors.append(engine_error)
        graded = iter(runs.grade_runs(graders, [c for c, e in zip(contexts, engine_errors,
                                                                    strict=True) if not e]))
        records = []
        for number, (run, context, engine_error) in enumerate(
                zip(recorded["runs"], contexts, engine_errors, strict=True), start=1):
            validations, grader_error = ({}, "") if engine_error else next(graded)
            records.append(runs.run_record(int(run.get("run_number") or number),
                                           duration_ms=context.duration_ms, context=context,
                                           validations=validations, engine_error=engine_error,
                                           grader_error=grader_error))
        tasks.append(runs.task_record(task.id, task.name, records, seed))
    config = results.get("config") or {}
    trials = max((len(t["runs"]) for t in tasks), default=1)
    return runs.outcome(suite, tasks, model_id=str(config.get("model_id") or ""),
                        engine="replay", trials=trials, seed=seed,
                        judge_model=options.judge_model,
                        trigger_results=list(results.get("trigger_results") or []),
                        metadata={"regraded_from": results.get("eval_id", "")})


def recompute(results: Mapping, seed: int = 0, trigger_threshold: float | None = None) -> dict:
    """Status, stats and summary re-derived from the recorded validations."""
    tasks = []
    for task in results["tasks"]:
        runs_out = []
        for run in task["runs"]:
            validations = run.get("validations") or {}
            status = run.get("status")
            if status not in ("error", "skipped"):
                status = metrics.run_status(validations)
            runs_out.append({**run, "status": status})
        tasks.append({**task, "status": metrics.task_status([r["status"] for r in runs_out]),
                      "stats": metrics.task_stats(runs_out, seed), "runs": runs_out})
    trials = int((results.get("config") or {}).get("runs_per_test") or 1)
    out = {**results, "tasks": tasks, "summary": metrics.summary(tasks, trials, seed)}
    if results.get("trigger_results"):
        out["trigger_metrics"] = metrics.trigger_metrics(results["trigger_results"])
    if trigger_threshold is not None and "trigger_metrics" in out:
        out["metrics"] = {"trigger_accuracy": metrics.trigger_accuracy_metric(
            {"name": "trigger_accuracy", "threshold": trigger_threshold},
            out["trigger_metrics"]["accuracy"])}
    return out


def grade_report(outcome: Mapping) -> dict:
    """What ``waza grade`` prints: ``{overall_score, passed, tasks, grader_averages}``."""
    scores: dict[str, list[float]] = {}
    tasks = []
    for task in outcome["tasks"]:
        for run in task["runs"]:
            for name, v in (run.get("validations") or {}).items():
                scores.setdefault(name, []).append(v["score"])
        tasks.append({"test_id": task["test_id"], "status": task["status"],
                      "score": task["stats"]["avg_weighted_score"]})
    return {"overall_score": outcome["summary"]["weighted_score"],
            "passed": metrics.exit_code(outcome) == 0, "tasks": tasks,
            "grader_averages": {k: sum(v) / len(v) for k, v in sorted(scores.items())}}

