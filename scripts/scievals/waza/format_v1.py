"""Current waza's suite format (``schemaVersion`` 1.x, waza v0.33-v0.40): the parts that
differ from v0.23 (specs/waza-current.md §1-§3).

- :func:`schema_version`: the raw scalar text of ``schemaVersion`` (PyYAML would read
  ``1.10`` as the float 1.1), checked as ``MAJOR.MINOR``; only major 1 is run (2.0 is
  waza's scenario format, out of scope here).
- :func:`lenient_problems`: the current JSON Schemas with waza's run-time leniency: an
  unknown key outside a grader's ``config`` is a warning and is dropped (``strict``
  makes it an error), inside a grader's ``config`` it is an error.
- :func:`csv_tasks`: ``tasks_from`` CSV rows (``inputs`` merged with each row, ``range``),
  their prompts rendered by :func:`render`, the subset of Go's ``text/template`` that
  waza's CSV prompts use.
- :func:`read_prompt_file`: ``inputs.prompt_file``, relative to the task file.
"""

from __future__ import annotations

import copy
import csv
import functools
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft7Validator

from scievals.common.errors import ScievalsError
from scievals.common.io import parse_yaml_node, read_user_text, user_file
from scievals.waza.data import DEMO_DIR

SCHEMA_DIR = DEMO_DIR / "schemas-current"
SUPPORTED_MAJOR = 1
# Keys that need an explicit minor at least this high (specs/waza-current.md §1.1).
MINOR_GATES = {"mcp_mocks": 1, "adversarial": 2, "command_mocks": 3}
# Accepted by the format, but no executor here can honour them: refused, not ignored.
UNSUPPORTED = {
    "mcp_mocks": "MCP mock servers need waza's copilot-sdk executor",
    "command_mocks": "command mocks are PATH shims of waza's copilot-sdk executor",
    "scenario": "scenario evals are waza's 2.0 format",
}
# Keys waza's loader accepts although its schemas lack them (§1.3): what check says.
LOADER_ONLY = {"expected.output_contains_any": "not in task.schema.json, but waza run "
               "grades it", "adversarial": "not in eval.schema.json; waza run ignores it"}
TEMPLATE_ACTION = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
TEMPLATE_FIELDS = ("TaskName", "JobID", "Timestamp", "Iteration", "Attempt")


@dataclass(frozen=True)
class Version:
    text: str
    major: int
    minor: int


def _raw_scalar(text: str, key: str) -> str | None:
    """The raw text of a top-level scalar ``key`` of a YAML document (None if absent)."""
    try:
        root = parse_yaml_node(text, "eval.yaml")
    except ScievalsError:
        return None  # read_yaml reports the problem with its line
    if not isinstance(root, yaml.MappingNode):
        return None
    for key_node, value_node in root.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return value_node.value if isinstance(value_node, yaml.ScalarNode) else ""
    return None


def schema_version(path: Path) -> Version | None:
    """The suite's ``schemaVersion`` from the raw YAML text; None when the key is absent
    (a v0.23 suite). A malformed value or another major is one clear error."""
    raw = _raw_scalar(read_user_text(path), "schemaVersion")
    if raw is None:
        return None
    parts = raw.strip().split(".")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ScievalsError(f"{path}: schemaVersion", f"{raw!r} is not MAJOR.MINOR",
                            'write it quoted, e.g. schemaVersion: "1.4"')
    version = Version(raw.strip(), int(parts[0]), int(parts[1]))
    if version.major != SUPPORTED_MAJOR:
        raise ScievalsError(f"{path}: schemaVersion", f"{raw!r}: only 1.x suites are "
                            "supported (2.0 scenario evals are out of scope for scievals)",
                            "write a 1.x eval (waza migrate keeps 1.x as is)")
    return version


# What waza reads a missing schemaVersion as (v0.39-v0.40.1; specs/waza-current.md §1.1).
IMPLIED_VERSION = Version("1.4", 1, 4)
# Eval keys the v0.23 schema lists but only the current loader honours.
CURRENT_EVAL_KEYS = ("hooks", "tasks_from", "inputs", "range", "baseline")


def _grader_config(prefix: tuple, name: Any) -> bool:
    return name == "config" and bool(prefix) and prefix[-1] == "graders"


