"""The strict suite loader: eval.yaml, task files, trigger_tests.yaml, fixtures.

Like the Go tool, an unknown key, a wrong type or a missing field is an error that
names the file, the key path and the allowed keys (checked with waza's own JSON
Schemas in ``data/demo/waza/schemas``). Two strictness levels:

- ``load_suite`` (``waza run``): the Go loader. The schemas are relaxed only where
  Go's loader is: the ``config`` block needs no keys, and Python-era suites load too
  (their grader types, ``max_workers``/``verbose``, ``include:`` task globs, and
  task graders with top-level ``assertions``/``rubric``; see :func:`_task_grader`).
- ``check_suite`` (``waza check``): the schemas as published, plus the config keys
  ``check`` requires; returns every problem instead of stopping at the first.
"""

from __future__ import annotations

import copy
import functools
import glob
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema import Draft7Validator

from scievals.common.errors import ScievalsError
from scievals.common.io import read_yaml
from scievals.waza import format_v1
from scievals.waza.data import DEMO_DIR
from scievals.waza.graders import rubrics
from scievals.waza.graders.base import GraderConfigError
from scievals.waza.graders.registry import build
from scievals.waza.suite_paths import outside, suite_problems, v1_problems

log = logging.getLogger(__name__)

SCHEMA_DIR = DEMO_DIR / "schemas"

GO_GRADER_TYPES = ("code", "prompt", "text", "file", "json_schema", "program", "behavior",
                   "action_sequence", "skill_invocation", "trigger", "diff", "tool_constraint")
LEGACY_GRADER_TYPES = ("regex", "keyword", "tool_calls", "script", "llm", "llm_comparison",
                       "human", "human_calibration")
LEGACY_TOP_LEVEL = {"script": ("script",), "model": ("llm", "llm_comparison")}
# Python-era config keys the Go structs lack (the Python loader ignored unknown keys;
# we accept only the ones it documented).
LEGACY_CONFIG_KEYS = {"max_workers": {"type": "integer", "minimum": 1},
                      "verbose": {"type": "boolean"}}
CONFIDENCE_WEIGHTS = {"high": 1.0, "": 1.0, "medium": 0.5}
DEFAULT_CONFIG = {"trials_per_task": 1, "timeout_seconds": 300, "parallel": False,
                  "workers": 4, "fail_fast": False, "executor": "mock", "model": ""}

TRIGGER_SCHEMA = {
    "type": "object",
    "required": ["skill"],
    "additionalProperties": False,
    "properties": {
        "skill": {"type": "string", "minLength": 1},
        "should_trigger_prompts": {"type": "array", "items": {"$ref": "#/$defs/prompt"}},
        "should_not_trigger_prompts": {"type": "array", "items": {"$ref": "#/$defs/prompt"}},
    },
    "$defs": {"prompt": {
        "type": "object",
        "required": ["prompt"],
        "additionalProperties": False,
        "properties": {"prompt": {"type": "string", "minLength": 1},
                       "reason": {"type": "string"},
                       "confidence": {"enum": ["high", "medium", ""]}},
    }},
}


@dataclass
class GraderSpec:
    """One grader as configured: ``weight`` is the raw value (None when absent)."""

    name: str
    type: str
    config: dict[str, Any]
    weight: float | None = None
    model: str = ""
    source: str = ""  # "<file>: graders[<i>]", for load errors
    builder: str = ""  # the registry type when not ``type`` (the synthetic expected graders)

    @property
    def kind(self) -> str:
        return self.builder or self.type

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "config": self.config,
                "weight": self.weight, "model": self.model}


@dataclass
class TaskFile:
    """One ``inputs.files`` entry: a fixture path, or a path with inline content."""

    path: str
    content: str | None = None


@dataclass
class Checkpoint:
    """Graders run on the state reached after turn ``after_turn`` (1 = the prompt)."""

    after_turn: int
    graders: list[GraderSpec]
    on_failure: str = "continue"


