"""The predict stage: run a suite's tasks with an executor and record every run.

The conductor only: each trial gets a fresh workspace holding the task's files
(:mod:`~scievals.waza.workspaces`), the executor (:mod:`~scievals.waza.executors`: ``mock``
for ``waza_mock``, ``agent`` for a registry LLM) runs the prompt in it, and
:mod:`~scievals.waza.recording` records what graders will need. Nothing is graded
here: the score stage grades the recorded runs (so a changed grader re-grades without
running an agent), except that ``config.max_attempts`` > 1, ``fail_fast`` or a checkpoint
with ``on_failure: stop`` need a verdict to decide on a retry or a stop, and then the run is
graded provisionally for that decision only (every attempt is recorded; the score stage
grades them again). Only then is :mod:`~scievals.waza.runs` (graders, judge, statistics)
imported: a predict job without verdicts skips about 0.15 CPU-s of imports, and the default
run has one such job per suite.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from scievals.common import notices
from scievals.common.errors import ScievalsError
from scievals.common.io import read_json, write_json, write_text
from scievals.waza import hooks, recording, workspaces
from scievals.waza.executors.agent import Agent, AgentExecutor, agent_settings, find_skills
from scievals.waza.executors.base import Executor, Trial
from scievals.waza.executors.mock import MOCK_MODEL, MockExecutor
from scievals.waza.graders.base import GraderOptions
from scievals.waza.own_results import (
    check_coverage,
    check_results,
    fill_missing,
    newer_minor_notes,
)
from scievals.waza.redact import redact_keys
from scievals.waza.suites import Suite, Task, load_suite

log = logging.getLogger(__name__)

BASELINES = (MOCK_MODEL,)
AUTO_WORKERS_CAP = 8
# Provisional verdicts (retries, fail_fast, stopping checkpoints) share the graders' worker
# process; parallel tasks take turns for them.
_VERDICT_LOCK = threading.Lock()


def _grading():
    """The graders' module (:mod:`~scievals.waza.runs`), imported only when a run needs a
    verdict here: see the module docstring."""
    from scievals.waza import runs  # a verdict only: graders, judge and statistics

    return runs


def _attempt(suite: Suite, task: Task, executor: Executor, number: int, trial: Trial,
             options: GraderOptions | None = None) -> dict:
    """Execute one run in a fresh workspace and record it (the workspace is removed).
    A task with checkpoints gets the state after each checkpoint's turn recorded too
    (output, session, workspace files), for the score stage to grade; a checkpoint with
    ``on_failure: stop`` is graded provisionally here, since it decides whether the
    conversation goes on."""
    workspace = workspaces.make(suite, task)
    states: list[dict] = []

    def on_turn(turn: int, events: list[dict], output: str) -> bool:
        checkpoint = next((c for c in task.checkpoints if c.after_turn == turn), None)
        if checkpoint is None:
            return True
        state = recording.checkpoint_state(turn, events, output, workspace)
        states.append(state)
        if checkpoint.on_failure != "stop":
            return True
        with _VERDICT_LOCK:
            return _grading().grade_checkpoint(suite, task, checkpoint, state,
                                         options or GraderOptions())["status"] != "failed"

    try:
        started = time.perf_counter()
        if task.follow_ups or task.checkpoints:
            execution = executor.execute(task.prompt, workspace, trial, task.follow_ups,
                                         on_turn if task.checkpoints else None)
        else:  # single-turn: the plain call every executor answers
            execution = executor.execute(task.prompt, workspace, trial)
        duration = round((time.perf_counter() - started) * 1000)
        record = recording.recorded_run(number, execution, duration, workspace)
        record["prompt"] = task.prompt
        if task.checkpoints:
            record["checkpoint_states"] = states
        return record
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def _provisional(suite: Suite, task: Task, recorded: dict, options: GraderOptions) -> str:
    """The status a run would get now (retry and fail_fast decisions only)."""
    with _VERDICT_LOCK:
        return _grading().grade_task(suite, task, [recorded], options)[0]["status"]


def run_task(suite: Suite, task: Task, executor: Executor, trials: int, case_prefix: str,
             options: GraderOptions) -> dict:
    """``trials`` recorded runs; with ``config.max_attempts`` > 1 a run that fails is tried
    again (Go), each attempt a new sample (another sample index, so a cached reply is not
    replayed), and every attempt is kept in the run's ``attempt_records``."""
    timeout = float(task.timeout_seconds or suite.config.get("timeout_seconds") or 300)
    max_attempts = int(suite.config.get("max_attempts") or 1)
    records = []
    for number in range(1, trials + 1):
        attempts = []
        for attempt in range(1, max_attempts + 1):
            suffix = "" if attempt == 1 else f"/attempt{attempt}"
            trial = Trial(f"{case_prefix}/{task.id}/run{number}{suffix}",
                          (attempt - 1) * trials + number - 1, len(task.files), timeout,
                          tuple(skill_dirs(suite, task)) if suite.version else None)
            attempts.append(_attempt(suite, task, executor, number, trial, options))
            if max_attempts == 1 or _provisional(suite, task, attempts[-1], options) != "failed":
                break
        record = dict(attempts[-1])
        if max_attempts > 1:
            record["attempt_records"] = attempts
        records.append(record)
    record = {"test_id": task.id, "display_name": task.name, "group": "", "runs": records}
    if task.golden:
        record["golden"] = True
    return record