def _schema_paths(schema: dict) -> set[str]:
    """Every key path a schema names (``a.b.c``; list items are transparent, a grader's
    ``config`` is not entered: its keys depend on the grader type)."""
    defs, found = schema.get("$defs") or {}, set()

    def walk(node: Any, prefix: tuple, depth: int) -> None:
        if depth > 12 or not isinstance(node, dict):
            return
        if isinstance(node.get("$ref"), str):
            walk(defs.get(node["$ref"].rsplit("/", 1)[-1]), prefix, depth + 1)
        for key in ("allOf", "anyOf", "oneOf"):
            for sub in node.get(key) or []:
                walk(sub, prefix, depth + 1)
        for name, sub in (node.get("properties") or {}).items():
            found.add(".".join((*prefix, name)))
            if not _grader_config(prefix, name):
                walk(sub, (*prefix, name), depth + 1)
        walk(node.get("items"), prefix, depth + 1)

    walk(schema, (), 0)
    return found


@functools.cache
def current_only_paths(name: str) -> frozenset[str]:
    """Key paths of the current schema (and waza's loader) that v0.23's schema lacks."""
    with open(DEMO_DIR / "schemas" / f"{name}.schema.json", encoding="utf-8") as handle:
        old = _schema_paths(json.load(handle))
    new = _schema_paths(published_schema(name)) | set(LOADER_ONLY)
    return frozenset(new - old - {"schemaVersion"})


def _raw_paths(data: Any, prefix: tuple = ()) -> set[str]:
    found = set()
    if isinstance(data, list):
        for item in data:
            found |= _raw_paths(item, prefix)
    elif isinstance(data, dict):
        for key, value in data.items():
            path = (*prefix, str(key))
            found.add(".".join(path))
            if not _grader_config(prefix, key):
                found |= _raw_paths(value, path)
    return found


def current_keys_used(raw_eval: Any, raw_tasks: list[Any]) -> list[str]:
    """The current-format keys a suite without ``schemaVersion`` uses (``eval.yaml:
    hooks``, ``task.yaml: expected.output_contains_any``...): waza reads such a suite as
    the current version, so it is read as 1.x, not refused as v0.23."""
    used = []
    if isinstance(raw_eval, dict):
        used += [f"eval.yaml: {k}" for k in CURRENT_EVAL_KEYS if raw_eval.get(k)]
        used += [f"eval.yaml: {p}" for p in sorted(_raw_paths(raw_eval)
                                                    & current_only_paths("eval"))]
    for raw in raw_tasks:
        used += [f"task: {p}" for p in sorted(_raw_paths(raw) & current_only_paths("task"))]
    return list(dict.fromkeys(used))


def gated_problems(raw: dict, version: Version, where: str, executor: str) -> list[str]:
    """Minor-gated keys used under a lower explicit minor, and keys no executor here runs."""
    problems = []
    for key, minor in MINOR_GATES.items():
        if key in raw and version.minor < minor:
            problems.append(f"{where}: {key}: needs schemaVersion 1.{minor} or later "
                            f"(this file says {version.text})")
    if "command_mocks" in raw and executor != "copilot-sdk":
        problems.append(f"{where}: command_mocks: needs config.executor copilot-sdk")
    for key, reason in UNSUPPORTED.items():
        if key in raw:
            problems.append(f"{where}: {key}: not supported by scievals ({reason})")
    return problems


# --- schemas -------------------------------------------------------------------------------

@functools.cache
def published_schema(name: str) -> dict:
    with open(SCHEMA_DIR / f"{name}.schema.json", encoding="utf-8") as handle:
        return json.load(handle)


@functools.cache
def loader_schema(name: str) -> dict:
    """The current schema relaxed where waza's loader (``waza run``) is (§1.3): ``metrics``
    and ``config.model`` are optional, ``skill``/``tasks`` required unless ``scenario``/
    ``tasks_from`` say otherwise (checked in code), ``expected.output_contains_any`` and
    ``adversarial`` accepted."""
    schema = copy.deepcopy(published_schema(name))
    defs = schema["$defs"]
    if name == "eval":
        schema["required"] = ["name", "config"]
        defs["config"]["required"] = ["trials_per_task", "timeout_seconds", "executor"]
        schema["properties"]["adversarial"] = {"type": "object"}
    else:
        defs["expected"]["properties"]["output_contains_any"] = {
            "type": "array", "items": {"type": "string"}}
    return schema


