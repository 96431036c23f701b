"""Checks on a results JSON someone else wrote (``waza grade``, bring-your-own files).

- :func:`read_results` / :func:`check_results`: the file has waza's results shape (skill,
  tasks[{test_id, runs[]}], schemaVersion 1.x), and every run passes :func:`run_problem`.
- :func:`run_problem`: a run's fields have the types waza writes (``duration_ms`` a finite
  number, ``run_number`` a positive integer, ``session_digest`` an object, ...), so a
  damaged file is one line naming the task and run instead of a traceback further on.
- :func:`check_coverage` and :func:`fill_missing`: an imported file covers the suite:
  every suite task appears once, with at most the suite's trials runs; a task it leaves
  out counts as failed (as a missing gating case does), so holding back failing tasks
  cannot raise the pass rate. The same holds for the no-skill arm (``baseline_tasks``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scievals.common.errors import ScievalsError
from scievals.common.io import read_json, refuse_unwritable_text
from scievals.waza.recording import RECORDED

FIX = "use the JSON that `waza run -o` wrote"
MISSING = "missing from the results file (counted as failed)"
# RECORDED: run by our predict stage, not graded yet
RUN_STATUSES = ("passed", "failed", "error", "skipped", RECORDED)
RESULTS_KEYS = ("skill", "tasks")
# waza JSON documents that are not results (specs/waza-current.md §5.3)
FOREIGN_KINDS = ("waza.preflight", "waza.release")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false",
            type(None): "null"}.get(type(value), "a number")


def _digest_problem(digest: Any) -> str | None:
    if digest is None:
        return None
    if not isinstance(digest, dict):
        return f"session_digest: must be an object or null, not {_kind(digest)}"
    for key, ok, want in (
            ("tool_calls", lambda v: isinstance(v, list) and all(isinstance(c, dict) for c in v),
             "a list of objects"),
            ("tools_used", lambda v: isinstance(v, list), "a list"),
            ("errors", lambda v: isinstance(v, list), "a list"),
            ("usage", lambda v: isinstance(v, dict), "an object"),
            ("tool_call_count", lambda v: isinstance(v, int) and not isinstance(v, bool),
             "an integer")):
        if digest.get(key) is not None and not ok(digest[key]):
            return f"session_digest.{key}: must be {want}, not {_kind(digest[key])}"
    return None


def _validations_problem(validations: Any) -> str | None:
    if validations is None:
        return None
    if not isinstance(validations, dict):
        return f"validations: must be an object, not {_kind(validations)}"
    for name, verdict in validations.items():
        if not isinstance(verdict, dict):
            return f"validations.{name}: must be an object, not {_kind(verdict)}"
        score = verdict.get("score")
        if not _number(score) or not math.isfinite(score):
            return f"validations.{name}.score: must be a finite number, not {score!r}"
        if not isinstance(verdict.get("passed"), bool):
            return f"validations.{name}.passed: must be true or false"
        weight = verdict.get("weight")
        if weight is not None and (not _number(weight) or not math.isfinite(weight)):
            return f"validations.{name}.weight: must be a finite number, not {weight!r}"
    return None


def run_problem(run: Mapping[str, Any]) -> str | None:
    """What is wrong with one recorded run's fields ("<key>: <problem>"), or None."""
    number = run.get("run_number")
    if number is not None and (not isinstance(number, int) or isinstance(number, bool)
                               or number < 1):
        return f"run_number: must be a positive integer, not {number!r}"
    duration = run.get("duration_ms")
    if duration is not None and (not _number(duration) or not math.isfinite(duration)
                                 or duration < 0):
        return f"duration_ms: must be a finite number >= 0, not {duration!r}"
    for key, types, want in (("final_output", str, "a string"),
                             ("error_msg", str, "a string"),
                             ("followup_error", str, "a string"),
                             ("transcript", list, "a list"),
                             ("skill_invocations", list, "a list")):
        if run.get(key) is not None and not isinstance(run[key], types):
            return f"{key}: must be {want} or null, not {_kind(run[key])}"
    for index, item in enumerate(run.get("skill_invocations") or []):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return f"skill_invocations[{index}]: must be an object with a string name"
    if run.get("status") is not None and run["status"] not in RUN_STATUSES:
        return f"status: {run['status']!r} is not one of {', '.join(RUN_STATUSES)}"
    omitted = run.get("workspace_omitted")
    if omitted is not None and not isinstance(omitted, list):
        return f"workspace_omitted: must be a list, not {_kind(omitted)}"
    for index, item in enumerate(omitted or []):
        if not isinstance(item, dict) or not isinstance(item.get("path"), str) or not (
                isinstance(item.get("bytes"), int) and not isinstance(item["bytes"], bool)):
            return (f"workspace_omitted[{index}]: must be an object with a string path and "
                    "an integer bytes")
    attempts = run.get("attempt_records")
    if attempts is not None:
        if not isinstance(attempts, list) or not all(isinstance(a, dict) for a in attempts):
            return "attempt_records: must be a list of run objects"
        for index, attempt in enumerate(attempts):
            if attempt.get("attempt_records") is not None:  # attempts are one level deep
                return f"attempt_records[{index}]: an attempt has no attempt_records"
            if problem := run_problem(attempt):
                return f"attempt_records[{index}].{problem}"
    return (_checkpoint_states_problem(run.get("checkpoint_states"))
            or _digest_problem(run.get("session_digest"))
            or _validations_problem(run.get("validations")))


