"""Graders that read the output as data or hand it to a program:
``json_schema``, ``program`` (Go) and the Python-era ``script``."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema

from scievals.waza.graders.base import (
    GraderConfigError,
    GraderContext,
    GraderError,
    GraderOptions,
    GraderResult,
)
from scievals.waza.graders._common import Config
from scievals.waza.limited import caller_path, run_grader_command

DEFAULT_PROGRAM_TIMEOUT_S = 30


def _reject_constant(name: str):
    """Go's JSON has no NaN/Infinity; Python's would accept them."""
    raise json.JSONDecodeError(f"invalid character {name[0]!r} looking for beginning of value",
                               name, 0)
SCRIPT_TIMEOUT_S = 30


class JsonSchemaGrader:
    """The whole output must be JSON (no code-fence stripping) valid against the schema."""

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("json_schema", config, ("schema", "schema_file", "extract_json"))
        self.schema = cfg.mapping("schema")
        self.schema_file = cfg.str("schema_file")
        self.extract = bool(cfg.bool("extract_json", False))  # current waza (v0.38+)
        if self.schema is None and not self.schema_file:
            raise GraderConfigError(
                "json_schema grader config", "must have either 'schema' or 'schema_file'"
            )
        self._compiled = None

    def grade(self, context: GraderContext) -> GraderResult:
        if self.extract:
            values = extract_json_values(context.output)
            if len(values) != 1:
                found = "zero" if not values else "multiple"
                feedback = ("Output must contain exactly one JSON object or array: found "
                            f"{found} ({len(values)})")
                return GraderResult(0.0, False, feedback, {"found": len(values)})
            value = values[0]
        else:
            try:
                value = json.loads(context.output, parse_constant=_reject_constant)
            except json.JSONDecodeError as exc:
                return GraderResult(0.0, False, f"Output is not valid JSON: {exc}",
                                    {"error": str(exc)})
        validator = self._validator()
        error = jsonschema.exceptions.best_match(validator.iter_errors(value))
        if error is not None:
            where = "/" + "/".join(str(p) for p in error.absolute_path)
            failure = f"Schema validation failed: at '{where}': {error.message}"
            return GraderResult(0.0, False, failure, {"failures": [failure]})
        return GraderResult(1.0, True, "Output matches JSON schema")

    def _validator(self):
        """The compiled schema; an inline one is compiled once, a file is read per grading."""
        if self.schema is not None and self._compiled is not None:
            return self._compiled
        schema = self.schema if self.schema is not None else self._load()
        try:
            validator_cls = jsonschema.validators.validator_for(schema)
            validator_cls.check_schema(schema)
        except jsonschema.SchemaError as exc:
            raise GraderError("json_schema grader", f"failed to compile JSON schema: {exc.message}",
                              "fix the schema") from None
        validator = validator_cls(schema)
        if self.schema is not None:
            self._compiled = validator
        return validator

    def _load(self) -> dict[str, Any]:
        try:
            return json.loads(Path(self.schema_file).read_text())
        except OSError as exc:
            raise GraderError(
                f"json_schema grader: schema_file {self.schema_file}",
                f"failed to read schema file: {exc.strerror}",
                "the path is relative to the working directory",
            ) from None
        except json.JSONDecodeError as exc:
            raise GraderError(
                f"json_schema grader: schema_file {self.schema_file}",
                f"failed to parse schema file: {exc}",
            ) from None


def extract_json_values(text: str) -> list[Any]:
    """Every JSON object or array that decodes from some ``{`` or ``[`` of ``text`` (prose
    or a Markdown code block around it), scanning on after each one found, so the values
    nested inside a found one are not counted again."""
    decoder = json.JSONDecoder(parse_constant=_reject_constant)
    values, index = [], 0
    while index < len(text):
        starts = [i for i in (text.find("{", index), text.find("[", index)) if i >= 0]
        if not starts:
            break
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            index = start + 1
            continue
        values.append(value)
        index = end
    return values


class ProgramGrader:
    """Run a command (no shell) with the output on stdin: exit 0 passes with 1.0."""

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("program", config, ("command", "args", "timeout"))
        self.command = cfg.str("command")
        self.args = cfg.strs("args")
        if not self.command:
            raise GraderConfigError(
                "program grader config: key command", "program grader must have a 'command'"
            )
        timeout = cfg.int("timeout")
        if timeout <= 0:
            timeout = (
                options.program_timeout
                if options and options.program_timeout > 0
                else DEFAULT_PROGRAM_TIMEOUT_S
            )
        self.timeout = timeout

    def grade(self, context: GraderContext) -> GraderResult:
        workspace = str(context.workspace_dir or "")
        details: dict[str, Any] = {
            "command": self.command,
            "args": self.args,
            "workspace_dir": workspace,
        }
        try:
            proc = run_grader_command([caller_path(self.command), *self.args], context,
                                      self.timeout, context.output.encode())
        except FileNotFoundError:
            error = f'exec: "{self.command}": executable file not found in $PATH'
            return self._failed(error, "", "", details)
        except PermissionError:
            return self._failed(f"fork/exec {self.command}: permission denied", "", "", details)
        stdout, stderr = _text(proc.stdout), _text(proc.stderr)
        if proc.timed_out:
            return self._failed("signal: killed", stdout, stderr, details)
        if proc.returncode != 0:
            error = (
                f"signal: {_signal_name(-proc.returncode)}"
                if proc.returncode < 0
                else f"exit status {proc.returncode}"
            )
            return self._failed(error, stdout, stderr, details)
        return GraderResult(
            1.0,
            True,
            stdout or "Program exited successfully",
            {**details, "stdout": stdout, "stderr": stderr},
        )

    @staticmethod
    def _failed(error: str, stdout: str, stderr: str, details: dict) -> GraderResult:
        feedback = f"Program exited with error: {error}"
        if stderr:
            feedback += f"; stderr: {stderr}"
        return GraderResult(
            0.0,
            False,
            feedback,
            {**details, "exit_error": error, "stdout": stdout, "stderr": stderr},
        )


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", "replace").strip()


def _signal_name(number: int) -> str:
    import signal  # only for a grader that a signal ended

    try:
        return {signal.SIGKILL: "killed", signal.SIGTERM: "terminated"}.get(
            signal.Signals(number), signal.Signals(number).name.lower()
        )
    except ValueError:
        return f"signal {number}"


class ScriptGrader:
    """Python era: ``python <script>`` gets the context JSON on stdin and prints
    ``{score, passed, message, details}``; any failure scores 0."""

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("script", config, ("script",))
        self.script = cfg.str("script")
        self.name = (options.grader_name if options else "") or "script"

    def grade(self, context: GraderContext) -> GraderResult:
        if not self.script:
            return GraderResult(0.0, False, "No script path configured")
        payload = json.dumps(
            {
                "task": context.task,
                "transcript": context.transcript,
                "output": context.output,
                "outcome": context.outcome,
                "duration_ms": context.duration_ms,
                "metadata": {},
            }
        )
        try:
            proc = run_grader_command([sys.executable, caller_path(self.script)], context,
                                      SCRIPT_TIMEOUT_S, payload.encode())
        except OSError as exc:
            return GraderResult(0.0, False, f"Script failed: {exc.strerror}")
        if proc.timed_out:
            return GraderResult(0.0, False, "Script timed out")
        if proc.returncode != 0:
            return GraderResult(0.0, False, f"Script failed: {_text(proc.stderr)}")
        try:
            reply = json.loads(proc.stdout)
        except ValueError as exc:
            return GraderResult(0.0, False, f"Script error: {exc}")
        score, passed = self._checked(reply)
        details = reply.get("details", {})
        message = str(reply.get("message", ""))
        return GraderResult(score, passed, message, details if isinstance(details, dict) else {})

    def _checked(self, reply: Any) -> tuple[float, bool]:
        """(score, passed) of a script's reply: ``score`` a finite number in [0, 1] and
        ``passed`` a boolean (absent: 0 and false, as the Python era read them); anything
        else is a grader error naming the grader, never a silently wrong score."""
        where = f"script grader {self.name!r} ({self.script})"
        if not isinstance(reply, dict):
            raise GraderError(where, f"the reply is a JSON {type(reply).__name__}, not an object",
                              'print {"score": 0..1, "passed": true|false, "message": ...}')
        score = reply.get("score", 0.0)
        if (isinstance(score, bool) or not isinstance(score, (int, float))
                or not math.isfinite(score) or not 0.0 <= score <= 1.0):
            raise GraderError(where, f"score {score!r} is not a finite number in [0, 1]",
                              "make the script print a score between 0 and 1")
        passed = reply.get("passed", False)
        if not isinstance(passed, bool):
            raise GraderError(where, f"passed {passed!r} is not a boolean",
                              "make the script print passed as true or false (not a string)")
        return float(score), passed


# The grader types of this family (read by graders.registry).
GRADERS = {
    "json_schema": JsonSchemaGrader,
    "program": ProgramGrader,
    "script": ScriptGrader,
}