@dataclass
class Task:
    id: str
    name: str
    prompt: str
    source: Path
    description: str = ""
    tags: list[str] = field(default_factory=list)
    timeout_seconds: int | None = None
    context_dir: Path | None = None
    files: list[TaskFile] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)
    graders: list[GraderSpec] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)
    # schemaVersion 1.x keys (specs/waza-current.md §3)
    golden: bool = False
    follow_ups: list[str] = field(default_factory=list)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    skill_directories: list[str] | None = None


@dataclass
class TriggerPrompt:
    prompt: str
    should_trigger: bool
    reason: str = ""
    confidence: str = ""

    @property
    def weight(self) -> float:
        return CONFIDENCE_WEIGHTS[self.confidence]


@dataclass
class Suite:
    """A loaded suite. ``fixtures_dir`` is the resolved default context dir."""

    path: Path
    name: str
    skill: str
    config: dict[str, Any]
    graders: list[GraderSpec]
    metrics: list[dict[str, Any]]
    tasks: list[Task]
    fixtures_dir: Path
    description: str = ""
    trigger_skill: str = ""
    trigger_prompts: list[TriggerPrompt] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # schemaVersion 1.x: the raw version text ("" for a v0.23 suite), hooks, A/B mode,
    # and unknown keys that were ignored (each a warning naming file and key)
    version: str = ""
    hooks: dict[str, list[dict]] = field(default_factory=dict)
    baseline: bool = False
    warnings: list[str] = field(default_factory=list)

    @property
    def directory(self) -> Path:
        return self.path.parent

    def metric(self, name: str) -> dict[str, Any] | None:
        for item in self.metrics:
            if item.get("name") == name and item.get("enabled", True):
                return item
        return None

    def task_fixtures_dir(self, task: Task) -> Path:
        return task.context_dir or self.fixtures_dir

    def grader_types(self) -> set[str]:
        """Every grader type the suite uses (global, task and checkpoint graders)."""
        specs = list(self.graders)
        for task in self.tasks:
            specs += task.graders + [g for c in task.checkpoints for g in c.graders]
        return {spec.type for spec in specs}


# --- schemas -------------------------------------------------------------------------------

@functools.cache
def _published_schema(name: str) -> dict:
    path = SCHEMA_DIR / f"{name}.schema.json"
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


@functools.cache
def _check_schema(name: str) -> dict:
    """The published schema ``waza check`` applies, plus the Python-era config keys the
    loader accepts (``max_workers``, ``verbose``): check and run agree on them."""
    schema = copy.deepcopy(_published_schema(name))
    if name == "eval":
        schema["$defs"]["config"]["properties"].update(LEGACY_CONFIG_KEYS)
    return schema


@functools.cache
def _loader_schema(name: str) -> dict:
    """The published schema relaxed exactly where Go's loader (not ``check``) is."""
    schema = copy.deepcopy(_published_schema(name))
    defs = schema["$defs"]
    if name == "eval":
        schema["required"] = ["skill", "tasks"]
        defs["config"].pop("required", None)
        defs["config"]["properties"].update(LEGACY_CONFIG_KEYS)
        grader = defs["graderConfig"]
    else:
        grader = defs["validatorInline"]
    grader["properties"]["type"]["enum"] = list(GO_GRADER_TYPES + LEGACY_GRADER_TYPES)
    return schema


def _key_path(error: jsonschema.ValidationError) -> str:
    text = ""
    for part in error.absolute_path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _problem(error: jsonschema.ValidationError) -> str:
    schema, instance = error.schema, error.instance
    if error.validator == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        extra = (sorted(str(k) for k in set(instance) - set(allowed))  # YAML keys: any type
                 if isinstance(instance, dict) else [])
        return f"unknown key(s) {', '.join(extra)} (allowed keys: {', '.join(allowed)})"
    if error.validator == "required":
        allowed = sorted(schema.get("properties", {}))
        return f"{error.message} (allowed keys: {', '.join(allowed)})"
    if error.validator == "type":
        return f"{_short(instance)} is not of type {schema['type']}"
    if error.validator == "enum":
        allowed = ", ".join(map(str, schema["enum"]))
        return f"{instance!r} is not allowed (allowed values: {allowed})"
    if error.validator == "anyOf" and all("required" in s for s in schema["anyOf"]):
        keys = [s["required"][0] for s in schema["anyOf"]]
        return f"needs at least one of: {', '.join(keys)}"
    return error.message


