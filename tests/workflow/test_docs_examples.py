"""docs/examples' own prediction files, copied in with the README's own lines, are scored by
the workflow with the numbers their construction implies."""

from __future__ import annotations

import subprocess

import pandas as pd
import pytest

from .conftest import copy_default_run, snakemake
from .test_readme_commands import BASH

pytestmark = pytest.mark.slow

COPIES = [cmd for cmd in BASH if cmd[0] in ("mkdir", "cp")
          and any(w.startswith("docs/examples/") or w.startswith("predictions/") for w in cmd)]


@pytest.fixture(scope="module")
def run(default_run_template, tmp_path_factory):
    # the README's order: the quick start (the session's run, copied), then own files
    workdir = copy_default_run(default_run_template,
                               tmp_path_factory.mktemp("examples") / "scievals")
    for cmd in COPIES:
        subprocess.run(cmd, cwd=workdir, check=True)
    proc = snakemake(workdir, "--cores", "2", "gating", "autogkb", "waza")
    return workdir, proc


def _rows(workdir, benchmark: str) -> pd.DataFrame:
    summary = pd.read_csv(workdir / f"results/{benchmark}/summary.csv", keep_default_na=False,
                          na_values=[""])
    return summary[summary["model"] == "my_model"]


def test_the_readme_copies_every_own_example():
    copied = {w for cmd in COPIES if cmd[0] == "cp" for w in cmd if w.startswith("docs/")}
    assert copied == {"docs/examples/abdev/my_model.csv", "docs/examples/gating/my_model.jsonl",
                      "docs/examples/autogkb/my_model.json", "docs/examples/waza/my_model.json"}


def test_gating_example_scores_with_precision_one(run):
    workdir, _ = run
    value = _rows(workdir, "gating").set_index("metric")["value"]
    # Every predicted gate is a true gate (the truth cut at four levels): precision 1, no
    # hallucination; the deeper gates are missed, so recall is below 1.
    assert value["hierarchy_precision"] == pytest.approx(1.0)
    assert value["hallucination_rate"] == pytest.approx(0.0)
    assert value["hierarchy_recall"] < 1.0
    assert value["parse_success_rate"] == pytest.approx(1.0)  # OMIP-008's raw reply parses too


def test_autogkb_example_matches_every_field_but_one(run):
    workdir, _ = run
    rows = _rows(workdir, "autogkb").set_index("metric")
    assert rows.loc["parse_success_rate", "value"] == pytest.approx(1.0)
    assert rows.loc["score", "n"] == 17  # every demo article
    assert rows.loc["field_similarity.gene", "value"] == pytest.approx(1.0)
    assert rows.loc["field_similarity.direction_of_effect", "value"] < 1.0


def test_waza_example_passes_its_four_tasks(run):
    workdir, proc = run
    rows = _rows(workdir, "waza")
    code = rows[rows["dataset"].str.startswith("code-explainer")].set_index("metric")
    # Four answers, each longer than 10 characters and naming no error: all pass (4 / 4).
    assert code.loc["pass_rate", "value"] == pytest.approx(1.0)
    assert code.loc["pass_rate", "n"] == 4
    # Complete files: no end-of-run notice about missing items.
    assert "my_model: no prediction" not in proc.stderr
