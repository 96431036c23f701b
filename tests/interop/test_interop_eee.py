"""Every Eval Ever 0.3.0 records from our tables (scievals.interop.eee), checked here with
jsonschema against the vendored schema files and with the checks EEE's validator adds
(every_eval_ever/validator/validation_core.py: datastore path, companion file, ids, finite
scores within declared bounds, deployment fields), in tests/support/eee_check.py."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from support.eee_check import validator_errors

from scievals.interop import eee
from scievals.interop.importing import read_log

FACTS = eee.RunFacts(retrieved_timestamp="1764300000", started_utc="2026-11-28T04:00:00Z",
                     run_id="20261128T040000Z-abcdef", n_resamples=1000)


def _rows(**over) -> pd.DataFrame:
    base = {"benchmark": "gating", "dataset": "OMIP", "dataset_sha256": "ab" * 32,
            "model": "gpt", "condition": "minimal_direct", "metric": "hierarchy_f1",
            "value": 0.5, "ci_low": 0.25, "ci_high": 0.75, "n": 15, "ci_method": "wilson-ess",
            "scievals_version": "0.1.0", "git_commit": "abc123", "config_hash": "c0ffee"}
    return pd.DataFrame([{**base, **row} for row in over.get("rows", [{}])])


def _item(**over) -> dict:
    base = {"benchmark": "gating", "model": "gpt", "item": "OMIP-069",
            "condition": "minimal_direct", "input": "panel", "reply": "tree",
            "parse_status": "ok", "outcome": "scored", "metrics": {"hierarchy_f1": 0.5},
            "rationale": "", "expected": "truth tree", "score": 0.5,
            "score_name": "hierarchy_f1", "tokens_in": 120, "tokens_out": 30,
            "cost_usd": 0.00081, "latency_s": 1.5}
    return {**base, **over}


MODELS = {"gpt": {"provider": "openai", "model": "gpt-4o-mini",
                  "params": {"temperature": 0.0, "max_tokens": 512}},
          "marker_baseline": {"provider": "baseline"}, "waza_mock": {"provider": "baseline"}}


def test_a_gating_record_carries_the_interval_n_and_every_item():
    records = eee.build_records(_rows(), {("gating", "gpt"): [_item()]}, MODELS, FACTS)
    assert len(records) == 1
    made = records[0]
    assert validator_errors(made.aggregate, made.instances, str(made.aggregate_path)) == []
    agg = made.aggregate
    # the condition is in evaluation_id, never in the model id
    assert agg["evaluation_id"] == "gating@minimal_direct/openai/gpt-4o-mini/1764300000"
    assert agg["model_info"]["id"] == "openai/gpt-4o-mini"
    assert agg["model_info"]["additional_details"]["deployment_type"] == "externally_managed"
    [result] = agg["evaluation_results"]
    assert result["score_details"] == {"score": 0.5, "uncertainty": {
        "confidence_interval": {"lower": 0.25, "upper": 0.75, "confidence_level": 0.95,
                                "method": "wilson-ess"},
        "num_samples": 15}}  # not a bootstrap: no num_bootstrap_samples
    assert result["source_data"]["additional_details"] == {
        "dataset_sha256": "ab" * 32, "config_hash": "c0ffee", "limited": "false"}
    assert result["generation_config"] == {"generation_args": {"temperature": 0.0,
                                                               "max_tokens": 512}}
    assert agg["eval_library"]["additional_details"]["git_commit"] == "abc123"
    [row] = made.instances
    assert (row["sample_id"], row["input"], row["output"]) == (
        "OMIP-069", {"raw": "panel", "reference": ["truth tree"]}, {"raw": ["tree"]})
    assert row["evaluation"] == {"score": 0.5, "is_correct": False}
    assert row["answer_attribution"][0]["extracted_value"] == "tree"  # nothing parsed: reply
    assert row["evaluation_result_id"] == result["evaluation_result_id"] == "OMIP/hierarchy_f1"
    # 120 + 30 = 150 tokens; 1.5 s = 1500 ms
    assert row["token_usage"] == {"input_tokens": 120, "output_tokens": 30, "total_tokens": 150}
    assert row["performance"] == {"latency_ms": 1500.0}
    assert row["metadata"]["cost_usd"] == "0.00081"
    assert row["metadata"]["metric.hierarchy_f1"] == "0.5"


def test_bootstrap_intervals_say_how_many_resamples_and_folds_stay_in_one_record():
    rows = _rows(rows=[
        {"benchmark": "abdev", "dataset": "GDPa1_cross_validation", "model": "ridge",
         "condition": f"fold={fold}", "metric": "HIC:spearman", "value": value,
         "ci_low": value - 0.1, "ci_high": value + 0.1, "n": 49, "ci_method": "percentile-cluster"}
        for fold, value in (("0", 0.3), ("average", 0.25))])
    [made] = eee.build_records(rows, {}, {}, FACTS)  # an own file: no registry entry
    agg = made.aggregate
    assert validator_errors(agg, made.instances, str(made.aggregate_path)) == []
    assert agg["evaluation_id"] == "abdev/own-files/ridge/1764300000"  # folds are no variant
    ids = [r["evaluation_result_id"] for r in agg["evaluation_results"]]
    assert ids == ["GDPa1_cross_validation/fold=0/HIC:spearman",
                   "GDPa1_cross_validation/fold=average/HIC:spearman"]
    uncertainty = agg["evaluation_results"][0]["score_details"]["uncertainty"]
    assert uncertainty["num_bootstrap_samples"] == 1000 and uncertainty["num_samples"] == 49
    assert agg["evaluation_results"][0]["metric_config"]["min_score"] == -1.0  # Spearman
    assert "detailed_evaluation_results" not in agg  # no items: no companion file


def test_the_no_skill_arm_is_a_condition_of_the_same_model():
    rows = _rows(rows=[{"benchmark": "waza", "model": model, "condition": "",
                        "metric": "pass_rate", "ci_method": "wilson", "dataset": "suite-demo"}
                       for model in ("waza_mock", "waza_mock [no-skill]")])
    items = [_item(benchmark="waza", model="waza_mock", condition="", outcome="passed",
                   item="suite/t1#1", score=1.0, score_name="weighted grader score"),
             _item(benchmark="waza", model="waza_mock", condition="no-skill",
                   outcome="failed", item="suite/t1#1", score=0.25,
                   score_name="weighted grader score")]
    records = eee.build_records(rows, {("waza", "waza_mock"): items}, MODELS, FACTS)
    ids = sorted(r.aggregate["evaluation_id"] for r in records)
    assert ids == ["waza/scievals/waza_mock/1764300000",
                   "waza@no-skill/scievals/waza_mock/1764300000"]
    assert {r.aggregate["model_info"]["id"] for r in records} == {"scievals/waza_mock"}
    # issue 45 items 4 and 5: each arm's record has its own rows (the no-skill arm's too),
    # each joined to a result of its suite: the run score is no table row, so the record
    # carries the mean of its rows as a result of its own
    for made, score in zip(sorted(records, key=lambda r: r.aggregate["evaluation_id"]),
                           (1.0, 0.25)):
        [row] = made.instances
        assert row["evaluation"]["score"] == score
        assert row["evaluation_name"] == "waza/suite-demo"
        assert row["evaluation_result_id"] == "suite-demo/weighted_grader_score"
        result = {r["evaluation_result_id"]: r for r in made.aggregate["evaluation_results"]}[
            row["evaluation_result_id"]]
        assert result["score_details"]["score"] == score  # the mean of its one row
        assert result["evaluation_name"] == row["evaluation_name"]
    rows.loc[1, "model"], rows.loc[1, "dataset"] = "waza_mock", "other-demo"  # two suites
    two = [items[0], {**items[0], "item": "other/t9#1", "score": 0.5}]
    [both] = eee.build_records(rows, {("waza", "waza_mock"): two}, MODELS, FACTS)
    assert [r["evaluation_result_id"] for r in both.instances] == [
        "suite-demo/weighted_grader_score", "other-demo/weighted_grader_score"]
    assert [r["evaluation_name"] for r in both.instances] == ["waza/suite-demo",
                                                              "waza/other-demo"]
    for made in [*records, both]:
        assert validator_errors(made.aggregate, made.instances, str(made.aggregate_path)) == []


def test_the_parsed_value_is_the_extracted_answer():
    item = _item(reply="Here is the tree: ```All Events```", parsed="All Events")
    [made] = eee.build_records(_rows(), {("gating", "gpt"): [item]}, MODELS, FACTS)
    [row] = made.instances
    assert row["output"] == {"raw": ["Here is the tree: ```All Events```"]}
    assert row["answer_attribution"] == [{"turn_idx": 0, "source": "output.raw",
                                          "extracted_value": "All Events",
                                          "extraction_method": "ok", "is_terminal": True}]


def test_rows_without_a_value_are_named_and_items_without_a_score_are_marked():
    rows = _rows(rows=[{}, {"metric": "depth_accuracy", "value": float("nan")}])
    items = [_item(score=None, outcome="request failed", rationale="HTTP 500",
                   tokens_in=None, tokens_out=None, latency_s=None)]
    [made] = eee.build_records(rows, {("gating", "gpt"): items}, MODELS, FACTS)
    assert validator_errors(made.aggregate, made.instances, str(made.aggregate_path)) == []
    assert len(made.aggregate["evaluation_results"]) == 1
    details = made.aggregate["eval_library"]["additional_details"]
    assert details["rows_without_a_value"] == "minimal_direct/depth_accuracy"
    [row] = made.instances
    assert row["evaluation"] == {"score": 0.0, "is_correct": False}
    assert row["metadata"]["scored"] == "false" and row["error"] == "HTTP 500"
    assert "token_usage" not in row


def test_problems_finds_what_the_validator_refuses():
    [made] = eee.build_records(_rows(), {("gating", "gpt"): [_item()]}, MODELS, FACTS)
    path = str(made.aggregate_path)
    assert eee.problems(made.aggregate, made.instances, path) == []
    bad = json.loads(json.dumps(made.aggregate))
    bad["evaluation_results"][0]["score_details"]["score"] = 1.5  # gating metrics are in [0, 1]
    assert any("outside" in p for p in eee.problems(bad, made.instances, path))
    assert validator_errors(bad, made.instances, path)  # and the independent check agrees
    bad = json.loads(json.dumps(made.aggregate))
    bad["unknown_key"] = "x"  # records are closed
    assert eee.problems(bad, made.instances, path)
    assert eee.problems(made.aggregate, made.instances[:0], path)  # total_rows 1, no row
    assert eee.problems(made.aggregate, made.instances, "data/x/y.json")


def test_written_files_read_back_as_strict_json(tmp_path):
    [made] = eee.build_records(_rows(), {("gating", "gpt"): [_item(reply="a\u2028b")]},
                               MODELS, FACTS)
    aggregate_path, samples_path = eee.write_record(made, tmp_path)
    assert aggregate_path.relative_to(tmp_path).as_posix() == str(made.aggregate_path)
    assert samples_path.name == f"{made.uuid}_samples.jsonl"

    def strict(text):
        return json.loads(text, parse_constant=lambda c: pytest.fail(f"non-finite {c}"))

    assert strict(aggregate_path.read_text(encoding="utf-8")) == made.aggregate
    lines = samples_path.read_text(encoding="utf-8").splitlines()
    assert [strict(line) for line in lines] == made.instances


def test_abdev_rows_join_their_own_result_and_come_back_under_its_name(tmp_path):
    # issue 45 item 3: abdev's items are folds scored by the mean Spearman of five assays,
    # which is no row of the tables; 105 results share the evaluation's name, so the rows
    # must carry the id of the result they score, and the import must label them by it
    rows = _rows(rows=[{"benchmark": "abdev", "model": "ridge", "condition": f"fold={k}",
                        "metric": f"{assay}:spearman", "value": 0.1 * k,
                        "dataset": "GDPa1_cross_validation", "ci_method": "percentile"}
                       for k in range(2) for assay in ("HIC", "AC-SINS_pH7.4")])
    scores = [0.25, -0.5]
    items = [_item(benchmark="abdev", model="ridge", item=f"fold={k}", condition=f"fold={k}",
                   score=scores[k], score_name="mean Spearman (5 assays)") for k in range(2)]
    [made] = eee.build_records(rows, {("abdev", "ridge"): items}, {}, FACTS)
    joined = {r["evaluation_result_id"]: r for r in made.aggregate["evaluation_results"]}
    for row in made.instances:
        assert row["evaluation_result_id"] == "GDPa1_cross_validation/mean_spearman_5_assays"
    result = joined["GDPa1_cross_validation/mean_spearman_5_assays"]
    assert result["score_details"]["score"] == pytest.approx((0.25 - 0.5) / 2)
    assert result["metric_config"]["min_score"] == -1.0  # a Spearman: *spearman*'s range
    assert validator_errors(made.aggregate, made.instances, str(made.aggregate_path)) == []
    eee.write_record(made, tmp_path)
    run = read_log(tmp_path / made.aggregate_path)
    assert set(run.rows["metric"]) == {"mean_spearman_5_assays"}  # not AC-SINS_pH7.4:spearman
    assert sorted(run.rows["score"]) == [-0.5, 0.25]
