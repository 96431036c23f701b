"""The prediction stage: run a suite's tasks with an executor and grade every run.

Executors:
- ``mock`` (the built-in baseline ``waza_mock``): waza's mock engine exactly, i.e. the
  output ``Mock response for: <prompt>`` (+ ``\\nAnalyzed N file(s)`` when the task has
  files), a workspace holding the task's files, no events, tool calls or usage; trigger
  tests report a perfect score.
- ``llm``: :class:`scievals.waza.agent.Agent` through the LLM layer.

Each run gets a fresh temporary workspace holding only the task's ``inputs.files``
(fixtures from ``./fixtures`` < ``--context-dir`` < the task's ``context_dir``, or inline
content); graders run while it exists, then it is removed.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.waza import runs, session
from scievals.waza.agent import Agent, AgentSettings, find_skills
from scievals.waza.context import GraderOptions
from scievals.waza.data import Suite, Task

log = logging.getLogger(__name__)

MOCK_MODEL = "waza_mock"
BASELINES = (MOCK_MODEL,)
# Rule params (code versions): a bump re-runs the jobs of that step. BASELINE_VERSION covers the
# mock engine and grading (runs are graded inside the predict job, while their workspace
# exists; also the re-grading of imported results); agent.PROMPT_VERSION covers the agent
# loop. A grading change bumps both.
BASELINE_VERSION = "waza-mock-v1"


@dataclass
class Execution:
    """What an engine returns for one prompt. ``output`` None: taken from ``events``."""

    events: list[dict] = field(default_factory=list)
    output: str | None = None
    error: str = ""


# (prompt, workspace or None, number of task files, case id, run index, timeout) -> Execution
Engine = Callable[[str, Path | None, int, str, int, float], Execution]


def mock_engine(prompt: str, workspace: Path | None, n_files: int, case_id: str,
                sample_index: int, timeout_s: float) -> Execution:
    output = f"Mock response for: {prompt}"
    if n_files:
        output += f"\nAnalyzed {n_files} file(s)"
    return Execution(output=output)


def agent_engine(agent: Agent) -> Engine:
    def execute(prompt, workspace, n_files, case_id, sample_index, timeout_s) -> Execution:
        scratch = None
        if workspace is None:  # trigger prompts: an empty workspace
            scratch = workspace = Path(tempfile.mkdtemp(prefix="waza-trigger-"))
        try:
            result = agent.run(prompt, workspace, case_id, sample_index, timeout_s)
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
        return Execution(events=result.events, error=result.error)
    return execute


def make_workspace(suite: Suite, task: Task) -> Path:
    """A fresh temporary directory holding only the task's files."""
    root = Path(tempfile.mkdtemp(prefix="waza-ws-"))
    base = suite.task_fixtures_dir(task)
    for item in task.files:
        target = root / item.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if item.content is not None:
            target.write_text(item.content, encoding="utf-8")
        else:
            source = base / item.path
            if not source.is_file():
                shutil.rmtree(root, ignore_errors=True)
                raise ScievalsError(f"{task.source}: inputs.files", f"fixture {item.path!r} "
                                    f"not found in {base}", "add it or give content:")
            shutil.copyfile(source, target)
    return root


def _attempt(suite: Suite, task: Task, engine: Engine, graders: list[runs.BuiltGrader],
             number: int, case_id: str, sample_index: int, timeout: float,
             skip_graders: bool) -> dict:
    """Execute and grade one run in a fresh workspace (removed afterwards)."""
    workspace = make_workspace(suite, task)
    try:
        started = time.perf_counter()
        execution = engine(task.prompt, workspace, len(task.files), case_id, sample_index,
                           timeout)
        duration = round((time.perf_counter() - started) * 1000)
        context = session.grader_context(
            execution.events, output=execution.output, duration_ms=duration, task=task.raw,
            workspace_dir=workspace, context_dir=suite.task_fixtures_dir(task))
        validations, grader_error = {}, ""
        if not execution.error and not skip_graders:
            validations, grader_error = runs.grade_run(graders, context)
        return runs.run_record(number, duration_ms=duration, context=context,
                               validations=validations, engine_error=execution.error,
                               grader_error=grader_error, skipped=skip_graders)
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def run_task(suite: Suite, task: Task, engine: Engine, trials: int, options: GraderOptions,
             seed: int, case_prefix: str, skip_graders: bool = False) -> dict:
    """``trials`` runs; a ``failed`` run is retried up to ``config.max_attempts`` times (Go),
    each attempt a new sample (another sample index, so a cached reply is not replayed)."""
    graders = runs.build_graders(runs.graders_for(suite, task), options)
    timeout = float(task.timeout_seconds or suite.config.get("timeout_seconds") or 300)
    max_attempts = int(suite.config.get("max_attempts") or 1)
    records = []
    for number in range(1, trials + 1):
        for attempt in range(1, max_attempts + 1):
            suffix = "" if attempt == 1 else f"/attempt{attempt}"
            record = _attempt(suite, task, engine, graders, number,
                              f"{case_prefix}/{task.id}/run{number}{suffix}",
                              (attempt - 1) * trials + number - 1, timeout, skip_graders)
            record["attempts"] = attempt
            if record["status"] != "failed":
                break
        records.append(record)
    return runs.task_record(task.id, task.name, records, seed)