def schema_problems(instance: Any, schema: dict, where: str) -> list[str]:
    """Every schema violation of ``instance`` as ``<where>: <key path>: <problem>``."""
    validator = Draft7Validator(schema)
    errors = sorted(validator.iter_errors(instance),
                    key=lambda e: [str(p) for p in e.absolute_path])
    return [f"{where}: {_key_path(e)}: {_problem(e)}" for e in errors]


# --- reading -------------------------------------------------------------------------------

def eval_path(path: str | Path) -> Path:
    """``path`` may be a suite folder or its eval.yaml."""
    path = Path(path)
    if path.is_dir():
        path = path / "eval.yaml"
    if not path.is_file():
        raise ScievalsError(path, "no eval.yaml here", "give a suite folder or its eval.yaml")
    return path


def _current_keys(spec: Path, raw: Any) -> list[str]:
    """:func:`format_v1.current_keys_used` of the eval and the task files its globs name
    (inside the suite folder; a problem there is reported by the real load)."""
    globs = raw.get("tasks") if isinstance(raw, dict) else None
    tasks = []
    if isinstance(globs, list) and all(isinstance(g, str) for g in globs):
        for task_path in _task_paths(spec, globs, []):
            try:
                tasks.append(read_yaml(task_path))
            except ScievalsError:
                continue
    return format_v1.current_keys_used(raw, tasks)


def _task_paths(spec: Path, patterns: list[str], problems: list[str]) -> list[Path]:
    found: list[Path] = []
    for index, pattern in enumerate(patterns):
        if pattern.startswith("include:"):  # Python-era form
            pattern = pattern[len("include:"):].strip()
        matches = sorted(glob.glob(str(spec.parent / pattern), recursive=True))
        if not matches:
            problems.append(f"{spec}: tasks[{index}]: pattern {pattern!r} matches no file "
                            "(globs are relative to eval.yaml)")
        for match in matches:  # never read a task file from outside the suite folder
            problem = outside(match, [spec.parent], f"{spec}: tasks[{index}]", "task file")
            if problem:
                problems.append(problem)
            elif Path(match) not in found:
                found.append(Path(match))
    return found


def _grader(entry: dict, where: str, notes: list[str]) -> GraderSpec:
    """A grader entry; task-level top-level ``assertions``/``rubric`` (Python era) are
    moved into ``config`` instead of being ignored, with a note when both forms exist."""
    config = dict(entry.get("config") or {})
    if "assertions" in entry:
        if "assertions" in config:
            notes.append(f"{where}: both top-level assertions and config.assertions; "
                         "using both (config's first)")
            config["assertions"] = list(config["assertions"]) + [
                a for a in entry["assertions"] if a not in config["assertions"]]
        else:
            config["assertions"] = list(entry["assertions"])
    if "rubric" in entry:
        key = "prompt" if entry.get("type") == "prompt" else "rubric"
        _lift(entry, config, "rubric", key, where, notes)
    # Python-era eval.yaml graders name their script and judge model at the top level
    # (Go ignores both, specs/waza.md §2): moved into config for the graders that read them.
    for key, kinds in LEGACY_TOP_LEVEL.items():
        if key not in entry:
            continue
        if entry.get("type") in kinds:
            _lift(entry, config, key, key, where, notes)
        else:
            notes.append(f"{where}: top-level {key} is ignored by a {entry.get('type')} "
                         f"grader (only {', '.join(kinds)} read it)")
    weight = entry.get("weight")
    return GraderSpec(name=entry["name"], type=entry.get("type", ""), config=config,
                      weight=float(weight) if weight is not None else None,
                      model=entry.get("model") or "", source=where)


