"""A batch score job gets back the kept tables of the own files that did not change
(scievals.common.score_cache), and scores only the others."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest
from scievals.common import housekeeping, score_cache
from scievals.common.errors import ScievalsError
from scievals.common.jobs import ScoreJob
from scievals.common.provenance import git_commit
from scievals.common.table_files import write_not_scored


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCIEVALS_GIT_COMMIT", "abc123")
    git_commit.cache_clear()  # read once per process; each test sets its own
    Path("truth.csv").write_text("antibody_name,HIC\nx,1\n")
    Path("own").mkdir()
    yield tmp_path
    git_commit.cache_clear()  # no other test sees this one's commit


def job(name: str, **changes) -> ScoreJob:
    fields = {"benchmark": "abdev", "model": name, "predictions": (Path(f"own/{name}.csv"),),
              "truth": {"truth": Path("truth.csv")},
              "outputs": {"table": Path(f"scores/{name}.csv"),
                          "reference": Path(f"scores/{name}.reference.csv")},
              "bootstrap": {"n_resamples": 1000, "seed": 42}, "config_hash": "c0ffee",
              "settings": {"num_folds": 5}, "origin": f"predictions/abdev/{name}.csv"}
    return ScoreJob(**{**fields, **changes})


def score(jobs, indices, tag):
    """Stand-in for the scorer: each output records which scoring wrote it."""
    for i in indices:
        for name, path in jobs[i].outputs.items():
            path.parent.mkdir(exist_ok=True)
            path.write_text(f"{jobs[i].model} {name} {tag}\n")
        score_cache.keep(jobs[i], keys_of(jobs)[i])


def keys_of(jobs):
    truth = score_cache.truth_digest(jobs[0].truth)
    return [score_cache.job_key(j, "abdev-metrics-v3", truth) for j in jobs]


def test_unchanged_files_get_their_tables_back_and_only_changed_ones_are_scored(folder):
    for name in ("a", "b", "c"):
        Path(f"own/{name}.csv").write_text(f"predictions of {name}\n")
    jobs = [job(n) for n in ("a", "b", "c")]
    todo, keys = score_cache.split(jobs, "abdev-metrics-v3")
    assert todo == [0, 1, 2] and keys == keys_of(jobs)  # nothing kept yet
    score(jobs, todo, "first")

    # Snakemake removes a job's outputs before running it again
    for j in jobs:
        for path in j.outputs.values():
            path.unlink()
    Path("own/b.csv").write_text("predictions of b, edited\n")
    todo, _ = score_cache.split(jobs, "abdev-metrics-v3")
    assert todo == [1]  # only the edited file
    assert Path("scores/a.csv").read_text() == "a table first\n"
    assert Path("scores/c.reference.csv").read_text() == "c reference first\n"
    assert not Path("scores/b.csv").exists()
    # restored tables are newer than the job's inputs (else Snakemake would re-run the job)
    assert os.stat("scores/a.csv").st_mtime >= os.stat("own/b.csv").st_mtime


@pytest.mark.parametrize("change", ["truth", "code", "commit", "settings", "bootstrap",
                                    "config", "model", "origin"])
def test_any_ingredient_of_a_table_changes_its_key(folder, monkeypatch, change):
    Path("own/a.csv").write_text("predictions of a\n")
    truth = score_cache.truth_digest({"truth": Path("truth.csv")})
    before = score_cache.job_key(job("a"), "v1", truth)
    changed, code = job("a"), "v1"
    if change == "truth":
        Path("truth.csv").write_text("antibody_name,HIC\nx,2\n")
        truth = score_cache.truth_digest({"truth": Path("truth.csv")})
    elif change == "code":
        code = "v2"
    elif change == "commit":
        monkeypatch.setenv("SCIEVALS_GIT_COMMIT", "def456")
        git_commit.cache_clear()
    else:
        field = {"settings": ("settings", {"num_folds": 4}),
                 "bootstrap": ("bootstrap", {"n_resamples": 999, "seed": 42}),
                 "config": ("config_hash", "beef"), "model": ("model", "a2"),
                 "origin": ("origin", "elsewhere/a.csv")}[change]
        changed = job("a", **{field[0]: field[1]})
    assert score_cache.job_key(changed, code, truth) != before


def test_the_same_ingredients_give_the_same_key(folder):
    Path("own/a.csv").write_text("predictions of a\n")
    truth = score_cache.truth_digest({"truth": Path("truth.csv")})
    assert score_cache.job_key(job("a"), "v1", truth) == score_cache.job_key(job("a"), "v1", truth)
    assert len(score_cache.job_key(job("a"), "v1", truth)) == 64  # a SHA-256 in hex


def test_an_invalid_files_error_table_is_not_kept(folder):
    """An invalid own file beside valid ones gets its error where its tables would be
    (common.table_files.write_not_scored): it must be checked and reported again next run."""
    Path("own/a.csv").write_text("not a prediction file\n")
    jobs = [job("a")]
    _, keys = score_cache.split(jobs, "v1")
    Path("scores").mkdir()
    for path in jobs[0].outputs.values():
        write_not_scored(path, ScievalsError("own/a.csv", "no antibody_name column", "add it"))
    score_cache.keep(jobs[0], keys[0])
    assert not (score_cache.CACHE_DIR / keys[0]).exists()
    assert score_cache.split(jobs, "v1")[0] == [0]  # scored (and its error said) again


def test_kept_tables_restored_by_a_run_count_as_used(folder):
    Path("own/a.csv").write_text("predictions of a\n")
    jobs = [job("a")]
    todo, _ = score_cache.split(jobs, "abdev-metrics-v3")
    score(jobs, todo, "first")
    kept = score_cache.CACHE_DIR / keys_of(jobs)[0]
    stamp = time.time() - 40 * 86400
    os.utime(kept, (stamp, stamp))
    for path in jobs[0].outputs.values():
        path.unlink()  # as Snakemake does before it runs the job again
    assert score_cache.split(jobs, "abdev-metrics-v3")[0] == []  # restored, not re-scored
    assert housekeeping.prune_unused(score_cache.CACHE_DIR, max_age_days=1) == 0
    assert kept.is_dir()


def scored_once(name="a"):
    """One own file scored and kept; its outputs then removed, as Snakemake does before it
    runs the job again. The kept entry's folder."""
    Path(f"own/{name}.csv").write_text(f"predictions of {name}\n")
    jobs = [job(name)]
    todo, _ = score_cache.split(jobs, "abdev-metrics-v3")
    score(jobs, todo, "first")
    for path in jobs[0].outputs.values():
        path.unlink()
    return jobs, score_cache.CACHE_DIR / keys_of(jobs)[0]


