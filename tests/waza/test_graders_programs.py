"""`json_schema`, `program` and Python-era `script` graders (specs/waza.md §6.5, §6.6, §6.15)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from scievals.waza.graders.base import (
    GraderConfigError,
    GraderContext,
    GraderError,
)
from scievals.waza.graders.registry import build, grade

SCHEMA = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}


def test_json_schema_match():
    r = grade("json_schema", {"schema": SCHEMA}, GraderContext(output='{"name": "x"}'))
    assert (r.score, r.passed, r.feedback) == (1.0, True, "Output matches JSON schema")


def test_json_schema_violation_scores_zero():
    r = grade("json_schema", {"schema": SCHEMA}, GraderContext(output='{"name": 3}'))
    assert (r.score, r.passed) == (0.0, False)
    assert r.feedback.startswith("Schema validation failed: ")


def test_json_schema_no_code_fence_stripping():
    # §6.5: "The whole output must parse (no code-fence stripping)".
    r = grade("json_schema", {"schema": SCHEMA},
              GraderContext(output='```json\n{"name": "x"}\n```'))
    assert r.score == 0.0
    assert r.feedback.startswith("Output is not valid JSON: ")


def test_json_schema_rejects_nan_like_go():
    # Go's encoding/json has no NaN literal; the output is then not valid JSON.
    r = grade("json_schema", {"schema": {}}, GraderContext(output="NaN"))
    assert r.score == 0.0
    assert r.feedback.startswith("Output is not valid JSON: ")


def test_json_schema_file_and_unreadable_file(tmp_path, monkeypatch):
    (tmp_path / "s.json").write_text(json.dumps(SCHEMA))
    monkeypatch.chdir(tmp_path)  # §6.5: schema_file is CWD-relative
    assert grade("json_schema", {"schema_file": "s.json"},
                 GraderContext(output='{"name": "a"}')).passed is True
    with pytest.raises(GraderError):  # "An unreadable schema file is an error."
        grade("json_schema", {"schema_file": "missing.json"}, GraderContext(output="{}"))


def test_json_schema_needs_a_schema():
    with pytest.raises(GraderConfigError):
        grade("json_schema", {}, GraderContext())


def py(code: str) -> dict:
    return {"command": sys.executable, "args": ["-c", code]}


def test_program_exit_zero_feedback_is_stdout(tmp_path):
    # §6.6: "stdin = agent output; env `WAZA_WORKSPACE_DIR`. Exit 0 -> 1.0 with feedback =
    # trimmed stdout".
    code = ("import os, sys; d = sys.stdin.read(); "
            "print('  got', len(d), os.path.basename(os.environ['WAZA_WORKSPACE_DIR']), ' ')")
    r = grade("program", py(code), GraderContext(output="hello", workspace_dir=tmp_path))
    assert (r.score, r.passed) == (1.0, True)
    assert r.feedback == f"got 5 {tmp_path.name}"


def test_program_silent_success():
    r = grade("program", py("pass"), GraderContext())
    assert r.feedback == "Program exited successfully"


def test_program_nonzero_exit_with_stderr():
    r = grade("program", py("import sys; sys.stderr.write('bad input\\n'); sys.exit(3)"),
              GraderContext())
    assert (r.score, r.passed) == (0.0, False)
    assert r.feedback == "Program exited with error: exit status 3; stderr: bad input"


def test_program_timeout_and_missing_binary():
    r = grade("program", {**py("import time; time.sleep(10)"), "timeout": 1}, GraderContext())
    assert r.feedback == "Program exited with error: signal: killed"
    r = grade("program", {"command": "no-such-binary-waza"}, GraderContext())
    assert r.score == 0.0
    assert r.feedback.startswith("Program exited with error: ")


def test_program_needs_command():
    with pytest.raises(GraderConfigError):
        grade("program", {"args": ["x"]}, GraderContext())


def test_script_json_protocol(tmp_path: Path):
    # §6.15: "`script`: `python <script>` with the GraderContext JSON on stdin ... stdout JSON
    # `{score, passed, message, details}`".
    script = tmp_path / "g.py"
    script.write_text("import json, sys\nc = json.load(sys.stdin)\n"
                      "print(json.dumps({'score': 0.25, 'passed': False, "
                      "'message': 'len ' + str(len(c['output'])), 'details': {'k': 1}}))\n")
    r = grade("script", {"script": str(script)}, GraderContext(output="abcd"))
    assert (r.score, r.passed, r.feedback, r.details) == (0.25, False, "len 4", {"k": 1})


def test_script_failure_scores_zero(tmp_path: Path):
    script = tmp_path / "bad.py"
    script.write_text("raise SystemExit(2)\n")
    r = grade("script", {"script": str(script)}, GraderContext())
    assert (r.score, r.passed) == (0.0, False)
    assert r.feedback.startswith("Script failed")
    assert grade("script", {}, GraderContext()).feedback == "No script path configured"


def test_program_timeout_defaults_to_project_setting():
    # §6.6: "`timeout` (s; default `.waza.yaml graders.programTimeout`, else 30)".
    from scievals.waza.graders.base import GraderOptions

    r = grade("program", py("import time; time.sleep(10)"), GraderContext(),
              GraderOptions(program_timeout=1))
    assert r.feedback == "Program exited with error: signal: killed"


@pytest.mark.parametrize(("reply", "problem"), [
    ('{"score": 1e9, "passed": true}', "score 1000000000.0 is not a finite number in [0, 1]"),
    ('{"score": 0.5, "passed": "false"}', "passed 'false' is not a boolean"),
    ('{"score": NaN, "passed": true}', "score nan is not a finite number"),
    ('{"score": true, "passed": true}', "score True is not a finite number"),
    ('[1]', "the reply is a JSON list, not an object"),
])
def test_script_reply_is_validated(tmp_path: Path, reply: str, problem: str):
    # issue 22: "passed": "false" passed, and a score of 1e9 came back unchanged (a weighted
    # score of 333333331.67 at exit 0); now a grader error naming the grader
    script = tmp_path / "g.py"
    script.write_text(f"print({reply!r})\n")
    with pytest.raises(GraderError, match="script grader 'my_script'") as info:
        build("script", {"script": str(script)}, name="my_script").grade(GraderContext())
    assert problem in str(info.value)


def test_json_schema_extract_json():
    schema = {"type": "object", "required": ["ok"]}
    # one object inside prose / a code block: extracted and validated
    text = 'Here it is:\n```json\n{"ok": true, "items": [1, 2]}\n```\nDone.'
    r = grade("json_schema", {"schema": schema, "extract_json": True}, GraderContext(output=text))
    assert (r.score, r.passed) == (1.0, True)
    # two values, or none: refused with waza's wording
    two = grade("json_schema", {"schema": schema, "extract_json": True},
                GraderContext(output='{"ok": 1} and [2]'))
    assert two.feedback == ("Output must contain exactly one JSON object or array: found "
                            "multiple (2)")
    none = grade("json_schema", {"schema": schema, "extract_json": True},
                 GraderContext(output="no json {here"))
    assert none.feedback.endswith("found zero (0)") and none.score == 0.0
    # without extract_json the prose is not JSON
    assert grade("json_schema", {"schema": schema}, GraderContext(output=text)).passed is False


def test_script_reply_coercions_are_the_documented_ones(tmp_path: Path):
    # docs/waza.md ("script"): a details that is not an object becomes {}, a message that is
    # not a string is str()-ed (absent: ""), and a failed script's stderr is stripped
    script = tmp_path / "g.py"
    script.write_text("print('{\"score\": 1, \"passed\": true, \"message\": 3, \"details\": [1]}')\n")
    r = grade("script", {"script": str(script)}, GraderContext())
    assert (r.score, r.passed, r.feedback, r.details) == (1.0, True, "3", {})
    script.write_text("print('{\"score\": 0.5, \"passed\": false}')\n")
    assert grade("script", {"script": str(script)}, GraderContext()).feedback == ""
    script.write_text("import sys\nsys.stderr.write('  boom \\n')\nsys.exit(1)\n")
    assert grade("script", {"script": str(script)},
                 GraderContext()).feedback == "Script failed: boom"
