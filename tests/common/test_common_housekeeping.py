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