def grader_problems(graders: list[GraderSpec]) -> list[str]:
    """Build every grader once (as a run would): a bad config is a load problem naming the
    file, the grader and the config key, not an ``error`` status of every run."""
    problems = []
    for spec in graders:
        try:
            build(spec.kind, spec.config, name=spec.name)
        except GraderConfigError as exc:
            problems.append(f"{spec.source} ({spec.name}): {exc.one_line()}")
    return problems


def _lift(entry: dict, config: dict, key: str, target: str, where: str,
          notes: list[str]) -> None:
    """Top-level ``key`` into ``config[target]``; config's own value wins, with a note."""
    if target in config:
        notes.append(f"{where}: both top-level {key} and config.{target}; "
                     f"using config.{target}")
    else:
        config[target] = entry[key]


def _files(raw: list[dict], where: str, notes: list[str], problems: list[str]) -> list[TaskFile]:
    files = []
    for index, item in enumerate(raw):
        path = item.get("path", "")
        if not path:
            problems.append(f"{where}: inputs.files[{index}]: needs a path "
                            "(write {path: name} or {path: name, content: ...})")
            continue
        if Path(path).is_absolute() or ".." in Path(path).parts:
            notes.append(f"{where}: inputs.files[{index}]: skipped {path!r} "
                         "(absolute or contains '..')")
            continue
        files.append(TaskFile(path=path, content=item.get("content")))
    return files


def _task(path: Path, suite_dir: Path, fixtures: Path, problems: list[str],
          notes: list[str]) -> Task | None:
    raw = read_yaml(path)
    found = schema_problems(raw, _loader_schema("task"), str(path))
    if found:
        problems += found
        return None
    if raw.get("enabled", True) is False:
        return None
    graders = []
    for index, entry in enumerate(raw.get("graders") or []):
        where = f"{path}: graders[{index}]"
        if not entry.get("type"):
            problems.append(f"{where}: missing type (allowed values: "
                            f"{', '.join(GO_GRADER_TYPES + LEGACY_GRADER_TYPES)})")
            continue
        graders.append(_grader(entry, where, notes))
    problems += grader_problems(graders)
    context_dir = (suite_dir / raw["context_dir"]) if raw.get("context_dir") else None
    task = Task(id=raw["id"], name=raw["name"], prompt=raw["inputs"]["prompt"], source=path,
                description=raw.get("description") or "", tags=list(raw.get("tags") or []),
                timeout_seconds=raw.get("timeout_seconds"), context_dir=context_dir,
                files=_files(raw["inputs"].get("files") or [], str(path), notes, problems),
                context=dict(raw["inputs"].get("context") or {}), graders=graders, raw=raw)
    _check_fixtures(task, context_dir or fixtures, problems)
    return task


def _check_fixtures(task: Task, base: Path, problems: list[str]) -> None:
    """Every input file without inline content exists in ``base`` (context_dir or fixtures)."""
    for item in task.files:
        if item.content is None and not (base / item.path).is_file():
            problems.append(f"{task.source}: inputs.files: fixture {item.path!r} not found in "
                            f"{base} (add it, give content:, or set --context-dir / context_dir)")


def _trigger_tests(path: Path, problems: list[str]) -> tuple[str, list[TriggerPrompt]]:
    if not path.is_file():
        return "", []
    raw = read_yaml(path)
    found = schema_problems(raw, TRIGGER_SCHEMA, str(path))
    if found:
        problems += found
        return "", []
    prompts = [TriggerPrompt(p["prompt"], True, p.get("reason", ""), p.get("confidence", ""))
               for p in raw.get("should_trigger_prompts") or []]
    prompts += [TriggerPrompt(p["prompt"], False, p.get("reason", ""), p.get("confidence", ""))
                for p in raw.get("should_not_trigger_prompts") or []]
    if not prompts:
        problems.append(f"{path}: needs at least one prompt in should_trigger_prompts or "
                        "should_not_trigger_prompts")
    return raw["skill"], prompts


