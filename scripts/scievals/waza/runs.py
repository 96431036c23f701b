"""Grade recorded runs and assemble waza's results JSON (specs/waza.md §5, §7).

The predict stage records each run ungraded (:mod:`~scievals.waza.recording`: output,
transcript, session digest, skill invocations, the workspace's final files);
:func:`regrade` grades every run of a results file, recorded by the predict stage or by the
user's own tool, with a suite's graders (the score stage, ``waza run`` and ``waza grade``).
Global graders run first,
then task graders; results are keyed by grader name, so a task grader of the same name
replaces the global one. Any grader error (bad config or path, crashed script, judge
failure) makes the run ``error`` with ``running graders: ...``.
"""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scievals.common.errors import ScievalsError
from scievals.waza import metrics, workspaces
from scievals.waza.executors.replay import recorded_context
from scievals.waza.graders.base import Grader, GraderContext, GraderOptions
from scievals.waza.graders.judge import LLMJudge
from scievals.waza.graders.registry import build, grade_all
from scievals.waza.metrics import with_baseline
from scievals.waza.recording import run_entry
from scievals.waza.suite_paths import file_name_part
from scievals.waza.suites import Checkpoint, GraderSpec, Suite, Task

# The results format written: current waza's, with schema 1.5's statistics (pass_rate_ci,
# success_rate_ci, pass_hat_k; no is_significant).
RESULTS_SCHEMA_VERSION = "1.5"


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
            built.append(BuiltGrader(spec, build(spec.kind, spec.config, options, spec.name)))
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
    """One graded entry of a task's ``runs`` (Go key names)."""
    if engine_error or grader_error:
        status = "error"
    else:
        status = metrics.run_status(validations, skipped=skipped)
    return run_entry(run_number, duration_ms=duration_ms, context=context, status=status,
                     validations=validations, error_msg=engine_error or grader_error)


def task_record(task_id: str, display_name: str, runs: list[dict], seed: int) -> dict:
    return {"test_id": task_id, "display_name": display_name, "group": "",
            "status": metrics.task_status([r["status"] for r in runs]),
            "stats": metrics.task_stats(runs, seed), "runs": runs}


