"""The autogkb part of the workflow, end to end with snakemake (offline): the baseline, a mock
LLM, a bring-your-own file, and an `auto` source whose download fails (fallback said at the end)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
import yaml
from scievals.autogkb.data import REPO_DIR, load_articles
from scievals.autogkb.metrics import FIELDS
from scievals.common.tables import RESULT_COLUMNS
from support.workflow_copy import copy_workflow

pytestmark = pytest.mark.slow



@pytest.fixture(scope="module")
def run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("autogkb_wf") / "scievals"
    copy_workflow(REPO_DIR, workdir)
    articles = load_articles()
    truth = {p: [{f: r[f] for f in FIELDS} for r in a["var_pheno_ann"]]
             for p, a in articles.items() if a["var_pheno_ann"]}
    reply = "```json\n" + json.dumps(truth["PMC3839910"]) + "\n```"
    extra = {
        "benchmarks": ["autogkb"],
        "models": {"mock-llm": {"provider": "mock", "responses": {
            "PMC3839910": reply, "*": "No associations are reported."}}},
        "autogkb": {"models": ["autogkb_baseline", "mock-llm"], "source": "auto",
                    "url": str(workdir / "no-such-clinpgx.zip"), "allow_unverified": True},
    }
    (workdir / "extra.yaml").write_text(yaml.safe_dump(extra))
    own = workdir / "predictions" / "autogkb"
    own.mkdir(parents=True)
    (own / "my_model.json").write_text(json.dumps(truth))
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit")
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", "autogkb",
                           "--configfile", "extra.yaml"], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    return workdir, proc


def test_summary_rows(run):
    workdir, _ = run
    summary = pd.read_csv(workdir / "results/autogkb/summary.csv")
    assert list(summary.columns) == RESULT_COLUMNS
    assert set(summary["dataset"]) == {"autogkb-demo-evidence-not-fulltext"}
    conditions = summary.groupby("model")["condition"].unique().apply(sorted).to_dict()
    assert conditions == {"autogkb_baseline": ["baseline"], "mock-llm": ["evidence"],
                          "my_model": ["user"]}
    value = summary.set_index(["model", "metric"])["value"]
    # Own file = the curated rows: 100 on every one of the 17 articles.
    assert value["my_model", "score"] == pytest.approx(100.0)
    # The mock answers one article perfectly and no list for the 16 others: 100 / 17.
    assert value["mock-llm", "score"] == pytest.approx(100 / 17)
    assert value["mock-llm", "parse_success_rate"] == pytest.approx(1 / 17)
    assert set(summary.loc[summary["metric"] == "score", "n"]) == {17}


def test_review_and_fallback_notice(run):
    workdir, proc = run
    review = (workdir / "results/autogkb/review/mock-llm.md").read_text()
    assert "**Parse failure** (scored 0): no JSON list found in the reply" in review
    source = json.loads((workdir / "data/raw/autogkb/source.json").read_text())
    assert source["origin"] == "demo" and "no such file" in source["fallback"]
    # Said again at the end of the run, and kept in the run report.
    tail = "\n".join(proc.stderr.splitlines()[-40:])
    assert "[autogkb] fallback" in tail
    assert "autogkb" in (workdir / "results/run_report.json").read_text()


def test_mostly_unparseable_replies_are_an_end_of_run_notice(run):
    """mock-llm answers 1 of the 17 articles with a list (parse_success_rate 1/17): said at
    the end of the run and kept in the run report, not only in the middle of the log."""
    workdir, proc = run
    tail = "\n".join(proc.stderr.splitlines()[-40:])
    line = ("[autogkb] quality: mock-llm: only 1 of 17 replies could be parsed under evidence")
    assert line in tail
    report = json.loads((workdir / "results/run_report.json").read_text())
    quality = [n for n in report["notices"] if n["kind"] == "quality"]
    assert [n["message"].split(";")[0] for n in quality] == [
        "mock-llm: only 1 of 17 replies could be parsed under evidence"]
    # The own file (every article) and the baseline raise nothing.
    assert "my_model" not in json.dumps(quality)
