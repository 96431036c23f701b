"""Many own files (issue 28, docs/scale.md): a run with more own files than a command line
can name builds its DAG, and adding one file re-runs only that file's score batch and what
reads it."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from scievals.abdev.constants import DEFAULT_FOLD_COL, PROPERTY_LIST
from scievals.abdev.data import DEMO_CSV
from scievals.abdev.predict import predict_ridge_descriptors
from scievals.common.job_spec import SPEC_DIR
from scievals.common.workflow import byo_batches

from .conftest import copy_workflow, snakemake

pytestmark = pytest.mark.slow

JOB = re.compile(r"^\s*(?:local)?rule (\w+):", re.MULTILINE)
CONFIG = "benchmarks: [abdev]\nabdev:\n  source: demo\n"


def abdev_only(tmp_path):
    work = copy_workflow(tmp_path / "scievals")
    (work / "bench.yaml").write_text(CONFIG, encoding="utf-8")
    own = work / "predictions" / "abdev"
    own.mkdir(parents=True)
    return work, own


def planned(work, target="abdev") -> Counter:
    proc = snakemake(work, target, "-n", "--cores", "2", "--configfile", "bench.yaml")
    return Counter(JOB.findall(proc.stdout))


def test_more_own_files_than_a_command_line_names_build_a_dag(tmp_path):
    work, own = abdev_only(tmp_path)
    names = [f"own_{i:05d}" for i in range(3000)]
    for name in names:  # a dry run reads no file, only their names
        (own / f"{name}.csv").touch()
    plan = planned(work)
    # summarize_benchmark's facts name 3,002 tables of 36 bytes or more (108 KB): over the
    # 97 KB that used to stop the dry run; 8 batches (byo_score_jobs), each a copy job and a
    # score job
    assert plan["summarize_benchmark"] == 1 and plan["abdev_comparisons"] == 1
    for step in ("import", "score"):
        assert {r for r in plan if r.startswith(f"abdev_{step}_own_")} == {
            f"abdev_{step}_own_{k}" for k in byo_batches(names, 8)}
    # the summary's facts, over the old bound, went to a job file like every job's
    assert any(p.stat().st_size > 100_000 for p in (work / SPEC_DIR).glob("*.json"))


def _own_file(path, seed):
    base = predict_ridge_descriptors(pd.read_csv(DEMO_CSV), DEFAULT_FOLD_COL, 42)
    rng = np.random.default_rng(seed)
    for prop in PROPERTY_LIST:
        base[prop] = base[prop] + rng.normal(scale=base[prop].std() * seed / 5, size=len(base))
    base.to_csv(path, index=False)


def test_adding_one_own_file_reruns_only_its_batch_and_what_reads_it(tmp_path):
    work, own = abdev_only(tmp_path)
    names = [f"own_{i}" for i in range(5)]
    for seed, name in enumerate(names):
        _own_file(own / f"{name}.csv", seed)
    snakemake(work, "abdev", "--cores", "2", "--configfile", "bench.yaml")
    assert planned(work) == Counter()  # nothing left to do

    # a new file that shares its score batch with an old one (batches: CRC-32 of the name)
    batches = byo_batches(names, 8)
    new = next(f"own_new{j}" for j in range(100)
               if any(f"own_new{j}" in m for k, m in byo_batches([*names, f"own_new{j}"], 8)
                      .items() if k in batches))
    (batch,) = [k for k, models in byo_batches([*names, new], 8).items() if new in models]
    neighbours = batches[batch]
    before = {m: (work / f"results/abdev/scores/{m}.csv").read_bytes() for m in neighbours}
    _own_file(own / f"{new}.csv", 7)
    # the new file's batch (copies, scores); the comparisons and summary that read every
    # model; the benchmark's leaderboard and target. Not the baselines, not the other batches.
    assert planned(work) == Counter({
        f"abdev_import_own_{batch}": 1, f"abdev_score_own_{batch}": 1, "abdev_comparisons": 1,
        "summarize_benchmark": 1, "refresh_summary": 1, "abdev": 1})
    snakemake(work, "abdev", "--cores", "2", "--configfile", "bench.yaml")
    # the batch scored only the new file and gave the others their kept tables back
    log = (work / f"logs/abdev_score_own/{batch}.log").read_text()
    assert f"1 own files scored, {len(neighbours)} unchanged ones' tables reused" in log
    assert before == {m: (work / f"results/abdev/scores/{m}.csv").read_bytes()
                      for m in neighbours}
    assert (work / f"results/abdev/scores/{new}.csv").is_file()
    assert planned(work) == Counter()  # and the kept tables do not look out of date
