"""docs/adding-a-benchmark.md is true: its template, written into a copy of the project as a
fifth benchmark ``toy`` (the doc's files, its registry entry and config section; nothing else
edited), runs through snakemake to its rows in results/summary.csv and the leaderboard."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from support.snakemake_log import complete_log

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "adding-a-benchmark.md"
BLOCK = re.compile(r"^```\w+ file=(\S+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
REGISTRY_END = "\n)\n\nNAMES: tuple[str, ...]"


def template_files(name: str) -> dict[str, str]:
    """Path -> text of every file block of the doc, ``<b>`` replaced by ``name``."""
    return {path.replace("<b>", name): text.replace("<b>", name)
            for path, text in BLOCK.findall(DOC.read_text())}


def copy_project(dest: Path) -> Path:
    """The tracked files of this checkout (as they are on disk), nothing generated."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        source = ROOT / rel
        if source.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / rel)
    return dest


def add_benchmark(project: Path, name: str) -> list[str]:
    """Write the doc's template as benchmark ``name``; returns the files it added or edited."""
    touched = []
    for rel, text in template_files(name).items():
        path = project / rel
        if rel == "scripts/scievals/registry.py":  # the entry goes at the end of REGISTRY
            source = path.read_text()
            assert source.count(REGISTRY_END) == 1
            path.write_text(source.replace(REGISTRY_END, "\n" + text.rstrip() + REGISTRY_END))
        elif rel == "config/config.yaml":  # the section is appended
            path.write_text(path.read_text() + "\n" + text)
        else:
            assert not path.exists(), f"the template would overwrite {rel}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        touched.append(rel)
    return touched


def test_the_doc_states_the_files_its_template_adds():
    """The doc's count (12 added files) = the template's new files (7 package modules, the
    schema, 2 demo files) + the docs page and the test file it leaves to the author."""
    files = template_files("<b>")
    added = [p for p in files if p not in ("scripts/scievals/registry.py", "config/config.yaml")]
    assert len([p for p in added if p.startswith("scripts/scievals/<b>/")]) == 7
    assert sorted(p for p in added if not p.startswith("scripts/")) == [
        "config/schemas/<b>.schema.yaml", "data/demo/<b>/README.md", "data/demo/<b>/cases.csv"]
    assert "adds **12 files**" in DOC.read_text() and len(added) + 2 == 12


@pytest.mark.slow
def test_a_toy_fifth_benchmark_from_the_doc_runs_to_the_summary_and_leaderboard(tmp_path):
    project = copy_project(tmp_path / "scievals")
    touched = add_benchmark(project, "toy")
    assert {p for p in touched if not p.startswith(("scripts/scievals/toy/", "data/demo/toy/",
                                                   "config/schemas/toy."))} == {
        "scripts/scievals/registry.py", "config/config.yaml"}
    # an own prediction file goes through toy_import: every case predicted as 3 words
    own = project / "predictions" / "toy" / "mine.csv"
    own.parent.mkdir(parents=True)
    own.write_text("case_id,prediction\nc1,3\nc2,3\nc3,3\nc4,3\n")
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit")
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "results/summary.csv", "results/leaderboard.md",
         "--cores", "2", "--config", "benchmarks=[abdev,toy]"],
        cwd=project, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    ran = complete_log(proc.stdout + proc.stderr)  # the rule block of every job run
    for rule in ("toy_download", "toy_predict_baseline", "toy_import", "toy_score"):
        assert f"rule {rule}:" in ran, rule

    summary = pd.read_csv(project / "results" / "summary.csv")
    assert set(summary["benchmark"]) == {"abdev", "toy"}
    toy = summary[summary["benchmark"] == "toy"].set_index(["model", "metric"])
    assert set(toy["dataset"]) == {"toy-demo"}
    # Demo cases (answer): "the cat sat" (3), "a well-known fact" (3), "two  spaces here" (3),
    # "one" (1). Baseline = spaces + 1: 3, 3, 4, 1 -> 3 of 4 exact = 0.75, errors 0,0,1,0 ->
    # mean 0.25. Own file (3 everywhere): exact on c1-c3 = 0.75, errors 0,0,0,2 -> 0.5.
    expected = {("toy_baseline", "accuracy"): 0.75, ("toy_baseline", "mean_abs_error"): 0.25,
                ("mine", "accuracy"): 0.75, ("mine", "mean_abs_error"): 0.5}
    for key, value in expected.items():
        row = toy.loc[key]
        assert row["value"] == pytest.approx(value), key
        assert row["ci_low"] <= value <= row["ci_high"] and row["n"] == 4, key
    leaderboard = (project / "results" / "leaderboard.md").read_text()
    assert "toy" in leaderboard and "toy_baseline" in leaderboard and "mine" in leaderboard
    # the per-case table has the contract's name
    assert (project / "results" / "toy" / "scores" / "toy_baseline.per_case.csv").is_file()
    # the registry's default paired comparisons read that per-case table: one row per metric
    # for the pair. Per-case errors baseline 0,0,1,0 vs own 0,0,0,2: differences (a - b) are
    # +-(0,0,1,-2), whose mean is +-0.25 = the difference of the two means (0.25 - 0.5).
    pairs = pd.read_csv(project / "results" / "toy" / "comparisons.csv")
    mae = pairs[pairs["metric"] == "mean_abs_error"].iloc[0]
    assert {mae["arm_a"], mae["arm_b"]} == {"toy_baseline", "mine"} and mae["n"] == 4
    assert mae["diff"] == pytest.approx(mae["value_a"] - mae["value_b"])
    assert abs(mae["diff"]) == pytest.approx(0.25)
    accuracy = pairs[pairs["metric"] == "accuracy"].iloc[0]
    assert accuracy["diff"] == pytest.approx(0.0)  # 0.75 - 0.75