def _collect(path: str | Path, context_dir: str | Path | None, published: bool,
             strict: bool = False) -> tuple[Suite | None, list[str], list[str]]:
    """(suite or None, problems, warnings); warnings are ignored unknown keys (1.x)."""
    spec = eval_path(path)
    version = format_v1.schema_version(spec)
    raw = read_yaml(spec)
    if version is None and (used := _current_keys(spec, raw)):
        # waza reads a missing version as the current one: a suite written for it (its
        # own examples/code-explainer) is read as 1.x instead of refused as v0.23
        suite, problems, warnings = _collect_v1(spec, raw, format_v1.IMPLIED_VERSION,
                                                context_dir, published, strict)
        note = (f"{spec}: no schemaVersion, but current-format keys ({', '.join(used[:4])}"
                f"{', ...' if len(used) > 4 else ''}): read as schemaVersion "
                f"{format_v1.IMPLIED_VERSION.text}, as waza reads a missing version")
        return suite, problems, [note, *warnings]
    if version is not None:
        return _collect_v1(spec, raw, version, context_dir, published, strict)
    problems: list[str] = []
    notes: list[str] = []
    problems += schema_problems(raw, _loader_schema("eval"), str(spec))
    graders: list[GraderSpec] = []
    if not problems:  # the entries have the loader's shape: build them (Go's constructors)
        graders = [_grader(g, f"{spec}: graders[{i}]", notes)
                   for i, g in enumerate(raw.get("graders") or [])]
        problems += grader_problems(graders)
    if published:
        for problem in schema_problems(raw, _check_schema("eval"), str(spec)):
            if problem not in problems:
                problems.append(problem)
    globs = raw.get("tasks") if isinstance(raw, dict) else None
    if not isinstance(globs, list) or not all(isinstance(g, str) for g in globs):
        return None, problems, []  # no task files to look at
    fixtures = Path(context_dir) if context_dir else spec.parent / "fixtures"
    tasks = []
    for task_path in _task_paths(spec, globs, problems):
        if published:
            problems += schema_problems(read_yaml(task_path), _published_schema("task"),
                                        str(task_path))
        task = _task(task_path, spec.parent, fixtures, problems, notes)
        if task is not None:
            tasks.append(task)
    seen: dict[str, Path] = {}
    for task in tasks:
        if task.id in seen:
            problems.append(f"{task.source}: id: {task.id!r} is also the id of {seen[task.id]}")
        seen[task.id] = task.source
    problems += suite_problems(spec, tasks, raw, fixtures, given_fixtures=bool(context_dir))
    trigger_file = spec.parent / "trigger_tests.yaml"
    trigger_problem = outside(trigger_file, [spec.parent], str(trigger_file), "the file")
    if trigger_problem:
        problems.append(trigger_problem)
    trigger_skill, prompts = "", []
    if not trigger_problem:
        trigger_skill, prompts = _trigger_tests(trigger_file, problems)
    problems = list(dict.fromkeys(problems))  # the loader and published schemas overlap
    if problems:
        return None, problems, []
    config = {**DEFAULT_CONFIG, **(raw.get("config") or {})}
    suite = Suite(path=spec, name=raw.get("name") or spec.parent.name, skill=raw["skill"],
                  config=config, graders=graders, metrics=list(raw.get("metrics") or []),
                  tasks=tasks, fixtures_dir=fixtures, description=raw.get("description") or "",
                  trigger_skill=trigger_skill, trigger_prompts=prompts, notes=notes)
    return suite, problems, []


# --- schemaVersion 1.x (specs/waza-current.md) ----------------------------------------------

V1_CONFIG_DEFAULTS = {"parallel": False, "workers": 0, "fail_fast": False, "model": ""}
V1_IGNORED_GRADER_KEYS = ("script", "rubric", "model")  # accepted, ignored by Go's graders


def _describe(error: jsonschema.ValidationError, where: str) -> str:
    return f"{where}: {_key_path(error)}: {_problem(error)}"


