"""The ``replay`` executor: runs recorded elsewhere (``waza grade``, own results files).

Replaying a run executes nothing: its record is read back.

- reading a results JSON someone else wrote is :func:`scievals.waza.own_results.read_results`.
- :func:`recorded_context` is what graders see of one recorded run (its final output,
  transcript, session digest and skill invocations; a workspace for file graders);
  grading it is :func:`scievals.waza.runs.regrade`.
- :func:`recompute` re-derives run/task status, stats, summary and trigger metrics from
  the recorded grader verdicts, without running graders (results of another machine).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scievals.waza import metrics
from scievals.waza.graders.base import GraderContext


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


def recompute(results: Mapping, seed: int = 0, trigger_threshold: float | None = None) -> dict:
    """Status, stats and summary re-derived from the recorded validations; a no-skill arm
    (``baseline_tasks``, also waza's ``baseline_outcome`` once read by
    :func:`~scievals.waza.own_results.check_results`) is re-derived too and paired."""
    if results.get("baseline_tasks") is not None:
        arm = recompute({**results, "tasks": results["baseline_tasks"],
                         "baseline_tasks": None, "trigger_results": []}, seed)
        main = recompute({k: v for k, v in results.items() if k != "baseline_tasks"}, seed,
                         trigger_threshold)
        return metrics.with_baseline(main, arm, "recorded results")
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