def run_triggers(suite: Suite, engine: Engine, mock: bool, case_prefix: str) -> list[dict]:
    """Trigger tests (§6.13): did some ``skill.invoked`` name equal the suite's skill?"""
    results = []
    skill = suite.trigger_skill or suite.skill
    for index, item in enumerate(suite.trigger_prompts):
        error = ""
        if mock:
            did = item.should_trigger
        else:
            execution = engine(item.prompt, None, 0, f"{case_prefix}/trigger{index}", 0,
                               float(suite.config.get("timeout_seconds") or 300))
            invoked = {s.name for s in session.skill_invocations(execution.events)}
            did = skill in invoked
            if execution.error:  # an engine error counts as a wrong answer
                error, did = execution.error, not item.should_trigger
        results.append({"prompt": item.prompt, "should_trigger": item.should_trigger,
                        "did_trigger": did, "confidence": item.confidence,
                        "reason": item.reason, "error": error})
    return results


def skill_dirs(suite: Suite) -> list[Path]:
    """The suite folder and its ``config.skill_directories`` (relative to eval.yaml)."""
    return [suite.directory] + [suite.directory / d
                                for d in suite.config.get("skill_directories") or []]


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


def run_suite(suite: Suite, model: str, *, engine: Engine | None = None, model_id: str = "",
              trials: int | None = None, seed: int = 0, options: GraderOptions | None = None,
              task_filter: list[str] | None = None, tags: list[str] | None = None,
              skip_graders: bool = False) -> dict:
    """Run and grade every task (``trials`` runs each); returns the results JSON.
    ``task_filter`` keeps tasks by id or name, ``tags`` tasks with any of the tags."""
    mock = engine is None
    engine = engine or mock_engine
    trials = trials or int(suite.config.get("trials_per_task") or 1)
    options = options or GraderOptions()
    tasks = [t for t in suite.tasks
             if (not task_filter or t.id in task_filter or t.name in task_filter)
             and (not tags or set(tags) & set(t.tags))]
    if (task_filter or tags) and not tasks:
        raise ScievalsError(suite.path, f"no task matches --task {task_filter} --tags {tags}",
                            f"task ids: {', '.join(t.id for t in suite.tasks)}")
    check_required_skills(suite)
    prefix = f"{suite.name}/{model}"
    records = []
    for task in tasks:
        records.append(run_task(suite, task, engine, trials, options, seed, prefix, skip_graders))
        if suite.config.get("fail_fast") and records[-1]["status"] != "passed":
            log.warning("%s: fail_fast: stopping after task %s", suite.path, task.id)
            break
    triggers = run_triggers(suite, engine, mock, prefix) if suite.trigger_prompts else []
    return runs.outcome(suite, records, model_id=model_id or model,
                        engine="mock" if mock else "llm", trials=trials, seed=seed,
                        judge_model=options.judge_model, trigger_results=triggers,
                        metadata={"model": model, "notes": suite.notes})


def llm_engine(spec, llm_settings, agent_settings: AgentSettings, suite: Suite,
               records_path: Path | None = None) -> Engine:
    """The agent engine for one suite: skills from the suite folder and its
    ``config.skill_directories`` (relative to eval.yaml)."""
    skills = find_skills(skill_dirs(suite))
    agent = Agent(spec, llm_settings, agent_settings, skills, records_path=records_path)
    return agent_engine(agent)


def agent_settings(section: dict | None) -> AgentSettings:
    """``waza.agent`` of the workflow config (defaults when absent)."""
    section = section or {}
    return AgentSettings(max_turns=int(section.get("max_turns", 12)),
                         allow_shell=bool(section.get("allow_shell", True)),
                         shell_timeout_s=float(section.get("shell_timeout_s", 30)))


