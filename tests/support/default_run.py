"""One finished default run per test session, shared by the pytest-xdist workers.

Many workflow tests start from the README's main command (``snakemake --cores 2
results/summary.csv`` on the embedded data, about 25 CPU-s). The first worker that asks for
it runs it once into a template folder under the session's shared temporary folder, holding
a file lock; the other worker waits on the lock, then uses the same folder. A failed run is
recorded there, so the other worker reports it instead of running it again.

Two ways to use it (fixtures registered in tests/conftest.py):

- ``default_run`` (per test): the template itself, to read only. Its files (size and mtime)
  are compared with those the run left, before and after each test, so a test that writes in
  it fails, naming the files, instead of changing what tests in the other worker read.
- ``default_run_template`` (session) with ``copy_default_run(template, dest)``: a copy to
  change. Every file keeps its times (shutil.copy2) and ``.snakemake`` comes along, so for
  Snakemake the copy is the same finished run (``snakemake -n`` has nothing to do; absolute
  paths are nowhere in its metadata), and the run's printed output is put beside it.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from support.snakemake_run import snakemake
from support.workflow_copy import copy_workflow

ROOT = Path(__file__).resolve().parents[2]
COMMAND = ("--cores", "2", "results/summary.csv")
# The template folder's parts: the workflow, and beside it what the run printed, the files
# it left, and whether it is finished (or failed, with why).
WORKFLOW = "scievals"
QUICK_START_OUTPUT = "quick_start_output.txt"
FILES = "files.json"
DONE = "done"
FAILED = "failed.txt"


def session_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary folder of this test session that every xdist worker sees: a worker's
    basetemp is ``<the session's basetemp>/popen-gwN``; without xdist, the basetemp. (A
    pytest started by a test inherits PYTEST_XDIST_WORKER but has a basetemp of its own:
    its parent is shared by every session, so it is not used.)"""
    base = tmp_path_factory.getbasetemp()
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return base.parent if worker and base.name == f"popen-{worker}" else base


def build_once(folder: Path, build: Callable[[Path], None]) -> Path:
    """``folder`` after ``build(folder)`` has run once, by whichever process came first.

    The lock is an flock on a file beside ``folder``: the kernel releases it when its holder
    exits, so a killed build leaves no stale lock, only an unfinished folder, built again."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (folder / FAILED).exists():
            raise AssertionError((folder / FAILED).read_text())
        if not (folder / DONE).exists():
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir()
            try:
                build(folder)
            except Exception as exc:
                (folder / FAILED).write_text(f"the session's shared default run failed "
                                             f"(in {folder}):\n{exc}")
                raise
            (folder / DONE).write_text("")
    return folder


def file_table(root: Path) -> dict[str, list[int]]:
    """Every path under ``root``: [size, mtime_ns] of a file or link, [] of a folder.
    ``__pycache__`` is left out: Python writes it (atomically) when a test imports the
    folder's own package, and nothing reads it as data."""
    table: dict[str, list[int]] = {}
    for top, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        rel = Path(top).relative_to(root)
        for name in folders:
            table[(rel / name).as_posix()] = []
        for name in files:
            info = os.lstat(os.path.join(top, name))
            table[(rel / name).as_posix()] = [info.st_size, info.st_mtime_ns]
    return table


def changed_paths(before: dict[str, list[int]], after: dict[str, list[int]]) -> list[str]:
    """The paths added, removed or changed between two ``file_table``s, each marked."""
    added = [f"+{p}" for p in sorted(after.keys() - before.keys())]
    removed = [f"-{p}" for p in sorted(before.keys() - after.keys())]
    changed = [f"~{p}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]]
    return added + removed + changed


def run_default(folder: Path, root: Path = ROOT) -> None:
    """The README's main command in a fresh copy of ``root`` under ``folder``."""
    workdir = copy_workflow(root, folder / WORKFLOW)
    proc = snakemake(workdir, *COMMAND)
    (folder / QUICK_START_OUTPUT).write_text(proc.stdout + proc.stderr)
    (folder / FILES).write_text(json.dumps(file_table(workdir)))


def changes_since_run(template: Path) -> list[str]:
    """What differs in ``template`` from what the default run left (empty: nothing)."""
    left = json.loads((template.parent / FILES).read_text())
    return changed_paths(left, file_table(template))


def assert_untouched(template: Path, when: str) -> None:
    changes = changes_since_run(template)
    assert not changes, (
        f"the shared default run {template} was written in ({when}): {changes[:10]}. A test "
        f"that changes it must work on a copy: support.default_run.copy_default_run("
        f"default_run_template, tmp_path / 'x')")


def copy_default_run(template: Path, dest: Path) -> Path:
    """A copy of the finished default run at ``dest`` (which must not exist), its printed
    output beside it (``quick_start_output(dest)``)."""
    shutil.copytree(template, dest, symlinks=True)
    shutil.copy2(template.parent / QUICK_START_OUTPUT, dest.parent / QUICK_START_OUTPUT)
    return dest


def quick_start_output(workdir: Path) -> str:
    """What the default run printed (stdout, then stderr), for the template or a copy."""
    return (workdir.parent / QUICK_START_OUTPUT).read_text()


@pytest.fixture(scope="session")
def default_run_template(tmp_path_factory) -> Path:
    """The finished default run of this session (both xdist workers share it). Do not
    change it: copy it with ``copy_default_run`` first; tests that only read use
    ``default_run``."""
    return build_once(session_folder(tmp_path_factory) / "default_run", run_default) / WORKFLOW


@pytest.fixture
def default_run(default_run_template):
    """The finished default run, to read only: fails if its files differ from what the run
    left, before the test (an earlier test wrote in it) or after (this test, or one running
    at the same time in the other worker, did)."""
    assert_untouched(default_run_template, "before this test: an earlier test did")
    yield default_run_template
    assert_untouched(default_run_template, "by this test, or one running at the same time "
                                           "in the other worker")
