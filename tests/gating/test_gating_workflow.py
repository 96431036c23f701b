"""The gating part of the workflow, end to end with snakemake: baseline, a mock LLM,
a bring-your-own file, a local URL source and an unreachable FlowRepository experiment."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pandas as pd
import pytest
import yaml
from scievals.common.tables import RESULT_COLUMNS
from scievals.gating.paths import REPO_DIR
from scievals.gating.score import MISSING_EXTRA
from support.workflow_copy import copy_workflow

pytestmark = pytest.mark.slow

REPLY = "```json\n" + json.dumps({"name": "All Events", "children": [{"name": "Singlets", "children": [
    {"name": "Live cells", "children": [{"name": "CD3+ T cells", "children": [
        {"name": "CD4+ T cells"}, {"name": "CD8+ T cells"}]}]}]}]}) + "\n```"


def _snakemake(workdir, *args):
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit", FLOWREPOSITORY_CLIENT_ID="")
    proc = subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    return proc


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("gating_wf") / "scievals"
    copy_workflow(REPO_DIR, workdir)
    wsp = workdir / "data/demo/gating/flowkit/8_color_data_set/8_color_ICS.wsp"
    extra = {
        "models": {"mock-llm": {"provider": "mock", "responses": {"OMIP-022": "I cannot predict this.",
                                                                   "*": REPLY}}},
        "gating": {
            "models": ["marker_baseline", "mock-llm"], "contexts": ["minimal"],
            "strategies": ["direct", "cot"], "flowrepository": ["FR-FCM-Z7YM"],
            "download_timeout_s": 2,
            "sources": [{"name": "ics_copy.wsp", "url": str(wsp),
                         "sha256": hashlib.sha256(wsp.read_bytes()).hexdigest()}]},
    }
    (workdir / "extra.yaml").write_text(yaml.safe_dump(extra))
    own = workdir / "predictions" / "gating"
    own.mkdir(parents=True)
    (own / "my_model.jsonl").write_text(json.dumps({"case_id": "OMIP-008", "raw_text": REPLY}) + "\n")
    _snakemake(workdir, "gating", "--cores", "2", "--configfile", "extra.yaml")
    return workdir


def test_summary_rows(run):
    summary = pd.read_csv(run / "results/gating/summary.csv")
    assert list(summary.columns) == RESULT_COLUMNS
    conditions = summary.groupby("model")["condition"].unique().apply(sorted).to_dict()
    assert conditions == {"marker_baseline": ["baseline"], "mock-llm": ["minimal_cot", "minimal_direct"],
                          "my_model": ["user"]}
    # FR-FCM-Z7YM cannot be downloaded offline: one skipped source, in the label of every row.
    assert set(summary["dataset"]) == {"OMIP-verified+OMIP-staging+flowkit-wsp+other-wsp+1-skipped"}
    mock = summary[(summary["model"] == "mock-llm") & (summary["condition"] == "minimal_direct")]
    metrics = mock.set_index("metric")
    assert metrics.loc["parse_success_rate", "value"] == pytest.approx(15 / 16)
    assert metrics.loc["tokens_in", "value"] > 0
    assert set(summary[summary["metric"] == "hierarchy_f1"]["n"]) == {16}
    # Structure accuracy never comes without the share of the truth it was computed on.
    for _, rows in summary.groupby(["model", "condition"]):
        assert {"structure_accuracy", "structure_coverage"} <= set(rows["metric"])
    baseline = summary[summary["model"] == "marker_baseline"].set_index("metric")["value"]
    assert 0 < baseline["structure_coverage"] < 1
    assert summary["ci_low"].dropna().le(summary["value"][summary["ci_low"].notna()] + 1e-12).all()


def test_download_failure_is_one_line_and_the_url_source_is_used(run):
    report = json.loads((run / "data/raw/gating/source.json").read_text())
    failed = {e["source"]: e["reason"] for e in report["sources"] if e["status"] == "failed"}
    assert list(failed) == ["FR-FCM-Z7YM"] and "\n" not in failed["FR-FCM-Z7YM"]
    # ... and said at the end of the run.
    run_report = json.loads((run / "results/run_report.json").read_text())
    said = [n for n in run_report["notices"] if n["kind"] != MISSING_EXTRA]
    assert [n["message"].split(":")[0] for n in said] == ["source FR-FCM-Z7YM skipped", "my_model"]
    # The own file predicts 1 of the 16 cases: said once (not also as unparseable replies).
    assert said[1]["message"].startswith(
        "my_model: no prediction for 15 of 16 items")
    cases = [json.loads(line) for line in (run / "data/curated/gating/cases.jsonl").read_text().splitlines()]
    ids = {c["test_case_id"] for c in cases}
    assert {"WSP-8_color_ICS", "WSP-ics_copy"} <= ids and len(ids) == 16
    copy = next(c for c in cases if c["test_case_id"] == "WSP-ics_copy")
    assert copy["workspace"]["origin"] == "url:ics_copy.wsp"
    assert copy["workspace"]["file"] == "data/raw/gating/sources/ics_copy.wsp"


def test_review_and_per_case_outputs(run):
    per_case = pd.read_csv(run / "results/gating/scores/mock-llm.per_case.csv")
    assert len(per_case) == 16 * 2
    refused = per_case[per_case["case_id"] == "OMIP-022"]
    assert set(refused["task_failure"]) == {"refusal"} and refused["hierarchy_f1"].eq(0).all()
    review = (run / "results/gating/review/mock-llm.md").read_text()
    assert "## WSP-8_color_ICS" in review and "Prediction not parsed" in review
    assert "structure_coverage" in per_case.columns
    byo = pd.read_csv(run / "results/gating/scores/my_model.per_case.csv")
    assert set(byo["parse_status"]) == {"ok", "missing"}
