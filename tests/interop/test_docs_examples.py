"""Every ``python -m scievals`` command in docs/importing-logs.md runs as written (issue 46:
its example named a log that does not exist), from a copy of the repository's logs, with
two kept runs beside them (a full one, then a limited one) for the kept-run examples."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from support.kept_runs import AFTER, BEFORE, NEW, OLD, kept

from scievals.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "importing-logs.md"


def commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return [line.strip() for block in blocks for line in block.splitlines()
            if line.strip().startswith("python -m scievals ")]


def test_the_doc_has_examples_to_run():
    found = commands()
    assert len(found) >= 9
    assert any(" leaderboard " in c and "--html" in c for c in found)
    assert any(c.startswith("python -m scievals compare latest") for c in found)


def test_every_example_runs(tmp_path, monkeypatch, capsys):
    pytest.importorskip("zstandard")  # the .eval logs' entries are zstd
    shutil.copytree(ROOT / "tests" / "interop" / "data", tmp_path / "tests" / "interop" / "data")
    kept(tmp_path / "results" / "runs", OLD, BEFORE)
    kept(tmp_path / "results" / "runs", NEW, AFTER, limited=True)  # latest, not latest-full
    monkeypatch.chdir(tmp_path)
    for command in commands():
        code = main(shlex.split(command, comments=True)[3:])
        out = capsys.readouterr()
        assert code == 0, f"{command}: {out.err}"
        assert out.out.strip(), command
    assert Path("leaderboard-of-logs.html").is_file()
    assert len(list(Path("results/imported").glob("*.csv"))) == 2