def _grader_v1(entry: dict, where: str, notes: list[str], problems: list[str],
               eval_dir: Path) -> GraderSpec | None:
    """A 1.x grader entry: remote ``ref`` presets need waza's lockfile (refused here);
    top-level ``script``/``rubric``/``model`` are accepted and ignored, as in Go."""
    if entry.get("ref"):
        problems.append(f"{where}: ref: remote grader presets need waza get's waza.lock, "
                        "which scievals does not implement (inline the grader instead)")
        return None
    if not entry.get("type") or not entry.get("name"):
        problems.append(f"{where}: needs type and name")
        return None
    for key in V1_IGNORED_GRADER_KEYS:
        if key in entry:
            notes.append(f"{where}: top-level {key} is ignored (put it inside config)")
    weight = entry.get("weight")
    config = dict(entry.get("config") or {})
    rubric = config.get("rubric")
    if entry["type"] == "prompt" and isinstance(rubric, str) and rubrics.is_path(rubric) \
            and not Path(rubric).expanduser().is_absolute():
        config["rubric"] = str(eval_dir / rubric)  # a rubric file: relative to eval.yaml
    return GraderSpec(name=entry["name"], type=entry["type"], config=config,
                      weight=float(weight) if weight is not None else None, source=where)


def _graders_v1(entries: list, where: str, notes: list[str], problems: list[str],
                eval_dir: Path) -> list[GraderSpec]:
    specs = [_grader_v1(e, f"{where}[{i}]", notes, problems, eval_dir)
             for i, e in enumerate(entries)]
    built = [s for s in specs if s is not None]
    problems += grader_problems(built)
    return built


def _expectations(expected: dict, where: str) -> list[GraderSpec]:
    """``expected.output_contains``/``output_not_contains``/``output_contains_any`` as
    waza's synthetic graders (empty type, weight 1), in that order, when non-empty."""
    return [GraderSpec(name=f"_{key}", type="", config={"strings": list(expected[key])},
                       weight=1.0, source=f"{where}: expected.{key}", builder=f"expected.{key}")
            for key in ("output_contains", "output_not_contains", "output_contains_any")
            if expected.get(key)]


def _checkpoints(raw: list, n_turns: int | None, where: str, notes: list[str],
                 problems: list[str], eval_dir: Path) -> list[Checkpoint]:
    """``checkpoints``: ``after_turn`` unique and, with static follow-ups, <= the turns."""
    found: list[Checkpoint] = []
    for index, item in enumerate(raw):
        here = f"{where}: checkpoints[{index}]"
        turn = int(item["after_turn"])
        if any(c.after_turn == turn for c in found):
            problems.append(f"{here}: after_turn {turn} is given twice (make each unique)")
            continue
        if n_turns is not None and turn > n_turns:
            problems.append(f"{here}: after_turn {turn} is past the last turn ({n_turns}: "
                            "the prompt plus follow_up_prompts)")
            continue
        graders = _graders_v1(list(item["graders"]), f"{here}.graders", notes, problems,
                              eval_dir)
        found.append(Checkpoint(turn, graders, item.get("on_failure") or "continue"))
    return found