def test_a_result_edited_in_place_does_not_reach_the_kept_copy(folder):
    Path("own/a.csv").write_text("predictions of a\n")
    jobs = [job("a")]
    todo, keys = score_cache.split(jobs, "abdev-metrics-v3")
    score(jobs, todo, "first")
    # an edit in place (open for writing keeps the inode), then delete and re-run
    with open("scores/a.csv", "w") as handle:
        handle.write("a table EDITED\n")
    Path("scores/a.csv").unlink()
    assert score_cache.split(jobs, "abdev-metrics-v3")[0] == []
    assert Path("scores/a.csv").read_text() == "a table first\n"
    # and the other way round: editing the restored table leaves the kept one alone
    with open("scores/a.csv", "w") as handle:
        handle.write("a table EDITED\n")
    assert (score_cache.CACHE_DIR / keys[0] / "table").read_text() == "a table first\n"


def test_each_kept_file_has_its_digest_and_size_recorded(folder):
    Path("own/a.csv").write_text("predictions of a\n")
    jobs = [job("a")]
    todo, keys = score_cache.split(jobs, "abdev-metrics-v3")
    score(jobs, todo, "first")
    recorded = json.loads((score_cache.CACHE_DIR / keys[0] / score_cache.DIGESTS).read_text())
    # the bytes score() wrote, hashed here independently
    assert recorded == {
        "table": {"sha256": hashlib.sha256(b"a table first\n").hexdigest(), "bytes": 14},
        "reference": {"sha256": hashlib.sha256(b"a reference first\n").hexdigest(),
                      "bytes": 18}}


