"""The four benchmark CLIs' check commands share one output style and ``--json``
(scievals.common.output): ``<file>: valid`` or one ``<file>: INVALID: ...`` line per problem,
exit 0 or 1, and the same result as one JSON object."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scievals.cli import main
from scievals.common.output import print_check
from scievals.waza.data import DEMO_DIR, demo_suites

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"


def valid_commands() -> list[tuple[list[str], str]]:
    abdev = str(EXAMPLES / "abdev" / "my_model.csv")
    case = str(EXAMPLES / "gating" / "case.json")
    own = str(EXAMPLES / "autogkb" / "my_model.json")
    suite = str(demo_suites()["code-explainer"].parent)
    return [(["abdev", "validate", "--pred", abdev, "--truth",
              str(ROOT / "data" / "demo" / "abdev" / "GDPa1_demo.csv")], abdev),
            (["gating", "check-cases", case], case),
            (["autogkb", "validate", own], own),
            (["waza", "check", suite], suite)]


def invalid_commands(tmp_path: Path) -> list[tuple[list[str], str]]:
    csv = tmp_path / "semicolons.csv"
    csv.write_text("antibody_name;HIC\nx;1\n")
    case = tmp_path / "case.json"
    case.write_text('{"PMC9": []}')
    own = tmp_path / "own.json"
    own.write_text('{"PMC9": []}')
    suite = str(DEMO_DIR / "invalid" / "waza-interactive-eval.yaml")
    return [(["abdev", "validate", "--pred", str(csv)], str(csv)),
            (["gating", "check-cases", str(case)], str(case)),
            (["autogkb", "validate", str(own)], str(own)),
            (["waza", "check", suite], suite)]


@pytest.mark.parametrize("index", range(4), ids=["abdev", "gating", "autogkb", "waza"])
def test_a_valid_file_is_one_line_and_the_same_json(index, capsys):
    argv, path = valid_commands()[index]
    assert main(argv) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"{path}: valid" or first.startswith(f"{path}: valid (")
    assert main([*argv, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["file"], result["valid"], result["problems"]) == (path, True, [])


@pytest.mark.parametrize("index", range(4), ids=["abdev", "gating", "autogkb", "waza"])
def test_an_invalid_file_names_itself_on_every_line_and_in_json(index, tmp_path, capsys):
    argv, path = invalid_commands(tmp_path)[index]
    assert main(argv) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith(path) for line in lines), lines
    if index < 3:  # a waza suite's problems name the suite's own file instead
        assert all(": INVALID" in line for line in lines), lines
    assert main([*argv, "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["file"] == path and result["valid"] is False
    assert len(result["problems"]) == len(lines)


def test_the_style_itself(capsys):
    assert print_check("f.csv", ["f.csv: no rows", "f.csv:3: bad cell", "x missing"],
                       ["odd"], why="refused") == 1
    assert capsys.readouterr().out.splitlines() == [
        "f.csv: INVALID (refused): no rows", "f.csv:3: INVALID (refused): bad cell",
        "f.csv: INVALID (refused): x missing", "f.csv: warning: odd"]
    assert print_check("f.csv", [], detail="2 rows") == 0
    assert capsys.readouterr().out == "f.csv: valid (2 rows)\n"