def _task_v1(path: Path, suite_dir: Path, fixtures: Path, strict: bool, published: bool,
             problems: list[str], warnings: list[str], notes: list[str]) -> Task | None:
    raw = copy.deepcopy(read_yaml(path))
    if not isinstance(raw, dict):
        problems.append(f"{path}: a task file must be a mapping")
        return None
    if "mcp_mocks" in raw:  # waza v0.40's task-level MCP mocks (beyond the task schema)
        problems.append(f"{path}: mcp_mocks: task-level MCP mocks (waza v0.40) are not "
                        f"supported by scievals ({format_v1.UNSUPPORTED['mcp_mocks']}); "
                        "without them the agent would run against no mock at all")
        return None
    schema = format_v1.published_schema("task") if published else format_v1.loader_schema(
        "task")
    errors, ignored = format_v1.lenient_problems(raw, schema, str(path), strict, _describe)
    warnings += ignored
    if errors:
        problems += errors
        return None
    if raw.get("enabled", True) is False:
        return None
    inputs = raw["inputs"]
    if "responder" in inputs:
        problems.append(f"{path}: inputs.responder: the LLM responder is not supported by "
                        "scievals (use follow_up_prompts)")
        return None
    for key in ("command_mocks",):
        if key in raw:
            problems.append(f"{path}: {key}: not supported by scievals "
                            f"({format_v1.UNSUPPORTED[key]})")
    try:
        prompt = (format_v1.read_prompt_file(path, inputs["prompt_file"])
                  if "prompt_file" in inputs else inputs["prompt"])
    except ScievalsError as exc:
        problems.append(exc.one_line())
        return None
    follow_ups = [str(p) for p in inputs.get("follow_up_prompts") or []]
    graders = _graders_v1(list(raw.get("graders") or []), f"{path}: graders", notes, problems,
                          suite_dir)
    graders += _expectations(raw.get("expected") or {}, str(path))
    problems += grader_problems([g for g in graders if g.builder])
    checkpoints = _checkpoints(list(raw.get("checkpoints") or []), 1 + len(follow_ups),
                               str(path), notes, problems, suite_dir)
    context_dir = (suite_dir / raw["context_dir"]) if raw.get("context_dir") else None
    task = Task(id=str(raw["id"]), name=str(raw["name"]), prompt=prompt, source=path,
                description=raw.get("description") or "", tags=list(raw.get("tags") or []),
                timeout_seconds=raw.get("timeout_seconds"), context_dir=context_dir,
                files=_files(inputs.get("files") or [], str(path), notes, problems),
                context=dict(inputs.get("context") or {}), graders=graders, raw=raw,
                golden=bool(raw.get("golden", False)), follow_ups=follow_ups,
                checkpoints=checkpoints, skill_directories=raw.get("skill_directories"))
    _check_fixtures(task, context_dir or fixtures, problems)
    return task


def _task_globs_v1(spec: Path, patterns: list[str], problems: list[str]) -> list[Path]:
    """Go's filepath.Glob per pattern (no ``**``), each sorted, in list order, no
    de-duplication; zero files in total is an error."""
    found: list[Path] = []
    matched = 0
    for index, pattern in enumerate(patterns):
        for match in sorted(glob.glob(str(spec.parent / pattern))):
            matched += 1
            # never read a task file from outside the suite folder (suite_paths)
            problem = outside(match, [spec.parent], f"{spec}: tasks[{index}]", "task file")
            if problem:
                problems.append(problem)
            else:
                found.append(Path(match))
    if not matched:
        problems.append(f"{spec}: tasks: the patterns {patterns} match no file "
                        "(globs are relative to eval.yaml; ** is not supported)")
    return found


