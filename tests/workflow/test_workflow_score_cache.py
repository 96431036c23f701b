"""Kept score tables are served only if they are what was written (issue 34 items 1-3,
scievals.common.score_cache): an edited result never comes back from the cache, an edit to
the scoring code re-scores every table it affects, a damaged kept table is discarded in one
line and scored again."""

from __future__ import annotations

import json
import re
import subprocess

import numpy as np
import pandas as pd
import pytest
from scievals.abdev.constants import DEFAULT_FOLD_COL, PROPERTY_LIST
from scievals.abdev.data import DEMO_CSV
from scievals.abdev.predict import predict_ridge_descriptors
from scievals.common.score_cache import CACHE_DIR

from .conftest import copy_workflow, snakemake

pytestmark = pytest.mark.slow

# one batch job for the own files (byo_score_jobs: 1), so every kept table is its
CONFIG = "benchmarks: [abdev]\nabdev:\n  source: demo\n  byo_score_jobs: 1\n"
OWN = ("own_a", "own_b", "own_c")
BASELINES = ("random", "ridge_descriptors")
JOB = re.compile(r"^\s*(?:local)?rule (\w+):", re.MULTILINE)
BATCH_LOG = "logs/abdev_score_own/0.log"


def run(work, *args, target="abdev"):
    return snakemake(work, target, "--cores", "2", "--configfile", "bench.yaml", *args)


def table(work, model):
    return work / f"results/abdev/scores/{model}.csv"


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """abdev with three own files, scored once (each test works on a copy)."""
    work = copy_workflow(tmp_path_factory.mktemp("score_cache") / "scievals")
    (work / "bench.yaml").write_text(CONFIG, encoding="utf-8")
    own = work / "predictions" / "abdev"
    own.mkdir(parents=True)
    base = predict_ridge_descriptors(pd.read_csv(DEMO_CSV), DEFAULT_FOLD_COL, 42)
    for seed, name in enumerate(OWN, start=1):
        rng = np.random.default_rng(seed)
        noisy = base.copy()
        for prop in PROPERTY_LIST:
            noisy[prop] += rng.normal(scale=noisy[prop].std() * seed / 3, size=len(noisy))
        noisy.to_csv(own / f"{name}.csv", index=False)
    run(work)
    assert "3 own files scored, 0 unchanged ones' tables reused" in (work / BATCH_LOG).read_text()
    return work


@pytest.fixture
def work(scored, tmp_path):
    copy = tmp_path / "scievals"
    # cp -a keeps hard links between the copied files (shutil.copytree makes each its own
    # file), so the copy is the run as it was, whatever links the cache made
    subprocess.run(["cp", "-a", str(scored), str(copy)], check=True)
    return copy


def tables(work, models=OWN + BASELINES):
    return {m: table(work, m).read_bytes() for m in models}


def test_an_edited_result_never_comes_back_from_the_cache(work):
    before = tables(work, OWN)
    # a user edits a result in place (pandas opens the file for writing: same inode)
    edited = pd.read_csv(table(work, "own_a"))
    edited["value"] = 0.999
    edited.to_csv(table(work, "own_a"), index=False)
    # ... then regenerates it the standard way: delete, re-run (a missing table is made again
    # when asked for; a target above it is up to date without it)
    table(work, "own_a").unlink()
    run(work, target="results/abdev/scores/own_a.csv")
    # the batch job ran and gave every file its kept table back: the one written by scoring
    assert "0 own files scored, 3 unchanged ones' tables reused" in (work / BATCH_LOG).read_text()
    assert tables(work, OWN) == before
    assert not (pd.read_csv(table(work, "own_a"))["value"] == 0.999).any()


def intervals(path):
    frame = pd.read_csv(path).dropna(subset=["ci_low", "ci_high"])
    return frame["value"].to_numpy(), (frame["ci_high"] - frame["ci_low"]).to_numpy()


def test_edited_scoring_code_rescores_every_table_even_when_only_some_rules_are_forced(work):
    """One leaderboard never mixes two versions of the code. The runs here set
    SCIEVALS_GIT_COMMIT (conftest.snakemake) and the copy is outside git: no commit name
    changes, only the code."""
    before = {m: intervals(table(work, m)) for m in OWN + BASELINES}
    module = work / "scripts/scievals/stats/intervals.py"
    source = module.read_text()
    assert "\nLEVEL = 0.95\n" in source
    # 90 % intervals instead of 95 %: the intervals of every table narrow
    module.write_text(source.replace("\nLEVEL = 0.95\n", "\nLEVEL = 0.90\n"))
    plan = JOB.findall(snakemake(work, "abdev", "-n", "--cores", "2",
                                 "--configfile", "bench.yaml").stdout)
    # every score job (two baselines, one own batch), though no input and no version changed
    assert sorted(r for r in plan if "score" in r) == ["abdev_score", "abdev_score",
                                                        "abdev_score_own_0"]
    run(work, "--forcerun", "abdev_score")  # forced: the baselines' rule only
    assert "3 own files scored, 0 unchanged ones' tables reused" in (work / BATCH_LOG).read_text()
    for model in OWN + BASELINES:
        (values, widths), (old_values, old_widths) = intervals(table(work, model)), before[model]
        # the same point values (LEVEL sets only the intervals), narrower intervals: the
        # table was made by the edited code
        assert np.array_equal(values, old_values), model
        assert np.median(widths) < np.median(old_widths), model


def test_a_damaged_kept_table_is_discarded_in_one_line_and_scored_again(work):
    before = tables(work, OWN)
    entries = sorted((work / CACHE_DIR).iterdir())
    assert len(entries) == 3  # one per own file
    changed, truncated = entries[0] / "table", entries[1] / "table"
    text = changed.read_text()
    value = float(pd.read_csv(changed)["value"].dropna().iloc[0])
    assert f",{value!r}," in text  # pandas writes the shortest repr of a float
    changed.write_text(text.replace(f",{value!r},", ",0.999,", 1))
    changed_bytes = changed.stat().st_size
    data = truncated.read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    proc = run(work, "--forcerun", "abdev_score_own_0")
    # exit 0 (run() checks it); the two damaged files scored again, the intact one restored
    assert "2 own files scored, 1 unchanged ones' tables reused" in (work / BATCH_LOG).read_text()
    assert tables(work, OWN) == before  # the numbers scoring writes
    said = [n["message"] for n in json.loads((work / "results/run_report.json").read_text())
            ["notices"] if "kept score table(s)" in n["message"]]
    assert len(said) == 1 and "2 kept score table(s)" in said[0], said
    # each named with what differs: its size now and when kept
    for now, then in ((changed_bytes, len(text.encode())), (len(data) // 2, len(data))):
        assert f"table is {now} bytes, {then} when kept" in said[0], said
    assert "2 kept score table(s)" in proc.stdout + proc.stderr  # and on the terminal
    # the damaged entries were replaced by good ones: a later re-run restores all three
    run(work, "--forcerun", "abdev_score_own_0")
    assert "0 own files scored, 3 unchanged ones' tables reused" in (work / BATCH_LOG).read_text()
    assert tables(work, OWN) == before
