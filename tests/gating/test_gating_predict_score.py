"""Predict (baseline, mock LLM through the real LLM layer) and score to tables."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from scipy import stats
from scievals.common.errors import ScievalsError
from scievals.common.io import read_json, read_jsonl, write_jsonl
from scievals.common.provenance import Provenance
from scievals.common.tables import RESULT_COLUMNS
from scievals.gating import predict as P
from scievals.gating.curate import build_cases
from scievals.gating.metrics import SEMANTIC_METRICS
from scievals.gating.paths import OMIP_VERIFIED_DIR, semantic_installed
from scievals.gating.score import TABLE_METRICS, score_model
from scievals.llm.base import LLMResponse, Usage
from scievals.stats.calibration import METRICS as CALIBRATION

GOOD = json.dumps({"name": "All Events", "children": [{"name": "Singlets", "children": [
    {"name": "Live cells", "children": [{"name": "CD3+ T cells", "children": [
        {"name": "CD4+ T cells"}, {"name": "CD38+"}]}]}]}]})
PROV = Provenance(benchmark="gating", dataset="OMIP-verified", dataset_sha256="0" * 64,
                  config_hash="abc123def456", git_commit="testcommit")
BOOT = {"n_resamples": 200, "seed": 7}


@pytest.fixture(scope="module")
def cases_jsonl(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cases")
    build_cases([OMIP_VERIFIED_DIR], None, tmp / "cases.jsonl", tmp / "curation.json")
    return tmp / "cases.jsonl"


def _config(tmp_path, models=None, contexts=("minimal", "rich"), strategies=("direct", "cot")):
    return {"models": models or {"marker_baseline": {"provider": "baseline"}},
            "llm": {"cache_dir": str(tmp_path / "cache")},
            "gating": {"contexts": list(contexts), "strategies": list(strategies)}}


def test_baseline_predictions_one_per_case(cases_jsonl, tmp_path):
    out, usage = tmp_path / "pred.jsonl", tmp_path / "usage.json"
    records = P.run(cases_jsonl, "marker_baseline", _config(tmp_path), out, usage)
    assert len(records) == 10 and {r["condition"] for r in records} == {"baseline"}
    assert all(r["parse_status"] == "ok" and r["parse_method"] == "baseline" for r in records)
    assert read_jsonl(out) == json.loads(json.dumps(records))
    assert read_json(usage)["total"]["provider"] == "baseline"


def test_unknown_baseline_is_an_error(cases_jsonl, tmp_path):
    config = _config(tmp_path, {"coin_flip": {"provider": "baseline"}})
    with pytest.raises(ScievalsError, match="no gating baseline"):
        P.run(cases_jsonl, "coin_flip", config, tmp_path / "p.jsonl", tmp_path / "u.json")


def test_mock_llm_through_the_llm_layer(cases_jsonl, tmp_path):
    models = {"mock-llm": {"provider": "mock", "responses": {
        "OMIP-008": "```json\n" + GOOD + "\n```", "OMIP-022": "I cannot predict this.",
        "*": "All Events\n  Singlets\n    Live\n      CD3+\n"}}}
    out, usage = tmp_path / "pred.jsonl", tmp_path / "usage.json"
    records = P.run(cases_jsonl, "mock-llm", _config(tmp_path, models), out, usage)
    assert len(records) == 10 * 4
    assert {r["condition"] for r in records} == {"minimal_direct", "minimal_cot", "rich_direct", "rich_cot"}
    by_case = {(r["case_id"], r["condition"]): r for r in records}
    good = by_case[("OMIP-008", "rich_cot")]
    assert (good["parse_status"], good["parse_method"]) == ("ok", "json_fence")
    assert good["raw_text"].startswith("```json") and good["prompt_sha256"]
    refused = by_case[("OMIP-022", "minimal_direct")]
    assert refused["parse_status"] == "failed" and refused["task_failure"] == "refusal"
    assert by_case[("OMIP-074", "minimal_cot")]["parse_method"] == "indented_text"
    summary = read_json(usage)
    assert summary["total"]["requests"] == 40 and set(summary["conditions"]) == {
        "minimal_direct", "minimal_cot", "rich_direct", "rich_cot"}
    # A second run is answered from the cache.
    P.run(cases_jsonl, "mock-llm", _config(tmp_path, models), out, usage)
    assert read_json(usage)["total"]["cache_hits"] == 40


def test_llm_errors_become_failed_predictions(cases_jsonl, tmp_path, monkeypatch):
    from scievals.llm import runner
    from scievals.llm.usage import summarize_usage

    def fake_run_batch(spec, requests, settings, scope, records_path=None, label=""):
        responses = [LLMResponse(case_id=r.case_id, text=None if i % 2 else GOOD,
                                 error="rate limited" if i % 2 else None,
                                 usage=Usage(tokens_in=10, tokens_out=5))
                     for i, r in enumerate(requests)]
        return runner.BatchResult(responses=responses, usage=summarize_usage(spec, responses))

    monkeypatch.setattr(runner, "run_batch", fake_run_batch)
    models = {"fake": {"provider": "openai", "model": "x", "base_url": "http://127.0.0.1:9"}}
    records = P.run(cases_jsonl, "fake", _config(tmp_path, models, ("standard",), ("direct",)),
                    tmp_path / "p.jsonl", tmp_path / "u.json")
    errors = [r for r in records if r["error"]]
    assert len(errors) == 5 and all(r["task_failure"] == "error" and r["hierarchy"] is None for r in errors)


def test_score_model_tables(cases_jsonl, tmp_path):
    pred = tmp_path / "pred.jsonl"
    P.run(cases_jsonl, "marker_baseline", _config(tmp_path), pred, tmp_path / "usage.json")
    out, per_case, review = tmp_path / "scores.csv", tmp_path / "per_case.csv", tmp_path / "review.md"
    score_model(cases_jsonl, pred, PROV, BOOT, out, per_case, review)
    table = pd.read_csv(out)
    assert list(table.columns) == RESULT_COLUMNS
    # the marker baseline states a confidence per gate: calibration rows beside the metrics
    # (and the semantic F1s where the MiniLM weights are installed)
    semantic = set(SEMANTIC_METRICS) if semantic_installed() else set()
    assert set(table["metric"]) == set(TABLE_METRICS) | set(CALIBRATION) | semantic
    table = table[table["metric"].isin(TABLE_METRICS)]
    assert set(table["condition"]) == {"baseline"} and set(table["n"]) == {10}
    f1 = table.set_index("metric").loc["hierarchy_f1"]
    per = pd.read_csv(per_case)
    assert f1["value"] == pytest.approx(per["hierarchy_f1"].mean())
    assert f1["ci_low"] <= f1["value"] <= f1["ci_high"]
    assert table.set_index("metric").loc["hallucination_rate", "value"] == 0.0
    assert table.set_index("metric").loc["parse_success_rate", "value"] == 1.0
    # The default interval of a mean over cases is the effective-n Wilson interval in the
    # metric's range [0, 1] (no resampling, so the seed does not matter): Wilson's formula
    # with n_eff = n m (1 - m) / s^2, s^2 = (SS + m (1 - m)) / (n + 1), z = t(0.975, 5 (n - 1))
    values = per["hierarchy_f1"]
    n, m = len(values), values.mean()
    s2 = (((values - m) ** 2).sum() + m * (1 - m)) / (n + 1)
    neff, z = n * m * (1 - m) / s2, stats.t.ppf(0.975, 5 * (n - 1))
    centre = (m + z**2 / (2 * neff)) / (1 + z**2 / neff)
    half = z * (m * (1 - m) / neff + z**2 / (4 * neff**2)) ** 0.5 / (1 + z**2 / neff)
    assert (f1["ci_low"], f1["ci_high"]) == pytest.approx((centre - half, centre + half))
    assert f1["ci_method"] == "wilson-ess"
    # every case 0: not a zero-width [0, 0] but Wilson's [0, z^2 / (n + z^2)]
    rate = table.set_index("metric").loc["hallucination_rate"]
    assert rate["ci_low"] == 0.0 and rate["ci_high"] == pytest.approx(z**2 / (n + z**2))
    score_model(cases_jsonl, pred, PROV, {**BOOT, "seed": 8}, tmp_path / "again.csv", per_case,
                review)
    # (the calibration rows' cluster bootstrap is seeded: only the means' rows are compared)
    again = pd.read_csv(tmp_path / "again.csv")
    pd.testing.assert_frame_equal(again[again["metric"].isin(TABLE_METRICS)],
                                  pd.read_csv(out).pipe(lambda t: t[t["metric"].isin(
                                      TABLE_METRICS)]))
    # bootstrap.method bca: seeded, so the same call repeats and another seed differs
    bca = {"n_resamples": 200, "seed": 1, "method": "bca"}
    for name, boot in (("bca1.csv", bca), ("bca1b.csv", bca), ("bca8.csv", {**bca, "seed": 8})):
        score_model(cases_jsonl, pred, PROV, boot, tmp_path / name, per_case, review)
    assert (tmp_path / "bca1.csv").read_text() == (tmp_path / "bca1b.csv").read_text()
    assert (pd.read_csv(tmp_path / "bca8.csv")["ci_low"].tolist()
            != pd.read_csv(tmp_path / "bca1.csv")["ci_low"].tolist())
    # bca, except metrics whose cases all scored alike (a zero-width bootstrap): those keep
    # the effective-n Wilson interval
    bca_table = pd.read_csv(tmp_path / "bca1.csv").dropna(subset=["ci_method"])
    bca_table = bca_table[bca_table["metric"].isin(TABLE_METRICS)]
    assert set(bca_table["ci_method"]) == {"bca", "wilson-ess"}
    assert (bca_table.loc[bca_table["ci_method"] == "wilson-ess", "ci_low"]
            < bca_table.loc[bca_table["ci_method"] == "wilson-ess", "ci_high"]).all()
    text = review.read_text()
    assert "## OMIP-008" in text and "<pre>All Events" in text and "✓" in text


def test_unparseable_and_missing_predictions(cases_jsonl, tmp_path):
    records = [{"case_id": "OMIP-008", "condition": "c", "model": "m", "raw_text": GOOD},
               {"case_id": "OMIP-022", "condition": "c", "model": "m", "raw_text": "no idea"}]
    pred = tmp_path / "pred.jsonl"
    write_jsonl(pred, records)
    out, per_case = tmp_path / "s.csv", tmp_path / "p.csv"
    score_model(cases_jsonl, pred, PROV, BOOT, out, per_case, tmp_path / "r.md")
    per = pd.read_csv(per_case).set_index("case_id")
    assert per.loc["OMIP-022", "parse_status"] == "failed" and per.loc["OMIP-022", "hierarchy_f1"] == 0
    assert per.loc["OMIP-074", "parse_status"] == "missing"
    table = pd.read_csv(out).set_index("metric")
    assert table.loc["parse_success_rate", "value"] == pytest.approx(0.1)
    assert table.loc["task_failure_rate", "value"] == pytest.approx(0.9)
    assert table.loc["hallucination_rate", "n"] == 1  # only the parsed prediction has gates
    assert table.loc["hierarchy_f1", "n"] == 10
    assert not math.isnan(table.loc["hallucination_rate", "value"])


def test_bad_prediction_files(cases_jsonl, tmp_path):
    pred = tmp_path / "pred.jsonl"
    write_jsonl(pred, [{"case_id": "OMIP-999", "condition": "c", "model": "m", "raw_text": GOOD}])
    with pytest.raises(ScievalsError, match="unknown case_id"):
        score_model(cases_jsonl, pred, PROV, BOOT, tmp_path / "s.csv", tmp_path / "p.csv", tmp_path / "r.md")
    assert not (tmp_path / "s.csv").exists()


def test_import_user_predictions(cases_jsonl, tmp_path):
    user = tmp_path / "my_model.jsonl"
    write_jsonl(user, [{"case_id": "OMIP-008", "hierarchy": json.loads(GOOD)},
                       {"case_id": "OMIP-022", "reply": "```json\n" + GOOD + "\n```", "condition": "x"}])
    records = P.import_predictions(user, cases_jsonl, "my_model", tmp_path / "out.jsonl")
    assert [r["parse_method"] for r in records] == ["tree_object", "json_fence"]
    assert records[0]["model"] == "my_model" and records[0]["condition"] == "user"
    write_jsonl(user, [{"case_id": "OMIP-008"}])
    with pytest.raises(ScievalsError, match="no hierarchy and no reply text"):
        P.import_predictions(user, cases_jsonl, "my_model", tmp_path / "out.jsonl")
