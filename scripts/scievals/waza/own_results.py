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
- waza's own A/B layout (``baseline_outcome``, a whole no-skill outcome) is read as that
  arm; waza's other JSON documents (``kind: waza.*``: runner envelopes, durable-execution
  and provenance artifacts of v0.40-v0.42, a signed statement) are refused by name.
- :func:`newer_minor_notes`: a results minor newer than the ones documented field by field
  (1.5; waza v0.40 writes 1.8) is read, and what this reader ignores in it is said.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from scievals.common.errors import ScievalsError, listed
from scievals.common.io import read_json, refuse_unwritable_text
from scievals.waza.recording import RECORDED

FIX = "use the JSON that `waza run -o` wrote"
MISSING = "missing from the results file (counted as failed)"
# RECORDED: run by our predict stage, not graded yet
RUN_STATUSES = ("passed", "failed", "error", "skipped", RECORDED)
RESULTS_KEYS = ("skill", "tasks")
# Part of the import rule's code version: a change re-files every own results file.
PARSER_VERSION = "waza-own-results-v2"  # v2: waza's baseline_outcome read as the no-skill arm
# Go's parseSchemaVersion: MAJOR.MINOR, each a non-negative integer (specs/waza-current.md
# §1.1); a missing or blank version is the reader's current one.
VERSION = re.compile(r"[0-9]+\.[0-9]+")
# The newest results minor whose keys are documented (waza's schema-changes page, 1.5);
# waza v0.40 writes 1.8, whose additions are named by its release notes only (docs/waza.md,
# "Results of waza v0.40 and later").
KNOWN_MINOR = 5
# waza's other JSON documents carry a ``kind`` (results have none): preflight, release
# policy sidecars, runner envelopes, durable-execution submissions, checkpoints, manifests,
# aggregates, telemetry and provenance bundles (v0.39-v0.42).
FOREIGN_KIND = "waza."
WHERE_RESULTS_ARE = {
    "waza.provenance-bundle": "a provenance bundle's results JSON is one of its "
                              "artifacts/objects/ files",
    "waza.runner-terminal": "a runner terminal envelope holds one attempt's outcome, not "
                            "graded runs",
}
# The keys of a results file this reader knows (Go's EvaluationOutcome up to schema 1.5,
# specs/waza-current.md §5.1, and what scievals' own predict stage records). Only a file of
# a newer minor has the others listed (newer_minor_notes); every unknown key is ignored.
KNOWN_KEYS = {
    "": {"schemaVersion", "eval_id", "runId", "skill", "eval_name", "timestamp", "config",
         "summary", "metrics", "tasks", "trigger_metrics", "trigger_results", "metadata",
         "is_baseline", "baseline_outcome", "evaluation_usage", "graded", "baseline_tasks"},
    "tasks[]": {"test_id", "display_name", "group", "status", "runs", "stats",
                "skill_impact", "cached", "golden", "hook_error"},
    "runs[]": {"run_number", "attempts", "status", "duration_ms", "validations",
               "session_digest", "transcript", "final_output", "error_msg", "prompt", "usage",
               "grader_sessions", "workspace_dir", "failure_artifacts", "responder",
               "checkpoints", "snapshot_path", "tool_events", "command_invocations",
               "skill_invocations", "workspace_files", "workspace_omitted",
               "attempt_records", "checkpoint_states", "followup_error"},
    "runs[].session_digest": {"tool_call_count", "tools_used", "tool_calls", "errors",
                              "usage", "session_id", "tool_policy_mode",
                              "tool_policy_denials"},
}


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


def _refuse_foreign(data: Any, path: str) -> None:
    """waza's JSON documents that are not results, each named (one line)."""
    if not isinstance(data, dict):
        return
    kind = data.get("kind")
    if isinstance(kind, str) and kind.startswith(FOREIGN_KIND):
        why = WHERE_RESULTS_ARE.get(kind, "waza writes results only with `waza run -o` or "
                                          "`--output-dir`")
        raise ScievalsError(path, f"a {kind} document (schema_version "
                            f"{data.get('schema_version', '?')}), not a results file",
                            f"give the results JSON ({why})")
    if {"payloadType", "payload", "signatures"} <= set(data):
        raise ScievalsError(path, "a signed DSSE envelope (a waza provenance statement, "
                            "statement.dsse.json), not a results file",
                            "give the results JSON (one of the bundle's artifacts/objects/)")


