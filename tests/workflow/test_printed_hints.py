"""Every hint the workflow prints at the end of a run works when followed literally.

After the README's quick start (``--cores 2``: the session's ``default_run``, on a copy of
the checkout without produced files; CI's checkout is itself a fresh clone), every command
its "where to look next" lines name runs as printed, and every file they name exists; the
commands' own end-of-run hints are followed the same way, until nothing new is named.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from support.default_run import copy_default_run

from .conftest import quick_start_output

HEADING = re.compile(r"^scievals: (?:where to look next|every result is up to date; where "
                     r"to look):$", re.MULTILINE)
COMMANDS = ("snakemake ", "python -m scievals")


def hints(stderr: str) -> dict[str, str]:
    """The last "where to look" block of a run's output: label -> what it names."""
    found = list(HEADING.finditer(stderr))
    assert found, f"no 'where to look' lines in:\n{stderr[-3000:]}"
    out = {}
    for line in stderr[found[-1].end():].splitlines()[1:]:
        if not line.startswith("  "):
            break
        label, where = re.split(r"\s{2,}", line.strip(), maxsplit=1)
        out[label] = where
    return out


def named(where: str) -> tuple[list[str], list[str]]:
    """(commands, paths) one hint names: ``<path or command>  (<note or command>)``."""
    parts = [p.strip() for p in re.split(r"\s{2,}", where)]
    commands, paths = [], []
    for part in parts:
        text = part[1:-1] if part.startswith("(") and part.endswith(")") else part
        if text.startswith(COMMANDS):
            commands.append(text)
        elif part is parts[0]:
            paths.append(text)
    return commands, paths


def run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    words = shlex.split(command)
    argv = ([sys.executable, "-m", "snakemake", *words[1:]] if words[0] == "snakemake"
            else [sys.executable, *words[1:]])
    env = dict(os.environ, PYTHONPATH=str(cwd / "scripts"), SCIEVALS_GIT_COMMIT="testcommit")
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900, check=False)


def follow_every_hint(workdir: Path, stderr: str) -> set[str]:
    """Run every command the last lines of ``stderr`` name, and those their own last lines
    name, until nothing new is named; every file named must exist. The commands run."""
    followed: set[str] = set()
    pending = [hints(stderr)]
    while pending:
        for label, where in pending.pop().items():
            commands, paths = named(where)
            for path in paths:
                assert (workdir / path).exists(), f"{label}: {path} does not exist"
            for command in commands:
                if command in followed:
                    continue
                followed.add(command)
                proc = run(command, workdir)
                assert proc.returncode == 0, f"{label}: {command}\n{proc.stderr[-4000:]}"
                if command.startswith("snakemake "):
                    pending.append(hints(proc.stderr))
    return followed


def test_hint_parser_reads_the_printed_form():
    text = ("...\nscievals: where to look next:\n"
            "  leaderboard    results/leaderboard.md  (python -m scievals show)\n"
            "  HTML report    snakemake --cores 8 --report results/report.html "
            "--report-after-run\n"
            "  sample viewer  results/report/samples.html  (open in a browser)\n"
            "Complete log(s): x\n")
    found = hints(text)
    assert list(found) == ["leaderboard", "HTML report", "sample viewer"]
    assert named(found["leaderboard"]) == (["python -m scievals show"],
                                           ["results/leaderboard.md"])
    assert named(found["sample viewer"]) == ([], ["results/report/samples.html"])
    assert named(found["HTML report"])[0] == [
        "snakemake --cores 8 --report results/report.html --report-after-run"]


@pytest.mark.slow
def test_every_printed_hint_works_as_printed(default_run, tmp_path):
    # a copy of the session's quick start (its .snakemake records and mtimes kept): the hints
    # build files there, and other tests read the default run as the README's command left it
    copy = tmp_path / "clone"
    copy_default_run(default_run, copy)
    first = quick_start_output(default_run)  # its stdout and stderr
    # Snakemake's own --report alone, before any figure exists: one line naming the command
    early = run("snakemake --report results/report.html", copy)
    assert early.returncode != 0
    assert "--report-after-run" in early.stderr and "Traceback" not in early.stderr
    followed = follow_every_hint(copy, first)
    # the quick start's hints name the report and the sample viewer, and both exist now
    assert any("--report results/report.html" in c for c in followed)
    assert (copy / "results" / "report.html").stat().st_size > 100_000
    assert (copy / "results" / "report" / "samples.html").is_file()
    # after those commands the viewer is current: its hint names the page itself
    assert named(hints(run("snakemake --cores 2 results/summary.csv", copy).stderr)
                 ["sample viewer"]) == ([], ["results/report/samples.html"])