def damage(kept: Path, how: str) -> None:
    table = kept / "table"
    if how == "changed":  # one character, same length
        table.write_text("a table fIrst\n")
    elif how == "truncated":
        table.write_bytes(table.read_bytes()[:5])
    elif how == "missing":
        table.unlink()
    elif how == "unreadable":  # something that is not a file where the table was
        table.unlink()
        table.mkdir()
    elif how == "no digests":
        (kept / score_cache.DIGESTS).unlink()
    elif how == "garbled digests":
        (kept / score_cache.DIGESTS).write_text('{"table": ')


@pytest.mark.parametrize("how", ["changed", "truncated", "missing", "unreadable", "no digests",
                                 "garbled digests"])
def test_a_damaged_entry_is_discarded_scored_again_and_said_once(folder, caplog, how):
    Path("own/b.csv").write_text("predictions of b\n")
    jobs, kept = scored_once("a")
    jobs_b = [job("b")]
    score(jobs_b, score_cache.split(jobs_b, "abdev-metrics-v3")[0], "first")
    for path in jobs_b[0].outputs.values():
        path.unlink()
    damage(kept, how)
    caplog.clear()
    todo, _ = score_cache.split([*jobs, *jobs_b], "abdev-metrics-v3")
    assert todo == [0]  # a is scored again; b, intact, is restored
    assert not kept.exists()  # the entry is gone, so keep() can write a good one
    assert not Path("scores/a.csv").exists()  # nothing of the damaged entry was put back
    assert Path("scores/b.csv").read_text() == "b table first\n"
    said = [r.getMessage() for r in caplog.records if "kept score table" in r.getMessage()]
    assert len(said) == 1 and "1 kept score table(s)" in said[0], said
    # "a table first\n" is 14 bytes
    reason = {"changed": "table changed since it was kept (same size, another SHA-256)",
              "truncated": "table is 5 bytes, 14 when kept",
              "missing": "table unreadable", "unreadable": "table unreadable",
              "no digests": "its digests.json is unreadable",
              "garbled digests": "its digests.json is unreadable"}[how]
    assert f"(predictions/abdev/a.csv: {reason}" in said[0], said
    score(jobs, todo, "second")  # scored and kept again: the next run restores it
    for path in jobs[0].outputs.values():
        path.unlink()
    assert score_cache.split(jobs, "abdev-metrics-v3")[0] == []
    assert Path("scores/a.csv").read_text() == "a table second\n"


def test_several_damaged_entries_are_one_line(folder, caplog):
    names = ("a", "b", "c", "d")
    for name in names:
        Path(f"own/{name}.csv").write_text(f"predictions of {name}\n")
    jobs = [job(n) for n in names]
    score(jobs, score_cache.split(jobs, "abdev-metrics-v3")[0], "first")
    for j in jobs:
        for path in j.outputs.values():
            path.unlink()
    for key in keys_of(jobs):
        damage(score_cache.CACHE_DIR / key, "truncated")
    caplog.clear()
    assert score_cache.split(jobs, "abdev-metrics-v3")[0] == [0, 1, 2, 3]
    said = [r.getMessage() for r in caplog.records if "kept score table" in r.getMessage()]
    # the first three named (score_cache.SHOWN), the fourth counted
    assert len(said) == 1 and "4 kept score table(s)" in said[0], said
    assert [n for n in names if f"predictions/abdev/{n}.csv: table is 5 bytes" in said[0]] == [
        "a", "b", "c"] and said[0].endswith("and 1 more): discarded and scored again")