def _pass(suite: Suite, selected: list[Task], executor: Executor, trials: int, prefix: str,
          options: GraderOptions, threads: int | None, triggers: bool = True,
          trigger_limit: int | None = None) -> tuple[list[dict], list[dict]]:
    """One pass over the tasks between the run hooks: (task records, trigger results)."""
    failure = hooks.run_point(suite.hooks, "before_run", suite.directory, str(suite.path))
    if failure:
        raise ScievalsError(failure, "a before_run hook failed, so nothing ran",
                            "fix the hook or set error_on_fail: false")
    try:
        workers = worker_count(suite, len(selected), threads)
        if workers > 1:  # fail_fast is ignored in parallel mode, as in waza
            with ThreadPoolExecutor(workers, thread_name_prefix="waza-task") as pool:
                records = list(pool.map(lambda t: _hooked_task(
                    suite, t, executor, trials, prefix, options), selected))
        else:
            records = []
            for task in selected:
                records.append(_hooked_task(suite, task, executor, trials, prefix, options))
                done = records[-1]["runs"]
                if suite.config.get("fail_fast") and (not done or any(
                        _provisional(suite, task, r, options) != "passed" for r in done)):
                    log.warning("%s: fail_fast: stopping after task %s", suite.path, task.id)
                    break
        found = run_triggers(suite, executor, prefix, trigger_limit) \
            if triggers and suite.trigger_prompts else []
    finally:  # after_run always runs, even when the run failed; its errors only warn
        problem = hooks.run_point(suite.hooks, "after_run", suite.directory, str(suite.path))
        if problem:
            log.warning("%s", problem)
    return records, found


def worker_count(suite: Suite, n_tasks: int, threads: int | None = None) -> int:
    """Concurrent tasks (§7): 1 unless ``config.parallel``; ``workers`` <= 0 means
    min(CPUs, tasks, 8), a larger value is capped to the tasks; never above ``threads``
    (the workflow job's threads)."""
    if not suite.config.get("parallel") or n_tasks < 2:
        return 1
    cpus = os.cpu_count() or 1
    wanted = int(suite.config.get("workers") or 0)
    count = min(wanted, n_tasks) if wanted > 0 else min(cpus, n_tasks, AUTO_WORKERS_CAP)
    return max(1, min(count, threads or cpus))


def _hooked_task(suite: Suite, task: Task, executor: Executor, trials: int, prefix: str,
                 options: GraderOptions) -> dict:
    """A task between its ``before_task``/``after_task`` hooks: a failing ``before_task``
    hook (error_on_fail) records the task with no runs (status ``failed``) and skips its
    trials; ``after_task`` failures only warn."""
    where = f"{suite.path} task {task.id}"
    failure = hooks.run_point(suite.hooks, "before_task", suite.directory, where)
    if failure:
        log.warning("%s", failure)
        return {"test_id": task.id, "display_name": task.name, "group": "", "runs": [],
                "hook_error": failure}
    record = run_task(suite, task, executor, trials, prefix, options)
    problem = hooks.run_point(suite.hooks, "after_task", suite.directory, where)
    if problem:
        log.warning("%s", problem)
    return record