def outcome(suite: Suite, tasks: list[dict], *, model_id: str, engine: str, trials: int,
            seed: int, judge_model: str = "", trigger_results: list[dict] | None = None,
            metadata: Mapping | None = None) -> dict:
    """The EvaluationOutcome: summary, the ``trigger_accuracy`` gate, trigger metrics."""
    result: dict[str, Any] = {
        "schemaVersion": RESULTS_SCHEMA_VERSION,
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
    (``<task>`` the task id as a safe file-name part, :func:`suite_paths.file_name_part`)
    (``task_id, task_name, status, started_at, completed_at, duration_ms, prompt,
    final_output, transcript, validations, session, error_msg``). Runs of one task share the
    timestamp, so every run after the first gets a ``-run<n>`` suffix."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    files, used = {}, set()
    for task in outcome["tasks"]:
        base = file_name_part(task["test_id"])  # an id is suite content: never a path
        while base in used:  # ids that differ only in dropped characters ("A", "a")
            base += "_"
        used.add(base)
        for run in task["runs"]:
            suffix = "" if run["run_number"] == 1 else f"-run{run['run_number']}"
            files[f"{base}-{stamp}{suffix}.json"] = {
                "task_id": task["test_id"], "task_name": task.get("display_name", ""),
                "status": run["status"], "started_at": outcome.get("timestamp", ""),
                "completed_at": outcome.get("timestamp", ""),
                "duration_ms": run["duration_ms"], "prompt": prompts.get(task["test_id"], ""),
                "final_output": run["final_output"], "transcript": run["transcript"],
                "validations": run["validations"], "session": run["session_digest"],
                "error_msg": run["error_msg"]}
    return files


def grade_checkpoint(suite: Suite, task: Task, checkpoint: Checkpoint, state: Mapping,
                     options: GraderOptions, workspace: str | Path | None = None,
                     where: str = "results") -> dict[str, Any]:
    """``runs[].checkpoints[]`` entry: only the checkpoint's graders, on ``state``; a grader
    error is a ``_checkpoint_error`` entry and status ``error``."""
    graders = build_graders(checkpoint.graders, options)
    with ExitStack() as stack:
        context = _context(stack, state, suite, task, f"{where}: {task.id} checkpoint "
                           f"{checkpoint.after_turn}", workspace)
        error = _omitted_error(state)
        validations, grader_error = ({}, error) if error else grade_run(graders, context)
    if grader_error:
        validations = {**validations, "_checkpoint_error": {
            "identifier": "_checkpoint_error", "type": "", "score": 0.0, "weight": 1.0,
            "passed": False, "feedback": grader_error, "details": {}, "duration_ms": 0}}
        status = "error"
    else:
        status = metrics.run_status(validations)
    return {"after_turn": checkpoint.after_turn, "status": status, "validations": validations}


def _checkpoints(suite: Suite, task: Task, run: Mapping, options: GraderOptions,
                 workspace: str | Path | None, where: str) -> tuple[list[dict], str, bool]:
    """(checkpoint entries, run error, any failed) of one recorded run: a failed
    ``on_failure: stop`` checkpoint ends the run in ``error``, as waza's runner does."""
    states = {int(s["after_turn"]): s for s in run.get("checkpoint_states") or []}
    entries, error, failed = [], "", False
    for checkpoint in task.checkpoints:
        state = states.get(checkpoint.after_turn)
        if state is None:
            continue  # the conversation ended before this turn
        entry = grade_checkpoint(suite, task, checkpoint, state, options, workspace, where)
        if entry["status"] == "error" and not error:
            error = (f"checkpoint after turn {checkpoint.after_turn}: "
                     f"{entry['validations']['_checkpoint_error']['feedback']}")
        if entry["status"] == "failed":
            failed = True
            if checkpoint.on_failure == "stop":
                entry["stopped"] = True
                error = error or (f"checkpoint after turn {checkpoint.after_turn} failed "
                                  "(on_failure: stop)")
        entries.append(entry)
    return entries, error, failed


def _engine_error(run: Mapping) -> str:
    """A recorded run that failed before grading: ``error`` without any verdict."""
    if run.get("status") == "error" and not run.get("validations"):
        return str(run.get("error_msg") or "engine error")
    return ""


def _context(stack: ExitStack, run: Mapping, suite: Suite, task: Task, where: str,
             workspace: str | Path | None) -> GraderContext:
    """The grader context of a recorded run; recorded workspace files are rebuilt in a
    temporary directory (removed when ``stack`` closes), else ``workspace`` is used."""
    if run.get("workspace_files") is not None:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="waza-grade-")))
        workspace = workspaces.rebuild(run["workspace_files"], root, where)
    return recorded_context(run, task.raw, workspace, suite.task_fixtures_dir(task))


def _omitted_error(run: Mapping) -> str:
    omitted = run.get("workspace_omitted") or []
    if not omitted:
        return ""
    names = ", ".join(f"{o['path']} ({o['bytes']} bytes)" for o in omitted)
    return (f"running graders: workspace file(s) {names} were over the recording limit "
            f"({workspaces.MAX_FILE_BYTES} bytes per file, {workspaces.MAX_TOTAL_BYTES} per "
            "run), so graders cannot see them")


