"""autogkb: the consensus of k annotation lists, and temperatures and samples against a fake
server, worked by hand."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from scievals.autogkb import predict, score
from scievals.autogkb.experiments import consensus, sample_keys
from scievals.common.io import read_jsonl, write_jsonl
from support.fake_server import FakeLLMServer


def _ann(variant, gene, drug, phenotype=None):
    return {"Variant/Haplotypes": variant, "Gene": gene, "Drug(s)": drug, "Phenotype": phenotype}


def test_consensus_keeps_keys_held_by_a_majority_and_the_most_written_version():
    # rs1 in 3 of 3 samples (kept), rs2 in 2 (kept: 2 > 1.5), rs3 in 1 (dropped).
    # rs1's versions: phenotype "x" once, "y" twice -> "y".
    samples = [
        [_ann("rs1", "G1", "drugA", "x"), _ann("rs2", "G2", "drugB")],
        [_ann("rs1", "G1", "drugA", "y"), _ann("rs3", "G3", "drugC")],
        [_ann("RS1 ", "g1", "DrugA", "y"), _ann("rs2", "G2", "drugB")],  # same key, normalised
    ]
    got = consensus(samples)
    assert got == [_ann("rs1", "G1", "drugA", "y"), _ann("rs2", "G2", "drugB")]


def test_consensus_ties_and_unparsed_samples():
    # k = 2, rs1 in both with different phenotypes (1 vote each): sample 0's wins
    a, b = [_ann("rs1", "G1", "d", "first")], [_ann("rs1", "G1", "d", "second")]
    assert consensus([a, b]) == a and consensus([b, a]) == b
    # an unparsed sample counts: rs1 in 1 of 2 is not more than half
    assert consensus([a, None]) == []


def test_sample_keys_repeat_once():
    keys = sample_keys([_ann("rs1", "G1", "d", "x"), _ann("rs1", "g1", "D", "y")])
    assert keys == {("rs1", "g1", "d", "", "", "")}
    assert sample_keys(None) == frozenset()


# --- against a fake server -------------------------------------------------------------------

KEY_VAR = "SCIEVALS_TEST_SAMPLE_KEY"
BOOT = {"n_resamples": 200, "seed": 0}
# two articles whose curated annotations have distinct keys and score 100 against themselves
ARTICLES = ("PMC11062152", "PMC6435416")


def test_temperatures_and_samples_against_a_fake_server(cases_jsonl, curated_demo, tmp_path,
                                                        monkeypatch):
    cases = [c for c in read_jsonl(cases_jsonl) if c["case_id"] in ARTICLES]
    mine = tmp_path / "cases.jsonl"
    write_jsonl(mine, cases)

    def answer(body, prompt):
        """Temperature 0: the curated annotations; 1.0: the same for seeds 0 and 2, none for
        seed 1."""
        case = next(c for c in cases if c["text"] in prompt)
        if body.get("temperature", 0) > 0 and body["seed"] % 3 == 1:
            return json.dumps({"annotations": []})
        return json.dumps({"annotations": case["truth"]})

    monkeypatch.setenv(KEY_VAR, "sk-test")
    model = {"provider": "openai", "model": "fake-2025", "api_key_env": KEY_VAR,
             "n_samples": 3, "params": {"seed": 0}}
    with FakeLLMServer(max_lifetime_s=120) as server:
        server.responder = answer
        model["base_url"] = server.openai_base_url
        config = {"models": {"fake": model}, "llm": {"cache_dir": str(tmp_path / "cache")},
                  "autogkb": {"temperatures": [0.0, 1.0]}}
        pred, usage = tmp_path / "pred.jsonl", tmp_path / "usage.json"
        predict.run(mine, curated_demo[0] / "vocab.json", "fake", config, pred, usage)
        assert server.count == 2 * 2 * 3  # articles x temperatures x samples
        assert {b["body"]["temperature"] for b in server.requests} == {0.0, 1.0}

    out, per_case = tmp_path / "scores.csv", tmp_path / "per_case.csv"
    score.score_model(mine, pred, score.provenance_for(mine, curated_demo[0] / "report.json",
                                                       "abc"),
                      BOOT, 0.7, out, per_case, tmp_path / "review.md", model="fake",
                      usage_json=usage)
    value = pd.read_csv(out).set_index(["condition", "metric"])["value"]
    t1, t0 = "evidence@t1", "evidence@t0"
    # per article at 1.0: one_to_one 100, 0, 100 -> mean 200/3; best 100; the consensus holds
    # every curated annotation (2 of 3 samples) -> 100, a gain of 100/3; SD of (100, 0, 100)
    # = sqrt(((100/3)^2 * 2 + (200/3)^2) / 2) = 100 / sqrt 3; Jaccard pairs 0, 1, 0 -> 1/3
    assert value[(t1, "one_to_one_score")] == pytest.approx(200 / 3)
    assert value[(t1, "one_to_one_score_best_of_k")] == pytest.approx(100)
    assert value[(t1, "one_to_one_score_consensus")] == pytest.approx(100)
    assert value[(t1, "one_to_one_score_consensus_gain")] == pytest.approx(100 / 3)
    assert value[(t1, "one_to_one_score_within_sd")] == pytest.approx(100 / 3 ** 0.5)
    assert value[(t1, "sample_agreement")] == pytest.approx(1 / 3)
    assert value[(t0, "one_to_one_score_within_sd")] == 0.0
    assert value[(t0, "sample_agreement")] == 1.0
    # usage rows per temperature arm: 2 articles x 3 samples
    n = pd.read_csv(out).set_index(["condition", "metric"])["n"]
    assert n[(t0, "tokens_in")] == 6 and n[(t1, "tokens_in")] == 6