def run_triggers(suite: Suite, executor: Executor, case_prefix: str,
                 limit: int | None = None) -> list[dict]:
    """Trigger tests (§6.13): did the run invoke the suite's skill? An executor error counts
    as the wrong answer. ``limit``: a smoke run's first N prompts only."""
    skill = suite.trigger_skill or suite.skill
    timeout = float(suite.config.get("timeout_seconds") or 300)
    results = []
    for index, item in enumerate(suite.trigger_prompts[:limit]):
        invoked, error = executor.invoked_skills(
            item.prompt, item.should_trigger, Trial(f"{case_prefix}/trigger{index}", 0, 0,
                                                    timeout))
        did = skill in invoked if not error else not item.should_trigger
        results.append({"prompt": item.prompt, "should_trigger": item.should_trigger,
                        "did_trigger": did, "confidence": item.confidence,
                        "reason": item.reason, "error": error})
    return results


def skill_dirs(suite: Suite, task: Task | None = None) -> list[Path]:
    """Where skills are found. A v0.23 suite: its folder and ``config.skill_directories``.
    A 1.x suite as current waza (§2.2, §3.1): ``config.skill_directories`` (relative to
    eval.yaml; empty: the suite folder, where waza discovers the target's skill), ``none``
    there turns skills off, ``disabled_skills`` drops entries by path or basename (``*``:
    all); a task's own ``skill_directories`` replace the list and are not filtered (but
    ``*`` still turns everything off)."""
    configured = list(suite.config.get("skill_directories") or [])
    if not suite.version:
        return [suite.directory] + [suite.directory / d for d in configured]
    disabled = [str(d) for d in suite.config.get("disabled_skills") or []]
    if "*" in disabled or "none" in configured:
        return []
    if task is not None and task.skill_directories is not None:
        return [suite.directory / d for d in task.skill_directories]
    if not configured:
        return [suite.directory]
    return [suite.directory / d for d in configured
            if d not in disabled and Path(d).name not in disabled]


def check_required_skills(suite: Suite) -> None:
    """``config.required_skills`` must be found before any run starts (as in Go)."""
    required = suite.config.get("required_skills") or []
    if not required:
        return
    found = find_skills(skill_dirs(suite))
    missing = [name for name in required if name not in found]
    if missing:
        raise ScievalsError(f"{suite.path}: config.required_skills",
                            f"skill(s) {missing} not found (found: {sorted(found) or 'none'})",
                            "add their SKILL.md to the suite folder or config.skill_directories")


def _selected(suite: Suite, task_filter: list[str] | None, tags: list[str] | None) -> list[Task]:
    tasks = [t for t in suite.tasks
             if (not task_filter or t.id in task_filter or t.name in task_filter)
             and (not tags or set(tags) & set(t.tags))]
    if (task_filter or tags) and not tasks:
        raise ScievalsError(suite.path, f"no task matches --task {task_filter} --tags {tags}",
                            f"task ids: {', '.join(t.id for t in suite.tasks)}")
    return tasks