def _csv_tasks_v1(spec: Path, raw: dict, problems: list[str]) -> list[Task]:
    """``tasks_from`` rows as tasks: no task graders, expected, files or timeouts."""
    fields = {"JobID": f"run-{int(time.time())}",
              "Timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "Iteration": 0, "Attempt": 0}
    try:
        rows = format_v1.csv_tasks(spec.parent, raw["tasks_from"],
                                   {k: str(v) for k, v in (raw.get("inputs") or {}).items()},
                                   raw.get("range"), str(spec), fields)
    except ScievalsError as exc:
        problems.append(exc.one_line())
        return []
    source = spec.parent / raw["tasks_from"]
    return [Task(id=r.id, name=r.name, prompt=r.prompt, source=source,
                 raw={"id": r.id, "name": r.name, "csv_line": r.line}) for r in rows]


def _collect_v1(spec: Path, raw: Any, version: format_v1.Version,
                context_dir: str | Path | None, published: bool, strict: bool
                ) -> tuple[Suite | None, list[str], list[str]]:
    """A schemaVersion 1.x suite (current waza): unknown keys outside a grader's
    ``config`` are warnings (``strict``: errors), every other problem an error."""
    if not isinstance(raw, dict):
        return None, [f"{spec}: eval.yaml must be a mapping"], []
    raw = copy.deepcopy(raw)
    raw["schemaVersion"] = version.text  # the raw text, not PyYAML's float
    problems: list[str] = []
    notes: list[str] = []
    schema = format_v1.published_schema("eval") if published else format_v1.loader_schema(
        "eval")
    problems, warnings = format_v1.lenient_problems(raw, schema, str(spec), strict, _describe)
    config = raw.get("config") if isinstance(raw.get("config"), dict) else {}
    problems += format_v1.gated_problems(raw, version, str(spec), str(config.get("executor")))
    if not raw.get("skill"):
        problems.append(f"{spec}: skill: required (the skill under test)")
    if not raw.get("tasks_from") and not raw.get("tasks"):
        problems.append(f"{spec}: tasks: required unless tasks_from names a CSV file")
    if problems:
        return None, list(dict.fromkeys(problems)), warnings
    graders = _graders_v1(list(raw.get("graders") or []), f"{spec}: graders", notes, problems,
                          spec.parent)
    fixtures = Path(context_dir) if context_dir else spec.parent / "fixtures"
    tasks: list[Task] = []
    if raw.get("tasks_from"):  # replaces tasks (range only applies here)
        tasks = _csv_tasks_v1(spec, raw, problems)
    else:
        for task_path in _task_globs_v1(spec, list(raw["tasks"]), problems):
            task = _task_v1(task_path, spec.parent, fixtures, strict, published, problems,
                            warnings, notes)
            if task is not None:
                tasks.append(task)
    problems += suite_problems(spec, tasks, raw, fixtures, given_fixtures=bool(context_dir))
    problems += v1_problems(spec, raw, tasks, graders)
    trigger_file = spec.parent / "trigger_tests.yaml"
    trigger_problem = outside(trigger_file, [spec.parent], str(trigger_file), "the file")
    if trigger_problem:
        problems.append(trigger_problem)
    else:
        trigger_skill, prompts = _trigger_tests(trigger_file, problems)
    if problems:
        return None, list(dict.fromkeys(problems)), warnings
    suite = Suite(path=spec, name=raw["name"], skill=raw["skill"],
                  config={**V1_CONFIG_DEFAULTS, **config}, graders=graders,
                  metrics=list(raw.get("metrics") or []), tasks=tasks, fixtures_dir=fixtures,
                  description=raw.get("description") or "", trigger_skill=trigger_skill,
                  trigger_prompts=prompts, notes=notes, version=version.text,
                  hooks=dict(raw.get("hooks") or {}), baseline=bool(raw.get("baseline")),
                  warnings=warnings)
    return suite, [], warnings


def load_suite(path: str | Path, context_dir: str | Path | None = None) -> Suite:
    """Load a suite strictly (Go loader); any problem raises one ScievalsError listing all."""
    suite, problems, warnings = _collect(path, context_dir, published=False)
    for warning in warnings:
        log.warning("%s", warning)
    if problems:
        where, _, first = problems[0].partition(": ")
        rest = f" (+{len(problems) - 1} more: {'; '.join(problems[1:])})" if problems[1:] else ""
        raise ScievalsError(where, first + rest, "see docs/waza.md (Suites)")
    if not suite.tasks:
        raise ScievalsError(suite.path, "no enabled task", "add a task or set enabled: true")
    for note in suite.notes:
        log.warning("%s", note)
    return suite


def check_suite(path: str | Path, context_dir: str | Path | None = None,
                strict: bool = False) -> list[str]:
    """``waza check``: every problem (published schema + required config keys), [] if valid."""
    return check_report(path, context_dir, strict)[0]


def check_report(path: str | Path, context_dir: str | Path | None = None,
                 strict: bool = False) -> tuple[list[str], list[str]]:
    """(problems, warnings) of ``waza check``; ``strict`` makes the unknown keys a 1.x
    suite may carry (warnings otherwise) problems."""
    try:
        _, problems, warnings = _collect(path, context_dir, published=True, strict=strict)
    except ScievalsError as exc:
        return [exc.one_line()], []
    return problems, warnings