def schema_minor(data: Mapping[str, Any], path: str) -> int | None:
    """The minor of a results file's ``schemaVersion`` (None when it is missing or blank:
    the reader's current version, as waza reads it). Not ``MAJOR.MINOR`` text (``1``,
    ``"1.8.0"``, ``v1.8``, the number 1.8) or a major other than 1: one line."""
    version = data.get("schemaVersion")
    if version is None or (isinstance(version, str) and not version.strip()):
        return None
    if not isinstance(version, str) or not VERSION.fullmatch(version):
        raise ScievalsError(f"{path}: schemaVersion", f"{version!r} is not MAJOR.MINOR text",
                            'waza writes it as a string such as "1.8"')
    major, minor = (int(part) for part in version.split("."))
    if major != 1:  # current waza: another major is refused
        raise ScievalsError(f"{path}: schemaVersion", f"{version!r}: only 1.x results are read",
                            "use results written by waza 1.x (`waza migrate` converts others)")
    return minor


def _native_arm(data: dict, path: str) -> dict:
    """waza's A/B layout: ``baseline_outcome`` is the whole no-skill outcome; its tasks are
    the arm (``baseline_tasks`` here), graded like the with-skill tasks."""
    outcome = data.get("baseline_outcome")
    if outcome is None:
        return data
    if not isinstance(outcome, dict) or not isinstance(outcome.get("tasks"), list):
        raise ScievalsError(f"{path}: baseline_outcome", "must be a results object with "
                            "tasks[] (waza's no-skill arm)", FIX)
    if data.get("baseline_tasks") is not None:
        raise ScievalsError(f"{path}: baseline_outcome", "given beside baseline_tasks: two "
                            "no-skill arms", "keep one of them")
    rest = {k: v for k, v in data.items() if k != "baseline_outcome"}
    return {**rest, "baseline_tasks": outcome["tasks"]}


def newer_minor_notes(data: Mapping[str, Any], path: str,
                      grader_types: Collection[str] = ()) -> list[str]:
    """What a results file of a minor newer than :data:`KNOWN_MINOR` carries that this
    reader ignores (key paths such as ``runs[].<key>``), and, from 1.8 (waza v0.40) on, that
    ``program`` graders here get waza v0.23's context: one line each, [] for older files."""
    minor = schema_minor(data, path)
    if minor is None or minor <= KNOWN_MINOR:
        return []
    unknown: set[str] = set()

    def note(level: str, item: Any) -> None:
        if isinstance(item, dict):
            unknown.update(f"{level}.{k}" if level else k
                           for k in item if k not in KNOWN_KEYS[level])

    note("", data)
    for key in ("tasks", "baseline_tasks"):
        for task in data.get(key) or []:
            note("tasks[]", task)
            for run in task.get("runs") or []:
                note("runs[]", run)
                note("runs[].session_digest", run.get("session_digest"))
    notes = [f"{path}: results schema 1.{minor} is newer than 1.{KNOWN_MINOR}, the newest "
             "this reader knows key by key; runs are graded from their final output, "
             "transcript, session digest and skill invocations"
             + (f"; ignored: {listed(sorted(unknown))}" if unknown else "")]
    if minor >= 8 and "program" in grader_types:
        notes.append(f"{path}: program graders here get waza v0.23's context (the output on "
                     "stdin, WAZA_WORKSPACE_DIR), not the program-grader context waza v0.40 "
                     "added (results 1.8): a program that reads it fails here")
    return notes


def check_results(data, path: str) -> dict:
    """``data`` if it has waza's results shape (skill, tasks[{test_id, runs[]}]); waza's
    A/B layout (``baseline_outcome``) is returned with its arm as ``baseline_tasks``."""
    _refuse_foreign(data, path)
    if not isinstance(data, dict) or any(k not in data for k in RESULTS_KEYS):
        raise ScievalsError(path, "not a waza results file (needs keys skill and tasks)",
                            "give the JSON that `waza run -o` wrote")
    schema_minor(data, path)
    data = _native_arm(data, path)
    _check_tasks(data["tasks"], path, "tasks")
    if data.get("baseline_tasks") is not None:  # the no-skill arm: checked as strictly
        _check_tasks(data["baseline_tasks"], path, "baseline_tasks")
    problem = results_problem(data)
    if problem:
        raise ScievalsError(path, problem, FIX)
    refuse_unwritable_text(data, path)  # the review and tables are written as UTF-8
    return data