def run_suite(suite: Suite, model: str, *, executor: Executor | None = None,
              model_id: str = "", trials: int | None = None,
              options: GraderOptions | None = None, task_filter: list[str] | None = None,
              tags: list[str] | None = None, threads: int | None = None,
              baseline_executor: Executor | None = None, limit: int | None = None) -> dict:
    """Run every selected task ``trials`` times and record the runs: a results JSON whose
    runs are ungraded (``"graded": false``; :func:`scievals.waza.runs.regrade` grades it).
    ``task_filter`` keeps tasks by id or name, ``tags`` tasks with any of the tags;
    ``options`` serve only the provisional retry/fail_fast verdicts; ``threads`` bounds the
    parallel workers (the job's threads). With ``baseline_executor`` (A/B mode: the same
    model without skills) every task runs a second time, with its own hooks, into
    ``baseline_tasks``. ``limit`` (a smoke run): the first N trigger prompts only (the
    caller cuts the tasks through ``task_filter``)."""
    executor = executor or MockExecutor(suite.trigger_skill or suite.skill)
    trials = trials or int(suite.config.get("trials_per_task") or 1)
    options = options or GraderOptions()
    check_required_skills(suite)
    # the suite's folder name, the one name the config, the tables and the viewer use (its
    # eval.yaml `name:` stays the results file's eval_name, as in waza's own files)
    prefix = f"{suite.directory.name}/{model}"
    selected = _selected(suite, task_filter, tags)
    records, triggers = _pass(suite, selected, executor, trials, prefix, options, threads,
                              trigger_limit=limit)
    baseline = None
    if baseline_executor is not None:  # the A/B arm: every task again, skills unavailable
        baseline, _ = _pass(suite, selected, baseline_executor, trials,
                            f"{prefix}/{recording.BASELINE_ARM}", options, threads, triggers=False)
    return {"skill": suite.skill, "eval_name": suite.name, "graded": False,
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "config": {"runs_per_test": trials, "model_id": model_id or model,
                       "engine_type": executor.kind,
                       "timeout_sec": int(suite.config.get("timeout_seconds") or 0)},
            "metadata": {"model": model, "notes": suite.notes},
            "tasks": records, "trigger_results": triggers,
            **({"baseline_tasks": baseline} if baseline is not None else {})}


def executor_for(model: str, config: dict, suite: Suite, records_path: Path | None = None,
                 skills: bool = True) -> tuple[Executor, str]:
    """(executor, model id) of a registry model: ``waza_mock`` or an LLM agent;
    ``skills`` False: the agent's skill tool offers nothing (the A/B baseline arm)."""
    if model == MOCK_MODEL:
        return MockExecutor(suite.trigger_skill or suite.skill), MOCK_MODEL
    # The LLM layer (pydantic) is imported only for an agent model: mock jobs stay fast.
    from scievals.llm.registry import model_spec
    from scievals.llm.settings import LLMSettings

    spec = model_spec(model, config)
    if not spec.is_llm:
        raise ScievalsError(f"config: models.{model}", "not an LLM and not a waza baseline",
                            f"waza baselines: {', '.join(BASELINES)}")
    agent = Agent(spec, LLMSettings.from_config(config.get("llm")),
                  agent_settings((config.get("waza") or {}).get("agent")),
                  find_skills(skill_dirs(suite)) if skills else {},
                  records_path=records_path)
    return AgentExecutor(agent, skills=skills), spec.model or spec.name


def predict_job(suite_dir: str, model: str, config: dict, out: str,
                records_path: str | None = None, usage_path: str | None = None,
                threads: int | None = None) -> dict:
    """One workflow job: run one suite with one model; write its recorded runs and, for an
    LLM agent, ``usage.json`` (tokens, cost, latency, cache hits of every turn)."""
    started = time.perf_counter()
    section = config.get("waza") or {}
    suite = load_suite(suite_dir)
    if records_path:
        write_text(records_path, "")  # this job's LLM records start empty
    records = Path(records_path) if records_path else None
    executor, model_id = executor_for(model, config, suite, records)
    needs_verdicts = (int(suite.config.get("max_attempts") or 1) > 1
                      or suite.config.get("fail_fast")
                      or any(c.on_failure == "stop" for t in suite.tasks for c in t.checkpoints))
    options = _grading().grader_options(config, suite, records) if needs_verdicts else None
    baseline = executor_for(model, config, suite, records, skills=False)[0] \
        if suite.baseline else None
    limit = config.get("limit")  # a smoke run (common.selection): the suite's first N tasks
    recorded = run_suite(suite, model, executor=executor, model_id=model_id,
                         trials=section.get("trials"), options=options, threads=threads,
                         baseline_executor=baseline, limit=limit,
                         task_filter=[t.id for t in suite.tasks[:limit]] if limit else None)
    # as the score stage does with its results: no configured key value in a recorded run
    write_json(out, redact_keys(recorded, config))
    if isinstance(executor, AgentExecutor):
        # The LLM layer's accounting only for an agent model (mock jobs stay fast).
        from scievals.llm.usage import summarize_usage, usage_line, write_usage

        usage = summarize_usage(executor.agent.spec, executor.agent.responses,
                                wall_s=time.perf_counter() - started)
        # the suite's one terminal line (its agent turns are batches of one request)
        log.info("%s %s: %s", model, suite.directory.name, usage_line(usage),
                 extra={"terminal": True})
        if usage_path:
            write_usage(usage_path, usage)
    return recorded