def engine_for(model: str, config: dict, suite: Suite,
               records_path: Path | None = None) -> tuple[Engine | None, str]:
    """(engine, model id) of a registry model: None is the mock engine (``waza_mock``)."""
    from scievals.llm.registry import model_spec
    from scievals.llm.settings import LLMSettings

    if model == MOCK_MODEL:
        return None, MOCK_MODEL
    spec = model_spec(model, config)
    if not spec.is_llm:
        raise ScievalsError(f"config: models.{model}", "not an LLM and not a waza baseline",
                            f"waza baselines: {', '.join(BASELINES)}")
    engine = llm_engine(spec, LLMSettings.from_config(config.get("llm")),
                        agent_settings((config.get("waza") or {}).get("agent")), suite,
                        records_path)
    return engine, spec.model or spec.name


def grader_options(config: dict, suite: Suite, records_path: Path | None = None) -> GraderOptions:
    """The LLM judge for prompt/llm graders: ``waza.judge_model``, else the suite's
    ``config.judge_model``, when it names a registry entry (else none: such graders then
    make their run ``error`` with a clear message)."""
    from scievals.llm.registry import model_spec
    from scievals.llm.settings import LLMSettings
    from scievals.waza.graders.judge import LLMJudge

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


def predict_job(suite_dir: str, model: str, config: dict, out: str,
                records_path: str | None = None) -> dict:
    """One workflow job: run and grade one suite with one model; write its results JSON."""
    from scievals.common.io import write_json, write_text
    from scievals.waza.data import load_suite

    section = config.get("waza") or {}
    suite = load_suite(suite_dir)
    if records_path:
        write_text(records_path, "")  # this job's LLM records start empty
    records = Path(records_path) if records_path else None
    engine, model_id = engine_for(model, config, suite, records)
    outcome = run_suite(suite, model, engine=engine, model_id=model_id,
                        trials=section.get("trials"), seed=int(section.get("seed") or 0),
                        options=grader_options(config, suite, records))
    _notify_errors(suite.name, model, outcome)
    write_json(out, outcome)
    return outcome


def _notify_errors(suite: str, model: str, outcome: dict) -> None:
    """Errored runs (model error, timeout, no final answer, grader error) are said at the
    end of the workflow run, not only inside the results JSON."""
    from scievals.common import notices

    errors = [(t["test_id"], r["run_number"], r["error_msg"]) for t in outcome["tasks"]
              for r in t["runs"] if r["status"] == "error"]
    if errors:
        task, run, message = errors[0]
        notices.record("failed_request", "waza", f"{suite} / {model}: {len(errors)} run(s) "
                       f"ended in error, e.g. {task} run {run}: {message}",
                       details={"runs": [list(e) for e in errors]})


def import_predictions(user_file: str | Path, suites_dir: str | Path, suites: list[str],
                       out: str | Path, seed: int = 0) -> dict:
    """Bring your own: re-grade a user's results file(s) with the configured suites.

    ``user_file`` holds one results JSON or a list of them; each is matched to a suite by
    its ``eval_name`` (the suite's ``name``) or folder name, re-graded (no workspace: file
    graders score 0, as ``waza grade`` without ``--workspace``), and all are written as
    ``{"suites": {suite: results}}``.
    """
    from scievals.common.io import read_json, write_json
    from scievals.waza.data import load_suite
    from scievals.waza.replay import check_results, regrade

    data = read_json(user_file)
    items = data if isinstance(data, list) else [data]
    loaded = {name: load_suite(Path(suites_dir) / name) for name in suites}
    by_eval_name = {suite.name: name for name, suite in loaded.items()}
    graded = {}
    for index, item in enumerate(items):
        where = f"{user_file}[{index}]" if isinstance(data, list) else str(user_file)
        check_results(item, where)
        name = by_eval_name.get(item.get("eval_name")) or (
            item.get("eval_name") if item.get("eval_name") in loaded else None)
        if name is None:
            raise ScievalsError(f"{where}: eval_name", f"{item.get('eval_name')!r} names no "
                                "configured suite", f"configured: {', '.join(by_eval_name)}")
        if name in graded:
            raise ScievalsError(where, f"a second results object for suite {name}",
                                "keep one per suite")
        graded[name] = regrade(loaded[name], item, seed=seed)
    write_json(out, {"suites": graded})
    return graded