def grade_task(suite: Suite, task: Task, recorded: Sequence[Mapping], options: GraderOptions,
               *, workspace: str | Path | None = None, skip_graders: bool = False,
               where: str = "results") -> list[dict]:
    """Graded run records of one task's recorded runs. A run recorded with several attempts
    (``attempt_records``, ``config.max_attempts``) takes, as waza does, its first attempt
    that did not fail under these graders, else its last."""
    graders = build_graders(graders_for(suite, task), options)
    attempts = [list(run.get("attempt_records") or [run]) for run in recorded]
    flat = [a for group in attempts for a in group]
    with ExitStack() as stack:
        contexts = [_context(stack, a, suite, task, f"{where}: {task.id} run "
                             f"{a.get('run_number')}", workspace) for a in flat]
        errors = [_engine_error(a) for a in flat]
        pre_grading = [_omitted_error(a) if not e else "" for a, e in zip(flat, errors,
                                                                           strict=True)]
        live = [i for i, (e, p) in enumerate(zip(errors, pre_grading, strict=True))
                if not e and not p and not skip_graders]
        graded = dict(zip(live, grade_runs(graders, [contexts[i] for i in live]),
                          strict=True))
    records, index = [], 0
    for number, (run, group) in enumerate(zip(recorded, attempts, strict=True), start=1):
        candidates = []
        for attempt in group:
            validations, grader_error = graded.get(index, ({}, pre_grading[index]))
            engine_error = errors[index] or str(attempt.get("followup_error") or "")
            checkpoints, checkpoint_error, checkpoint_failed = [], "", False
            if task.checkpoints and not errors[index] and not skip_graders:
                checkpoints, checkpoint_error, checkpoint_failed = _checkpoints(
                    suite, task, attempt, options, workspace, where)
            record = run_record(
                int(run.get("run_number") or number), duration_ms=contexts[index].duration_ms,
                context=contexts[index], validations=validations,
                engine_error=engine_error or checkpoint_error, grader_error=grader_error,
                skipped=skip_graders)
            if checkpoint_failed and record["status"] == "passed":
                record["status"] = "failed"  # a failed checkpoint fails the run
            if task.checkpoints:
                record["checkpoints"] = checkpoints
            if attempt.get("prompt") is not None:
                record["prompt"] = attempt["prompt"]
            candidates.append(record)
            index += 1
        chosen = next((i for i, c in enumerate(candidates) if c["status"] != "failed"),
                      len(candidates) - 1)
        candidates[chosen]["attempts"] = chosen + 1
        records.append(candidates[chosen])
    return records


def regrade(suite: Suite, results: Mapping, *, seed: int = 0,
            options: GraderOptions | None = None, workspace: str | Path | None = None,
            task_filter: list[str] | None = None, skip_graders: bool = False,
            where: str = "results") -> dict:
    """Grade every recorded run of ``results`` with ``suite``'s graders: the results JSON."""
    options = options or GraderOptions()
    by_id = {t.id: t for t in suite.tasks}
    tasks = []
    for recorded in results["tasks"]:
        task = by_id.get(recorded["test_id"])
        if task is None:
            raise ScievalsError(f"{where}: task {recorded['test_id']!r}",
                                f"no such task in {suite.path}",
                                f"task ids: {', '.join(by_id)}")
        if task_filter and task.id not in task_filter:
            continue
        records = grade_task(suite, task, recorded["runs"], options, workspace=workspace,
                             skip_graders=skip_graders, where=where)
        tasks.append(task_record(task.id, task.name, records, seed))
        if task.golden or recorded.get("golden"):
            tasks[-1]["golden"] = True
        if recorded.get("hook_error"):  # a before_task hook failed: no run was made
            tasks[-1]["hook_error"] = recorded["hook_error"]
    config = results.get("config") or {}
    if results.get("graded") is False:  # recorded by our predict stage: keep its run info
        trials = int(config.get("runs_per_test") or 0)
        engine, metadata = str(config.get("engine_type") or "replay"), results.get("metadata")
    else:  # graded elsewhere (an own results file): a re-grade
        trials, engine, metadata = 0, "replay", {"regraded_from": results.get("eval_id", "")}
    trials = trials or max((len(t["runs"]) for t in tasks), default=1)
    graded = outcome(suite, tasks, model_id=str(config.get("model_id") or ""), engine=engine,
                     trials=trials, seed=seed, judge_model=options.judge_model,
                     trigger_results=list(results.get("trigger_results") or []),
                     metadata=dict(metadata or {}))
    if results.get("baseline_tasks") is not None:
        arm = regrade(suite, {**results, "tasks": results["baseline_tasks"],
                              "baseline_tasks": None, "trigger_results": []},
                      seed=seed, options=options, workspace=workspace,
                      task_filter=task_filter, skip_graders=skip_graders,
                      where=f"{where} (baseline arm)")
        with_baseline(graded, arm, where)
        pairwise_impact(suite, graded, arm, options)
    return graded