def import_predictions(user_file: str | Path, suites_dir: str | Path, suites: list[str],
                       out: str | Path, trials: int | None = None) -> dict:
    """Bring your own: check a user's results file(s) and file them under their suites.

    ``user_file`` holds one results JSON or a list of them; each is matched to a suite by
    its ``eval_name`` (the suite's ``name``) or folder name, and every task id must be one
    of that suite's. All are written as ``{"suites": {suite: results}}``; the score stage
    grades them (no workspace: file graders score 0, as ``waza grade`` without
    ``--workspace``). Each must cover its suite: a task listed twice or with more runs than
    ``trials`` (default: the suite's ``trials_per_task``) is refused, a task left out is
    filed as failed runs (with an end-of-run notice naming it).
    """
    data = read_json(user_file)
    items = data if isinstance(data, list) else [data]
    loaded = {name: load_suite(Path(suites_dir) / name) for name in suites}
    by_eval_name = {suite.name: name for name, suite in loaded.items()}
    filed = {}
    for index, item in enumerate(items):
        where = f"{user_file}[{index}]" if isinstance(data, list) else str(user_file)
        item = check_results(item, where)  # waza's A/B layout: its arm as baseline_tasks
        name = by_eval_name.get(item.get("eval_name")) or (
            item.get("eval_name") if item.get("eval_name") in loaded else None)
        if name is None:
            raise ScievalsError(f"{where}: eval_name", f"{item.get('eval_name')!r} names no "
                                "configured suite", f"configured: {', '.join(by_eval_name)}")
        if name in filed:
            raise ScievalsError(where, f"a second results object for suite {name}",
                                "keep one per suite")
        suite = loaded[name]
        for line in newer_minor_notes(item, where, suite.grader_types()):
            notices.record("other", "waza", line, details={"suite": name})
        allowed = trials or int(suite.config.get("trials_per_task") or 1)
        # the with-skill tasks and, when the file has one, the no-skill arm: each must
        # cover the suite once (a repeated task would weigh twice)
        arms = ["tasks"] + (["baseline_tasks"] if item.get("baseline_tasks") is not None
                            else [])
        for key in arms:
            missing = check_coverage(item, [t.id for t in suite.tasks], allowed, where, key)
            if missing:
                arm = "" if key == "tasks" else " (no-skill arm, baseline_tasks)"
                notices.record("skipped_case", "waza", f"{where}: suite {name}{arm}: task(s) "
                               f"{', '.join(missing)} missing; counted as failed",
                               details={"suite": name, "missing": missing, "arm": key})
            item = fill_missing(item, suite.tasks, missing, allowed, key)
        filed[name] = item
    write_json(out, {"suites": filed})
    return filed


# The jobs of waza_predict_baseline/_llm and waza_import:
# scievals.common.entry.run_stage imports this module for them alone, so a job
# loads its own stage's code and nothing else.
def stage_predict(smk) -> None:
    """One suite, one model (the mock executor or the LLM agent loop): its runs, recorded."""
    # LLM request records and usage.json: the llm rule only
    records, usage = getattr(smk.output, "records", None), getattr(smk.output, "usage", None)
    predict_job(f"{smk.input.suites}/{smk.wildcards.suite}", smk.wildcards.model,
                dict(smk.params.config), smk.output.predictions, records, usage,
                threads=smk.threads)  # bounds a parallel suite's workers


def stage_import(smk) -> None:
    """A user's own results, checked and filed by suite (the score stage grades them)."""
    import_predictions(smk.input.user, smk.input.suites, list(smk.params.suites),
                       smk.output.predictions)