def _in_grader_config(path: list) -> bool:
    """Is this key path inside some grader's ``config`` (``graders[i].config...``)?"""
    return any(path[i] == "graders" and isinstance(path[i + 1], int)
               and path[i + 2] == "config" for i in range(len(path) - 2))


def _key_path(path: list) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def lenient_problems(instance: dict, schema: dict, where: str, strict: bool,
                     describe) -> tuple[list[str], list[str]]:
    """(errors, warnings) of ``instance`` against ``schema``. Unknown keys outside a
    grader's ``config`` are dropped from ``instance`` with a warning (errors when
    ``strict``); inside one they are errors. ``describe`` words any other violation."""
    warnings: list[str] = []
    errors: list[str] = []
    for _ in range(20):  # dropping a key can expose the next level's unknown keys
        dropped = False
        found = sorted(Draft7Validator(schema).iter_errors(instance),
                       key=lambda e: [str(p) for p in e.absolute_path])
        for error in found:
            path = list(error.absolute_path)
            if error.validator != "additionalProperties" or not isinstance(error.instance,
                                                                             dict):
                continue
            allowed = set(error.schema.get("properties", {}))
            # YAML keys may be of any type: strings in their order, then the others
            extra = sorted(set(error.instance) - allowed,
                           key=lambda k: (type(k) is not str, str(k)))
            if not extra or _in_grader_config(path) or strict:
                continue
            for key in extra:
                key_path = _key_path(path + [key])
                why = LOADER_ONLY.get(key_path, "unknown key ignored")
                warnings.append(f"{where}: {key_path}: {why} (schemaVersion 1.x; waza check "
                                "--strict makes it an error)")
                del error.instance[key]
            dropped = True
        if not dropped:
            errors = [describe(e, where) for e in found]
            break
    return list(dict.fromkeys(errors)), list(dict.fromkeys(warnings))


# --- task sources --------------------------------------------------------------------------

def render(template: str, variables: dict[str, str], fields: dict[str, Any],
           where: str) -> str:
    """A CSV prompt through the subset of Go ``text/template`` waza's prompts use:
    ``{{.Vars.<key>}}`` and ``{{.TaskName}}``/``{{.JobID}}``/``{{.Timestamp}}``/
    ``{{.Iteration}}``/``{{.Attempt}}``, spaces inside the braces allowed. A missing key
    is an error (Go's ``missingkey=error``), and so is any other action."""
    if "{{" not in template:
        return template

    def action(match: re.Match) -> str:
        body = match.group(1).strip()
        if body.startswith(".Vars."):
            key = body[len(".Vars."):]
            if key not in variables:
                raise ScievalsError(where, f"template {{{{{body}}}}}: no variable {key!r}",
                                    f"variables: {', '.join(sorted(variables)) or 'none'} "
                                    "(inputs merged with the row's columns)")
            return str(variables[key])
        if body.startswith(".") and body[1:] in TEMPLATE_FIELDS:
            return str(fields[body[1:]])
        raise ScievalsError(where, f"template action {{{{{body}}}}} is not supported",
                            "use {{.Vars.<column or input>}}, {{.TaskName}}, {{.JobID}}, "
                            "{{.Timestamp}}, {{.Iteration}} or {{.Attempt}}")

    # One pass over the template text: a value put in is never read as a template again
    # (Go's text/template inserts it verbatim, ``{{ name }}`` inside a CSV value included).
    pieces, last = [], 0
    for match in TEMPLATE_ACTION.finditer(template):
        pieces += [_literal(template[last:match.start()], where), action(match)]
        last = match.end()
    pieces.append(_literal(template[last:], where))
    return "".join(pieces)


def _literal(text: str, where: str) -> str:
    if "{{" in text:
        raise ScievalsError(where, "unclosed template action", "close it with }}")
    return text


@dataclass
class CsvRow:
    id: str
    name: str
    prompt: str
    line: int


