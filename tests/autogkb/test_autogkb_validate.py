"""`autogkb validate` and the workflow's import agree: INVALID exactly for a file the import
refuses; what the import accepts but scores 0 is a warning (exit 0)."""

from __future__ import annotations

import json

import pytest
from scievals.autogkb.predict import import_predictions
from scievals.cli import main
from scievals.common.errors import ScievalsError

CASES = ["PMC1", "PMC2", "PMC3"]
ANNOTATION = {"Gene": "CYP2C9", "Drug(s)": "warfarin"}


@pytest.fixture
def cases(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps({
        "case_id": c, "pmid": "1", "title": "t", "text_mode": "evidence", "text": "x",
        "text_licence": "l", "truth": [ANNOTATION]}) + "\n" for c in CASES))
    return path


def _both(tmp_path, cases, content, capsys):
    """(validate's exit code and line, whether the workflow's import accepted the file)."""
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(content))
    code = main(["autogkb", "validate", str(path), "--cases", str(cases)])
    line = capsys.readouterr().out.strip()
    try:
        import_predictions(path, cases, "mine", tmp_path / "out.jsonl")
        accepted = True
    except ScievalsError:
        accepted = False
    return code, line, accepted


def test_missing_articles_and_duplicates_are_accepted_with_warnings(tmp_path, cases, capsys):
    # PMC1 repeats its annotation (accepted, with a notice); PMC2 and PMC3 are missing
    # (scored 0).
    code, line, accepted = _both(tmp_path, cases, {"PMC1": [ANNOTATION, ANNOTATION]}, capsys)
    assert accepted and code == 0
    assert line.startswith(f"{tmp_path / 'mine.json'}: valid (2 warning(s)")
    assert "PMC1: 1 duplicated annotation(s)" in line
    assert "2 article(s) missing (scored 0): PMC2, PMC3" in line


def test_a_file_the_import_refuses_is_invalid(tmp_path, cases, capsys):
    # unknown PMCID; not an object; an entry that is not a list of annotations
    for content in ({"PMC9": [ANNOTATION]}, [ANNOTATION], {c: "none" for c in CASES}):
        code, line, accepted = _both(tmp_path, cases, content, capsys)
        assert not accepted and code == 1
        assert "INVALID (the workflow refuses it)" in line


def test_a_complete_file_is_plain_ok(tmp_path, cases, capsys):
    code, line, accepted = _both(tmp_path, cases, {c: [ANNOTATION] for c in CASES}, capsys)
    assert accepted and code == 0 and line.endswith(": valid")
