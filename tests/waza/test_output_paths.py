"""Paths built from suite content stay inside the output folder (issue 30, item 4): on
main ``waza run --transcript-dir out/a/b`` with a task id ``../../../x`` or an absolute
path wrote the transcript JSON there."""

from __future__ import annotations

import json

import pytest
from scievals.cli import main
from scievals.common.errors import ScievalsError
from scievals.waza.suite_paths import file_name_part, output_path

EVAL = """\
schemaVersion: "1.4"
name: s
skill: demo
config: {trials_per_task: 1, timeout_seconds: 60, executor: mock}
tasks_from: cases.csv
"""


def test_hostile_task_ids_write_inside_the_transcript_dir(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    target = tmp_path / "elsewhere"
    (suite / "eval.yaml").write_text(EVAL)
    (suite / "cases.csv").write_text(
        f"id,prompt\n../../../x,one\n{target}/abs,two\nA b,three\na-b,four\n")
    out = tmp_path / "out" / "a" / "b"
    assert main(["waza", "run", str(suite), "--transcript-dir", str(out),
                 "-o", str(tmp_path / "r.json")]) == 0
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.json"))
    # everything but r.json is directly in out/a/b; nothing at tmp/x*, nothing elsewhere
    assert [p for p in written if p.name != "r.json"] == sorted(
        p.relative_to(tmp_path) for p in out.iterdir())
    assert not target.exists() and not list(tmp_path.glob("x*"))
    names = sorted(p.name.rsplit("-", 2)[0] for p in out.iterdir())
    # waza's sanitiser: lower case, space -> "-", only [a-z0-9_-] kept; "A b" and "a-b" give
    # the same name, so the second gets "_" appended instead of overwriting the first
    assert names == sorted(["x", file_name_part(f"{target}/abs"), "a-b", "a-b_"])
    ids = {json.loads(p.read_text())["task_id"] for p in out.iterdir()}
    assert ids == {"../../../x", f"{target}/abs", "A b", "a-b"}  # the content keeps the id


@pytest.mark.parametrize(("text", "name"), [("../../../x", "x"), ("/etc/passwd", "etcpasswd"),
                                            ("My Task", "my-task"), ("...", "unnamed"),
                                            ("", "unnamed"), ("a\\b", "ab")])
def test_file_name_part(text, name):
    assert file_name_part(text) == name


@pytest.mark.parametrize("name", ["../x.json", "/tmp/x.json", "a/b.json", ".."])
def test_output_path_refuses_a_name_that_leaves_the_folder(tmp_path, name):
    with pytest.raises(ScievalsError, match="would be written outside"):
        output_path(tmp_path, name, "here")
    assert output_path(tmp_path, "ok.json", "here") == tmp_path / "ok.json"
