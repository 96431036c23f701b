"""Refinement turns on autogkb (issue 43): feedback from the article text only.

The grounding check names a variant id the article text does not hold and leaves alone one it
does; through predict and score, a fake model that invents an rsID and drops it when told
gives a turn-1 arm, its usage and its counts, and no follow-up quotes a curated annotation.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from scievals.autogkb import curate, predict
from scievals.autogkb.experiments import feedback, item_inputs, variant_ids
from scievals.autogkb.metrics import FIELDS
from scievals.autogkb.score import score_model
from scievals.common.provenance import Provenance
from support.fake_server import FakeLLMServer

ARTICLE = {"case_id": "PMC1", "title": "SLCO1B1 and statin myopathy",
           "text": "The SLCO1B1 rs4149056 C allele was associated with myopathy in patients "
                   "treated with simvastatin; CYP2C9 *3 carriers needed lower doses.",
           "truth": None}
INVENTED = "rs99999999"


def annotation(**values):
    return {f: values.get(f) for f in FIELDS}


def test_grounding_names_the_invented_rsid_only():
    real = annotation(**{"Variant/Haplotypes": "rs4149056", "Gene": "SLCO1B1"})
    invented = annotation(**{"Variant/Haplotypes": INVENTED, "Gene": "SLCO1B1"})
    said = feedback([real, invented], item_inputs(ARTICLE))
    assert f"annotation 2: variant '{INVENTED}' does not occur in the article text" in said
    assert "rs4149056" not in said
    assert feedback([real], item_inputs(ARTICLE)) is None  # nothing to say: no follow-up


def test_star_alleles_genes_vocabulary_and_schema():
    # "CYP2C9*3": the text writes "CYP2C9 *3" (its *3 part is found); CYP2C9*17 is not there;
    # the gene TPMT is not in the text either
    item = annotation(**{"Variant/Haplotypes": "CYP2C9*3, CYP2C9*17", "Gene": "CYP2C9, TPMT",
                         "Phenotype Category": "Safety", "Direction of effect": "increased"})
    item["Confidence"] = "high"  # a key the schema has not
    said = feedback([item], item_inputs(ARTICLE))
    assert variant_ids("CYP2C9*3, CYP2C9*17") == ["CYP2C9*3", "CYP2C9*17"]
    assert "variant 'CYP2C9*17' does not occur" in said
    assert "variant 'CYP2C9*3'" not in said
    assert "gene 'TPMT' does not occur" in said and "gene 'CYP2C9'" not in said
    assert "field 'Phenotype Category': 'Safety' is not one of the allowed values" in said
    assert "'Confidence' was unexpected" in said
    assert "Direction of effect" not in said  # an allowed value
    assert feedback("no JSON list found in the reply", item_inputs(ARTICLE)).startswith(
        "Your reply could not be read as a list of annotations: no JSON list")


class Raises(list):
    def __iter__(self):
        raise AssertionError("feedback read the truth")

    __getitem__ = __iter__


def test_inputs_leave_the_truth_out():
    inputs = item_inputs({**ARTICLE, "truth": Raises()})
    assert (inputs.case_id, inputs.title) == ("PMC1", "SLCO1B1 and statin myopathy")
    assert not hasattr(inputs, "truth")


@pytest.fixture(scope="module")
def refined_run(curated_demo, tmp_path_factory):
    d, _ = curated_demo
    tmp = tmp_path_factory.mktemp("refine")
    cases = curate.read_cases(d / "cases.jsonl")
    truth_values = {str(a.get(f)) for c in cases for a in c["truth"] for f in FIELDS
                    if a.get(f) and len(str(a.get(f))) > 12}  # long curated values: phenotypes...

    def model(body, prompt=""):
        told = any(INVENTED in m["content"] for m in body["messages"][2:])
        return json.dumps([] if told else [annotation(**{"Variant/Haplotypes": INVENTED})])

    with FakeLLMServer(max_lifetime_s=120) as server:
        server.responder = model
        spec = {"provider": "openai", "model": "fake", "base_url": server.openai_base_url,
                "structured_output": "off"}
        config = {"models": {"m": spec}, "llm": {"cache_dir": str(tmp / "cache")},
                  "autogkb": {"refine_turns": 1}}
        predict.run(d / "cases.jsonl", d / "vocab.json", "m", config, tmp / "m.jsonl",
                    tmp / "m.usage.json")
        sent = [r["body"]["messages"] for r in server.requests]
    prov = Provenance(benchmark="autogkb", dataset="d", dataset_sha256="0" * 64,
                      config_hash="x")
    score_model(d / "cases.jsonl", tmp / "m.jsonl", prov, {"n_resamples": 100, "seed": 1}, 0.7,
                tmp / "m.csv", tmp / "m.per_case.csv", tmp / "m.md", model="m",
                usage_json=tmp / "m.usage.json")
    return {"sent": sent, "table": pd.read_csv(tmp / "m.csv"), "n": len(cases),
            "truth_values": truth_values}


def test_turns_through_predict_and_score(refined_run):
    n, table = refined_run["n"], refined_run["table"]
    follow_ups = [m[-1]["content"] for m in refined_run["sent"] if len(m) > 2]
    assert len(refined_run["sent"]) == 2 * n and len(follow_ups) == n
    assert all(INVENTED in f for f in follow_ups)
    for f in follow_ups:
        assert not any(v in f for v in refined_run["truth_values"])

    def row(condition, metric):
        r = table[(table["condition"] == condition) & (table["metric"] == metric)]
        return float(r["value"].iloc[0]), int(r["n"].iloc[0])

    assert row("evidence#turn1", "followups_sent") == (n, n)
    assert row("evidence#turn1", "tokens_out")[1] == n  # the turn's own requests
    assert row("evidence", "tokens_out")[1] == n
    # one invented annotation or none: one_to_one_score is 0 either way, nothing changes
    assert row("evidence#turn1", "one_to_one_score:improved") == (0, n)
    assert row("evidence#turn1", "one_to_one_score:worsened") == (0, n)


def test_predict_with_refinement_never_reads_the_truth(curated_demo, tmp_path):
    """The whole LLM path - prompt, turns, feedback - on articles whose truth raises."""
    from scievals.llm.registry import model_spec

    cases = [{**c, "truth": Raises()} for c in curate.read_cases(curated_demo[0] / "cases.jsonl")]

    def model(body, prompt=""):
        told = any(INVENTED in m["content"] for m in body["messages"][2:])
        return json.dumps([] if told else [annotation(**{"Variant/Haplotypes": INVENTED})])

    with FakeLLMServer(max_lifetime_s=60) as server:
        server.responder = model
        spec = model_spec("m", {"models": {"m": {
            "provider": "openai", "model": "fake", "base_url": server.openai_base_url}}})
        config = {"llm": {"cache_dir": str(tmp_path / "cache")}, "autogkb": {"refine_turns": 1}}
        records, usage = predict.llm_predictions(cases, spec, config)
    assert [r["turn"] for r in records] == [0] * len(cases) + [1] * len(cases)
    assert usage["requests"] == len(cases)
    assert usage["turns"]["evidence#turn1"]["requests"] == len(cases)