def inside(folder: Path, relative: str, where: str, key: str) -> Path:
    """``folder/relative``, refused when absolute, with ``..`` or resolving outside."""
    if not relative or Path(relative).is_absolute() or ".." in Path(relative).parts:
        raise ScievalsError(f"{where}: {key}", f"{relative!r} must be a relative path inside "
                            f"{folder}", "give a path relative to that folder, without '..'")
    path = folder / relative
    if folder.resolve() not in path.resolve().parents:
        raise ScievalsError(f"{where}: {key}", f"{relative!r} resolves outside {folder}",
                            "keep the file inside the folder (no symlink out of it)")
    return path


def read_csv(path: Path) -> tuple[list[list[str]], list[int]]:
    """The records of a CSV file as Go's ``encoding/csv`` reads them (RFC 4180): the whole
    text goes to the CSV reader, so a quoted newline, U+2028 or form feed stays in its
    field (splitting lines first would cut them); ``\\r\\n`` becomes ``\\n``, empty lines
    are skipped, a stray quote after a quoted field is an error. Also the line each
    record starts on, for error messages."""
    reader = csv.reader(io.StringIO(read_user_text(path, newline=""), newline=""),
                        strict=True)
    rows, lines, line = [], [], 1
    try:
        for row in reader:
            if row:
                rows.append([field.replace("\r\n", "\n") for field in row])
                lines.append(line)
            line = reader.line_num + 1
    except csv.Error as exc:
        raise ScievalsError(f"{path}:{reader.line_num}", f"not valid CSV: {exc}",
                            "quote a field holding a comma, quote or newline, and double "
                            "the quotes inside it") from None
    return rows, lines


def csv_tasks(suite_dir: Path, tasks_from: str, inputs: dict[str, str],
              row_range: list[int] | None, where: str, fields: dict[str, Any]) -> list[CsvRow]:
    """One task per data row of the ``tasks_from`` CSV (§2.3): ``id`` = the ``id``
    column, else ``name``, else ``row-N``; prompt = the ``prompt`` column rendered with
    ``inputs`` merged with the row (the row wins)."""
    path = _named_file(inside(suite_dir, tasks_from, where, "tasks_from"),
                       f"{where}: tasks_from", "give a CSV file inside the suite folder")
    rows, lines = read_csv(path)
    if not rows:
        raise ScievalsError(path, "no header row", "the first row names the columns")
    header, data = rows[0], rows[1:]
    for number, row in zip(lines[1:], data, strict=True):
        if len(row) != len(header):
            raise ScievalsError(f"{path}:{number}", f"{len(row)} fields, the header has "
                                f"{len(header)}", "give every row the header's columns")
    start, end = (row_range or [0, 0])
    if [start, end] != [0, 0]:
        if start < 1 or end < 1 or start > end:
            raise ScievalsError(f"{where}: range", f"[{start}, {end}] is not a 1-based "
                                "[start, end] with start <= end", "e.g. range: [1, 20]")
        data_index = range(start - 1, min(end, len(data)))
    else:
        data_index = range(len(data))
    tasks = []
    for index in data_index:
        row = dict(zip(header, data[index], strict=True))
        number = index + 1
        name = row.get("name") or f"row-{number}"
        task_id = row.get("id") or row.get("name") or f"row-{number}"
        prompt = render(row.get("prompt", ""), {**inputs, **row},
                        {**fields, "TaskName": name}, f"{path}:{lines[index + 1]}: prompt")
        tasks.append(CsvRow(task_id, name, prompt, lines[index + 1]))
    return tasks


def read_prompt_file(task_path: Path, relative: str) -> str:
    """``inputs.prompt_file``: relative to the task file's folder, read at load time."""
    path = _named_file(inside(task_path.parent, relative, str(task_path), "inputs.prompt_file"),
                       f"{task_path}: inputs.prompt_file",
                       "give a file relative to the task file's folder")
    return read_user_text(path)


def _named_file(path: Path, where: str, fix: str) -> Path:
    """``path`` when it is a readable regular file; else one line saying what it is (a
    folder, a named pipe, missing), never reading it (a pipe would block)."""
    try:
        return user_file(path)
    except ScievalsError as exc:
        raise ScievalsError(where, f"{path}: {exc.problem}", fix) from None

