"""A batch score job gets back the kept tables of the own files that did not change
(scievals.common.score_cache), and scores only the others."""

from __future__ import annotations

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