def pairwise_impact(suite: Suite, graded: dict, arm: Mapping, options: GraderOptions) -> None:
    """What waza's runner cannot do (it grades pass 1 before pass 2 runs): every
    ``prompt`` grader with ``mode: pairwise`` judges each run against the baseline arm's
    run of the same number (positions swapped, old §6.7), into
    ``skill_impact.pairwise[<grader>] = {runs: [{run_number, winner, magnitude, score} |
    {run_number, error}], mean_score}`` (skill 1, tie 0.5, baseline 0)."""
    by_id = {t.id: t for t in suite.tasks}
    base = {t["test_id"]: t for t in arm["tasks"]}
    for record in graded["tasks"]:
        task = by_id[record["test_id"]]
        specs = [g for g in graders_for(suite, task)
                 if g.type == "prompt" and g.config.get("mode") == "pairwise"]
        if not specs:
            continue
        base_runs = {r["run_number"]: r for r in base[task.id]["runs"]}
        found = {}
        for spec in specs:
            grader = build(spec.kind, spec.config, options, spec.name)
            results = []
            for run in record["runs"]:
                other = base_runs.get(run["run_number"])
                if other is None or "error" in (run["status"], other["status"]):
                    continue  # an errored run has nothing to compare
                context = GraderContext(output=run["final_output"] or "",
                                        baseline_output=other["final_output"] or "",
                                        task=dict(task.raw))
                try:
                    verdict = grader.grade(context)
                except ScievalsError as exc:
                    results.append({"run_number": run["run_number"], "error": exc.one_line()})
                    continue
                results.append({"run_number": run["run_number"],
                                "winner": verdict.details.get("winner"),
                                "magnitude": verdict.details.get("magnitude", ""),
                                "score": verdict.score})
            scores = [r["score"] for r in results if "score" in r]
            found[spec.name] = {"runs": results,
                                "mean_score": sum(scores) / len(scores) if scores else None}
        record["skill_impact"]["pairwise"] = found


def grader_options(config: Mapping, suite: Suite, records_path: Path | None = None
                   ) -> GraderOptions:
    """The LLM judge for prompt/llm graders: ``waza.judge_model``, else the suite's
    ``config.judge_model``, when it names a registry entry (else none: such graders then
    make their run ``error`` with a clear message)."""
    # The LLM layer is imported only when a judge is configured (fast DAG builds and
    # mock-only runs; the registry's model specs need pydantic).
    from scievals.llm.registry import model_spec
    from scievals.llm.settings import LLMSettings

    section = config.get("waza") or {}
    registry = config.get("models") or {}
    if section.get("judge_model") and section["judge_model"] not in registry:
        raise ScievalsError("config: waza.judge_model", f"{section['judge_model']!r} is not in "
                            "the model registry", f"known: {sorted(registry)}")
    name = section.get("judge_model") or suite.config.get("judge_model") or ""
    if not name or name not in registry:
        return GraderOptions(judge_model=name)
    specs = {m: model_spec(m, config) for m in registry if (registry[m] or {}).get("provider")
             not in (None, "baseline")}
    judge = LLMJudge(model_spec(name, config), LLMSettings.from_config(config.get("llm")),
                     specs, records_path)
    return GraderOptions(judge=judge, judge_model=name)
