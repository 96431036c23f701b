"""After a benchmark target the merged summary and the leaderboard are current (issue 21
item 1): `snakemake gating` with a new own file refreshes results/summary.csv and
results/leaderboard.md, keeping the rows abdev's last run left, and `show gating` lists it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from scievals.common.tables import read_result_table

from .conftest import copy_workflow, snakemake

pytestmark = pytest.mark.slow

# One case, a hierarchy written out (the own-file format of docs/gating.md).
TREE = {"name": "All Events", "children": [{"name": "Singlets", "children": [
    {"name": "Live cells", "children": [{"name": "CD3+ T cells"}]}]}]}


def _own_file(workdir, model):
    folder = workdir / "predictions" / "gating"
    folder.mkdir(parents=True, exist_ok=True)
    line = {"case_id": "OMIP-008", "raw_text": "```json\n" + json.dumps(TREE) + "\n```"}
    (folder / f"{model}.jsonl").write_text(json.dumps(line) + "\n")


def _show(workdir, *benchmarks):
    env = dict(os.environ, PYTHONPATH=str(workdir / "scripts"))
    proc = subprocess.run([sys.executable, "-m", "scievals", "show", "--format", "markdown",
                           *benchmarks], cwd=workdir,
                          env=env, capture_output=True, text=True, timeout=120, check=True)
    return proc.stdout


def _models(markdown: str) -> set[str]:
    column = 2 if "| rank |" in markdown else 1  # the rank column comes first when ranked
    return {line.split("|")[column].strip() for line in markdown.splitlines()
            if line.startswith("| ") and not line.startswith(("| model", "| rank"))
            and "---" not in line}


def _rows(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["model", "condition", "metric"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    workdir = copy_workflow(tmp_path_factory.mktemp("target") / "scievals")
    snakemake(workdir, "--cores", "2", "abdev")
    return workdir


def test_a_benchmark_target_refreshes_the_merged_summary_and_show(workdir):
    # abdev alone: the merged summary holds abdev's rows and nothing else yet
    merged = read_result_table(workdir / "results/summary.csv")
    assert set(merged["benchmark"]) == {"abdev"}
    _own_file(workdir, "my_model")
    snakemake(workdir, "--cores", "2", "gating")
    merged = read_result_table(workdir / "results/summary.csv")
    assert set(merged["benchmark"]) == {"abdev", "gating"}
    # each benchmark's rows in the merged summary are its own summary's rows, unchanged
    for name in ("abdev", "gating"):
        own = read_result_table(workdir / f"results/{name}/summary.csv")
        pd.testing.assert_frame_equal(_rows(merged[merged["benchmark"] == name]), _rows(own))
    assert "my_model" in set(merged["model"])
    assert "my_model" in _models(_show(workdir, "gating"))
    board = (workdir / "results/leaderboard.md").read_text()
    assert "## abdev" in board and "## gating" in board and "| my_model |" in board
    # its own leaderboard, the target's output
    assert "my_model" in _models((workdir / "results/gating/leaderboard.md").read_text())


def test_the_next_own_file_is_listed_after_the_next_target(workdir):
    _own_file(workdir, "second_model")
    snakemake(workdir, "--cores", "2", "gating")
    assert {"my_model", "second_model"} <= _models(_show(workdir, "gating"))
    # the history kept each distinct merged summary: abdev alone, + my_model, + second_model
    index = pd.read_csv(workdir / "results/history/index.csv")
    assert list(index["benchmarks"]) == ["abdev", "abdev;gating", "abdev;gating"]
    # a no-op target re-runs nothing and records nothing
    proc = snakemake(workdir, "--cores", "2", "gating")
    assert "Nothing to be done" in proc.stdout + proc.stderr
    assert len(pd.read_csv(workdir / "results/history/index.csv")) == 3
