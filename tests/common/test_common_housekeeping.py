"""The workflow's bookkeeping folders (job files, kept score tables) lose what no run used for
MAX_AGE_DAYS, and keep everything a run uses (scievals.common.housekeeping)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from scievals.common import housekeeping, job_spec

DAY = 86400


def aged(path: Path, days: float) -> None:
    stamp = time.time() - days * DAY
    os.utime(path, (stamp, stamp))


def test_only_entries_unused_for_longer_than_the_age_are_removed(tmp_path):
    (tmp_path / "old.json").write_text("{}")
    (tmp_path / "new.json").write_text("{}")
    (tmp_path / "old_dir").mkdir()
    (tmp_path / "old_dir" / "table.csv").write_text("x\n")
    (tmp_path / "new_dir").mkdir()
    aged(tmp_path / "old.json", 31)
    aged(tmp_path / "old_dir", 45)
    aged(tmp_path / "new.json", 29)  # 29 < 30 days: still in use
    assert housekeeping.prune_unused(tmp_path, max_age_days=30) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.json", "new_dir"]


def test_a_missing_folder_prunes_nothing(tmp_path):
    assert housekeeping.prune_unused(tmp_path / "absent") == 0


def test_a_job_file_named_again_by_the_dag_counts_as_used(tmp_path):
    path = Path(job_spec.spec_file('{"rule": "r"}', tmp_path))
    aged(path, 40)
    assert job_spec.spec_file('{"rule": "r"}', tmp_path) == path.as_posix()
    # touched: one day's pruning keeps it (its mtime is now, not 40 days ago)
    assert housekeeping.prune_unused(tmp_path, max_age_days=1) == 0 and path.is_file()


def _old_files(folder: Path, names: list[str]) -> None:
    folder.mkdir(parents=True)
    for name in names:
        (folder / name).write_text("keep me")
        aged(folder / name, 90)


def test_pruning_never_follows_a_symlinked_bookkeeping_folder_out(tmp_path, monkeypatch):
    """Issue 34 item 8: a symlinked .snakemake/scievals-scores had the old files of the folder it
    points to deleted. Every file outside is 90 days old (past the 30-day age): pruning that
    followed a link would remove all six; never following one removes none."""
    outside = tmp_path / "elsewhere"
    _old_files(outside / "scores", ["a.csv", "b.csv"])
    _old_files(outside / "scievals", ["c.json"])
    _old_files(outside / "scievals" / "jobs", ["d.json", "e.json"])
    aged(outside / "scievals" / "jobs", 90)
    work = tmp_path / "work"
    (work / ".snakemake").mkdir(parents=True)
    (work / ".snakemake" / "scievals-scores").symlink_to(outside / "scores")
    (work / ".snakemake" / "scievals").symlink_to(outside / "scievals")  # jobs/ below a link
    monkeypatch.chdir(work)
    assert housekeeping.prune_bookkeeping() == 0
    assert sorted(p.name for p in outside.rglob("*") if p.is_file()) == [
        "a.csv", "b.csv", "c.json", "d.json", "e.json"]
    # the same folders not linked lose their old entries: 2 tables, 2 job files
    for link in (".snakemake/scievals-scores", ".snakemake/scievals"):
        os.unlink(link)
    _old_files(work / ".snakemake" / "scievals-scores", ["a.csv", "b.csv"])
    _old_files(work / ".snakemake" / "scievals" / "jobs", ["d.json", "e.json"])
    assert housekeeping.prune_bookkeeping() == 4


def test_a_symlink_among_the_entries_is_removed_not_followed(tmp_path):
    outside = tmp_path / "elsewhere"
    _old_files(outside, ["x.csv"])
    folder = tmp_path / "scores"
    folder.mkdir()
    (folder / "link").symlink_to(outside)
    os.utime(folder / "link", (0, 0), follow_symlinks=False)
    assert housekeeping.prune_unused(folder) == 1
    assert not (folder / "link").exists() and (outside / "x.csv").is_file()