def _checkpoint_states_problem(states: Any) -> str | None:
    """A multi-turn run's ``checkpoint_states``: one state per turn a checkpoint grades,
    each with a positive integer ``after_turn`` (once) and a run's fields for its graders."""
    if states is None:
        return None
    if not isinstance(states, list) or not all(isinstance(s, dict) for s in states):
        return "checkpoint_states: must be a list of objects"
    turns: set[int] = set()
    for index, state in enumerate(states):
        turn = state.get("after_turn")
        if not isinstance(turn, int) or isinstance(turn, bool) or turn < 1:
            return (f"checkpoint_states[{index}].after_turn: must be a positive integer, "
                    f"not {turn!r}")
        if turn in turns:
            return f"checkpoint_states[{index}].after_turn: turn {turn} is listed twice"
        turns.add(turn)
        if state.get("checkpoint_states") is not None:
            return f"checkpoint_states[{index}]: a state has no checkpoint_states"
        if problem := run_problem(state):
            return f"checkpoint_states[{index}].{problem}"
    return None


def results_problem(data: Mapping[str, Any]) -> str | None:
    """Problems of the top-level parts read besides the tasks (config, trigger results)."""
    config = data.get("config")
    if config is not None and not isinstance(config, dict):
        return f"config: must be an object, not {_kind(config)}"
    trials = (config or {}).get("runs_per_test")
    if trials is not None and (not isinstance(trials, int) or isinstance(trials, bool)):
        return f"config.runs_per_test: must be an integer, not {trials!r}"
    triggers = data.get("trigger_results")
    if triggers is not None and not isinstance(triggers, list):
        return f"trigger_results: must be a list, not {_kind(triggers)}"
    for index, item in enumerate(triggers or []):
        if not isinstance(item, dict) or not all(
                isinstance(item.get(k), bool) for k in ("should_trigger", "did_trigger")):
            return (f"trigger_results[{index}]: needs should_trigger and did_trigger "
                    "(true or false)")
        if (item.get("confidence") or "") not in ("high", "medium", ""):
            return (f"trigger_results[{index}].confidence: {item['confidence']!r} is not "
                    "high, medium or empty")
    return None


