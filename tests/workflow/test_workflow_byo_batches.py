"""Own abdev files are scored a batch per job: byo_score_jobs jobs at most, and adding a file
re-scores only its batch (issue 9 item 6; docs/abdev.md, "Speed")."""

from __future__ import annotations

import re
from collections import Counter

import pandas as pd
import pytest
from scievals.common.workflow import byo_batches

from .conftest import copy_default_run, snakemake

pytestmark = pytest.mark.slow

JOB = re.compile(r"^\s*(?:local)?rule (\w+):", re.MULTILINE)
OWN = [f"own_{c}" for c in "abcdefghij"]


def planned(workdir) -> Counter:
    proc = snakemake(workdir, "-n", "--cores", "2", "results/summary.csv")
    return Counter(JOB.findall(proc.stdout))


def test_own_files_are_scored_in_batches_and_a_new_file_rescores_only_its_batch(
        default_run_template, tmp_path):
    workdir = copy_default_run(default_run_template, tmp_path / "copy")
    own = workdir / "predictions" / "abdev"
    own.mkdir(parents=True, exist_ok=True)
    ridge = pd.read_csv(workdir / "results/abdev/predictions/ridge_descriptors.csv")
    for name in OWN:
        ridge.to_csv(own / f"{name}.csv", index=False)

    batches = byo_batches(OWN, 8)
    plan = planned(workdir)
    assert {r for r in plan if r.startswith("abdev_import")} == {f"abdev_import_own_{k}" for k in batches}
    assert {r for r in plan if r.startswith("abdev_score")} == {f"abdev_score_own_{k}" for k in batches}
    assert all(plan[f"abdev_score_own_{k}"] == 1 for k in batches)
    assert len(batches) < len(OWN)  # 10 files, 8 jobs at most: some jobs score several

    snakemake(workdir, "--cores", "2", "results/summary.csv")
    reference = pd.read_csv(workdir / "results/abdev/scores/ridge_descriptors.csv")
    theirs = reference.set_index(["condition", "metric"])[["value", "ci_low", "ci_high", "n"]].sort_index()
    for name in OWN:  # copies of ridge's predictions score exactly as ridge
        table = pd.read_csv(workdir / f"results/abdev/scores/{name}.csv")
        assert set(table["model"]) == {name}
        mine = table.set_index(["condition", "metric"])[["value", "ci_low", "ci_high", "n"]].sort_index()
        pd.testing.assert_frame_equal(mine, theirs)
    summary = pd.read_csv(workdir / "results/summary.csv")
    assert set(OWN) <= set(summary["model"])

    ridge.to_csv(own / "own_new.csv", index=False)
    after = byo_batches([*OWN, "own_new"], 8)
    (batch,) = [k for k, models in after.items() if "own_new" in models]
    plan = planned(workdir)
    assert {r for r in plan if r.startswith("abdev_import")} == {f"abdev_import_own_{batch}"}
    assert {r for r in plan if r.startswith("abdev_score")} == {f"abdev_score_own_{batch}"}
