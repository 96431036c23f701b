"""``tasks_from`` CSV files read as CSV (RFC 4180, as Go's ``encoding/csv``), never split
into lines first, and prompts rendered in one pass (issue 30, item 3); ``prompt_file`` and
``tasks_from`` that are not regular files named for what they are (item 11)."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scievals.common.errors import ScievalsError
from scievals.waza.format_v1 import read_csv
from scievals.waza.suites import load_suite

EVAL = """\
schemaVersion: "1.4"
name: s
skill: demo
config: {trials_per_task: 1, timeout_seconds: 60, executor: mock}
inputs: {lang: python}
tasks_from: cases.csv
graders:
  - {name: g, type: text, config: {contains: [python]}}
"""


def _csv_suite(tmp: Path, csv_bytes: bytes, eval_text: str = EVAL) -> Path:
    (tmp / "eval.yaml").write_text(eval_text)
    (tmp / "cases.csv").write_bytes(csv_bytes)
    return tmp


def test_quoted_newline_reaches_the_prompt(tmp_path):
    # main split the file with splitlines() first: "Explain this code:def f(x): ..." (the
    # newline deleted), exit 0. A quoted field keeps it, as Go's encoding/csv does.
    text = b'id,prompt\ncode,"Explain this code:\ndef f(x):\n    return x"\nnext,plain\n'
    suite = load_suite(_csv_suite(tmp_path, text))
    assert [t.id for t in suite.tasks] == ["code", "next"]
    assert suite.tasks[0].prompt == "Explain this code:\ndef f(x):\n    return x"
    assert suite.tasks[1].prompt == "plain"


@pytest.mark.parametrize("char", ["\u2028", "\f", "\x1c", "\x85", "\r"])
def test_quoted_line_separators_are_kept(tmp_path, char):
    # main: "1 fields, the header has 2" (splitlines() cuts at U+2028, form feed, ...);
    # Go keeps them in the field (a lone \r too; only \r\n becomes \n)
    text = f'id,prompt\na,"one{char}two"\n'.encode()
    assert load_suite(_csv_suite(tmp_path, text)).tasks[0].prompt == f"one{char}two"


def test_crlf_files_and_quoted_crlf(tmp_path):
    # Go: a \r before \n is removed, inside quotes too; empty lines are skipped
    text = b'id,prompt\r\na,"x\r\ny"\r\n\r\nb,z\r\n'
    suite = load_suite(_csv_suite(tmp_path, text))
    assert [(t.id, t.prompt) for t in suite.tasks] == [("a", "x\ny"), ("b", "z")]


def test_template_braces_inside_a_value_are_inserted_verbatim(tmp_path):
    # main re-read the rendered text and refused "unclosed template action"; Go's
    # text/template inserts a value as it is
    text = b'id,snippet,prompt\na,"Hello {{ name }}, {{","Fix: {{.Vars.snippet}}"\n'
    suite = load_suite(_csv_suite(tmp_path, text))
    assert suite.tasks[0].prompt == "Fix: Hello {{ name }}, {{"


def test_unclosed_action_in_the_prompt_itself_is_still_an_error(tmp_path):
    with pytest.raises(ScievalsError, match=r"cases.csv:2: prompt: unclosed template action"):
        load_suite(_csv_suite(tmp_path, b"id,prompt\na,oops {{ .Vars.lang\n"))


def test_field_count_error_names_the_records_first_line(tmp_path):
    # record 2 spans lines 2-3; record 3 (one field) starts on line 4
    text = b'id,prompt\na,"x\ny"\nlonely\n'
    with pytest.raises(ScievalsError, match=r"cases.csv:4: 1 fields, the header has 2"):
        load_suite(_csv_suite(tmp_path, text))


def test_stray_quote_after_a_quoted_field_is_one_line(tmp_path):
    with pytest.raises(ScievalsError, match=r"cases.csv:2: not valid CSV"):
        load_suite(_csv_suite(tmp_path, b'id,prompt\na,"quoted"tail\n'))


# --- item 11: a FIFO or a folder is said to be one ----------------------------------------

TASK_EVAL = """\
schemaVersion: "1.4"
name: s
skill: demo
config: {trials_per_task: 1, timeout_seconds: 60, executor: mock}
tasks: ["tasks/*.yaml"]
"""


def _prompt_file_suite(tmp: Path) -> Path:
    (tmp / "tasks").mkdir()
    (tmp / "eval.yaml").write_text(TASK_EVAL)
    (tmp / "tasks" / "t.yaml").write_text("id: t\nname: t\ninputs: {prompt_file: p}\n")
    return tmp


def test_prompt_file_fifo_is_named_a_pipe_and_not_opened(tmp_path):
    suite = _prompt_file_suite(tmp_path)
    os.mkfifo(suite / "tasks" / "p")  # opening it for reading would block this test
    with pytest.raises(ScievalsError, match=r"inputs.prompt_file: .*/p: not a regular file "
                       r"\(a named pipe"):
        load_suite(suite)


def test_prompt_file_folder_is_named_a_folder(tmp_path):
    suite = _prompt_file_suite(tmp_path)
    (suite / "tasks" / "p").mkdir()
    with pytest.raises(ScievalsError, match=r"inputs.prompt_file: .*/p: is a folder"):
        load_suite(suite)


def test_tasks_from_fifo_is_named_a_pipe(tmp_path):
    (tmp_path / "eval.yaml").write_text(EVAL)
    os.mkfifo(tmp_path / "cases.csv")
    with pytest.raises(ScievalsError, match=r"tasks_from: .*cases.csv: not a regular file"):
        load_suite(tmp_path)


# --- property: any table the csv module writes reads back field for field ----------------

# Any text but NUL and lone surrogates (refused as file content); quotes, commas, every
# kind of line break and template braces included.
FIELD = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\0"),
                max_size=12)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(FIELD, FIELD), min_size=1, max_size=6))
def test_written_csv_reads_back_unchanged(tmp_path, rows):
    # the reference is the table itself: csv.writer quotes what needs quoting (RFC 4180),
    # so reading must give every field back. Go turns \r\n into \n, so the expected
    # fields do too; a record of one empty field is written as "" and kept.
    buffer = io.StringIO(newline="")
    csv.writer(buffer, quoting=csv.QUOTE_NONNUMERIC).writerows([("a", "b"), *rows])
    path = tmp_path / "t.csv"
    path.write_text(buffer.getvalue(), encoding="utf-8", newline="")
    records, lines = read_csv(path)
    assert records == [["a", "b"]] + [[f.replace("\r\n", "\n") for f in row] for row in rows]
    assert lines[0] == 1 and lines == sorted(set(lines))


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=FIELD)
def test_any_value_is_inserted_verbatim(tmp_path, value):
    buffer = io.StringIO(newline="")
    csv.writer(buffer, quoting=csv.QUOTE_ALL).writerows(
        [("id", "v", "prompt"), ("a", value, "<{{.Vars.v}}>")])
    (tmp_path / "eval.yaml").write_text(EVAL)
    (tmp_path / "cases.csv").write_text(buffer.getvalue(), encoding="utf-8", newline="")
    assert load_suite(tmp_path).tasks[0].prompt == "<" + value.replace("\r\n", "\n") + ">"