def _check_tasks(tasks: Any, path: str, key: str) -> None:
    """``tasks`` (or ``baseline_tasks``): a list of {test_id, runs[]}, each run sound."""
    if not isinstance(tasks, list):
        raise ScievalsError(f"{path}: {key}", "must be a list", "use waza's results format")
    for index, task in enumerate(tasks):
        if not isinstance(task, dict) or not isinstance(task.get("test_id"), str) or not (
                isinstance(task.get("runs"), list)):
            raise ScievalsError(f"{path}: {key}[{index}]", "a task needs test_id (a string) "
                                "and runs[]", "use waza's results format")
        for number, run in enumerate(task["runs"]):
            where = f"{path}: {key}[{index}] ({task['test_id']!r}) runs[{number}]"
            if not isinstance(run, dict):
                raise ScievalsError(where, "a run must be an object", "use waza's results format")
            problem = run_problem(run)
            if problem:
                raise ScievalsError(where, problem, FIX)


def check_coverage(results: Mapping[str, Any], task_ids: list[str], trials: int,
                   where: str, key: str = "tasks") -> list[str]:
    """The suite tasks ``results[key]`` leaves out; a task listed twice, one of more runs
    than ``trials`` or one the suite lacks is refused (naming it)."""
    seen: set[str] = set()
    for index, task in enumerate(results[key]):
        test_id = task["test_id"]
        at = f"{where}: {key}[{index}] ({test_id!r})"
        if test_id not in task_ids:
            raise ScievalsError(at, "no such task in the suite", f"task ids: {', '.join(task_ids)}")
        if test_id in seen:
            raise ScievalsError(at, f"task {test_id!r} is listed twice",
                                "keep one entry per task, holding all its runs")
        seen.add(test_id)
        if len(task["runs"]) > trials:
            raise ScievalsError(at, f"{len(task['runs'])} runs of task {test_id!r}, more than "
                                f"the suite's {trials} trial(s)",
                                "keep the suite's number of runs per task")
    return [task_id for task_id in task_ids if task_id not in seen]


def fill_missing(results: dict, tasks: list, missing: list[str], trials: int,
                 key: str = "tasks") -> dict:
    """``results`` with an entry for every missing task id, in the suite's task order
    (``tasks`` being the suite's): ``trials`` runs recorded as ``error`` without a verdict,
    which grading keeps as failed runs (an error run is never graded)."""
    if not missing:
        return results
    by_id = {t["test_id"]: t for t in results[key]}
    for task in tasks:
        if task.id in missing:
            by_id[task.id] = {"test_id": task.id, "display_name": task.name, "runs": [
                {"run_number": number, "status": "error", "error_msg": MISSING,
                 "duration_ms": 0, "final_output": "", "transcript": [], "validations": {},
                 "skill_invocations": [], "session_digest": None}
                for number in range(1, trials + 1)]}
    return {**results, key: [by_id[t.id] for t in tasks if t.id in by_id]}


def read_results(path: str | Path) -> dict:
    return check_results(read_json(path), str(path))


def check_results(data, path: str) -> dict:
    """``data`` if it has waza's results shape (skill, tasks[{test_id, runs[]}])."""
    if isinstance(data, dict) and str(data.get("kind", "")).startswith(FOREIGN_KINDS):
        raise ScievalsError(path, f"a {data['kind']} document, not a results file",
                            "give the JSON that `waza run -o` wrote")
    if not isinstance(data, dict) or any(k not in data for k in RESULTS_KEYS):
        raise ScievalsError(path, "not a waza results file (needs keys skill and tasks)",
                            "give the JSON that `waza run -o` wrote")
    version = str(data.get("schemaVersion") or "")
    if version and version.split(".")[0] != "1":  # current waza: another major is refused
        raise ScievalsError(f"{path}: schemaVersion", f"{version!r}: only 1.x results are read",
                            "use results written by waza 1.x")
    _check_tasks(data["tasks"], path, "tasks")
    if data.get("baseline_tasks") is not None:  # the no-skill arm: checked as strictly
        _check_tasks(data["baseline_tasks"], path, "baseline_tasks")
    problem = results_problem(data)
    if problem:
        raise ScievalsError(path, problem, FIX)
    refuse_unwritable_text(data, path)  # the review and tables are written as UTF-8
    return data
