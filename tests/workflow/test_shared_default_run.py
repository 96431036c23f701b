"""The session's shared default run (tests/support/default_run.py): built once however many
workers ask, a failure reported to each without a second attempt, a test that writes in it
caught, and a copy that is the same finished run, file by file."""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from pathlib import Path

import pytest
from support.default_run import (
    DONE,
    FAILED,
    FILES,
    QUICK_START_OUTPUT,
    assert_untouched,
    build_once,
    changed_paths,
    copy_default_run,
    file_table,
    quick_start_output,
    session_folder,
)


def _slow_build(folder: Path) -> None:
    """Counts itself in a file beside ``folder`` (which every attempt would rebuild)."""
    with open(folder.parent / "builds.txt", "a") as log:
        log.write(f"{os.getpid()} start {time.time()}\n")
    time.sleep(1.0)
    (folder / "made").write_text("x")
    with open(folder.parent / "builds.txt", "a") as log:
        log.write(f"{os.getpid()} end {time.time()}\n")


def _ask(folder: Path, results) -> None:
    build_once(folder, _slow_build)
    results.put((os.getpid(), time.time(), (folder / "made").read_text()))


def test_two_processes_asking_at_once_build_once_and_the_second_waits(tmp_path):
    folder = tmp_path / "template"
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    workers = [context.Process(target=_ask, args=(folder, results)) for _ in range(2)]
    for worker in workers:
        worker.start()
    got = [results.get(timeout=60) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    lines = (tmp_path / "builds.txt").read_text().splitlines()
    assert [line.split()[1] for line in lines] == ["start", "end"]  # one build, not two
    built_at = float(lines[1].split()[2])
    # both see the finished folder, and neither returned before the build ended
    assert [made for _, _, made in got] == ["x", "x"]
    assert min(at for _, at, _ in got) >= built_at
    assert (folder / DONE).exists()


def test_a_failed_build_is_reported_to_the_next_asker_without_a_second_attempt(tmp_path):
    folder = tmp_path / "template"
    calls = []

    def broken(where: Path) -> None:
        calls.append(where)
        raise AssertionError("snakemake --cores 2 results/summary.csv failed: rule x")

    with pytest.raises(AssertionError, match="rule x"):
        build_once(folder, broken)
    with pytest.raises(AssertionError, match=r"shared default run failed[\s\S]*rule x"):
        build_once(folder, broken)
    assert len(calls) == 1 and (folder / FAILED).exists()


def test_a_build_killed_half_way_is_started_again_from_an_empty_folder(tmp_path):
    folder = tmp_path / "template"
    folder.mkdir()
    (folder / "half-written").write_text("left by a killed worker (no done marker)")
    build_once(folder, lambda where: (where / "made").write_text("y"))
    assert sorted(p.name for p in folder.iterdir()) == [DONE, "made"]
    build_once(folder, lambda where: pytest.fail("built twice"))  # done: reused


def test_session_folder_is_the_parent_of_a_workers_basetemp(tmp_path, monkeypatch):
    class Factory:
        def __init__(self, name: str) -> None:
            self.base = tmp_path / name

        def getbasetemp(self) -> Path:
            return self.base

    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert session_folder(Factory("popen-gw1")) == tmp_path
    # a pytest started by a test in that worker: the variable, but a basetemp of its own
    assert session_folder(Factory("pytest-7")) == tmp_path / "pytest-7"
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert session_folder(Factory("pytest-7")) == tmp_path / "pytest-7"


def test_changed_paths_marks_added_removed_and_changed_files_but_not_pycache(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "summary.csv").write_text("a,b\n")
    (tmp_path / "old.log").write_text("x")
    (tmp_path / "same.txt").write_text("same")
    before = file_table(tmp_path)
    assert before["results"] == [] and before["same.txt"][0] == 4
    (tmp_path / "results" / "summary.csv").write_text("a,c\n")  # same size, new mtime
    os.utime(tmp_path / "results" / "summary.csv", ns=(0, 1))
    (tmp_path / "old.log").unlink()
    (tmp_path / "new").mkdir()
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"\0")
    assert changed_paths(before, file_table(tmp_path)) == [
        "+new", "-old.log", "~results/summary.csv"]


def test_a_test_that_writes_in_the_shared_run_is_named_what_it_wrote(tmp_path):
    template = tmp_path / "scievals"
    (template / "results").mkdir(parents=True)
    (template / "results" / "summary.csv").write_text("a\n")
    (tmp_path / FILES).write_text(json.dumps(file_table(template)))
    assert_untouched(template, "before this test")
    (template / "results" / "mine.csv").write_text("b\n")
    with pytest.raises(AssertionError, match=r"written in \(by this test\): \['\+results/mine.csv'\]"
                                             r"[\s\S]*copy_default_run"):
        assert_untouched(template, "by this test")


@pytest.mark.slow
def test_a_copy_of_the_default_run_has_every_file_with_its_times_and_the_output(
        default_run_template, tmp_path):
    copy = copy_default_run(default_run_template, tmp_path / "elsewhere" / "scievals")
    # every file, .snakemake's metadata included, with its size and mtime (what Snakemake
    # compares; test_workflow_code_versions and test_workflow_default run it on copies)
    assert file_table(copy) == file_table(default_run_template)
    assert any(p.startswith(".snakemake/metadata/") for p in file_table(copy))
    assert quick_start_output(copy) == quick_start_output(default_run_template)
    assert (copy.parent / QUICK_START_OUTPUT).is_file()
    assert "scievals: where to look next:" in quick_start_output(copy)
