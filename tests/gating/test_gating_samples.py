"""Temperatures and k samples for gating: the consensus tree, and a fake server that answers the
same tree at temperature 0 and different trees above it (issue 43, "Done when")."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from scievals.autogkb.workflow import predict_config as autogkb_predict_config
from scievals.common.errors import ScievalsError
from scievals.common.experiments import Condition, temperature_arms
from scievals.common.io import write_jsonl
from scievals.config_validation import validate_config
from scievals.common.provenance import Provenance
from scievals.gating import predict as P
from scievals.gating.experiments import consensus, sample_keys
from scievals.gating.samples import PER_CASE
from scievals.gating.samples import samples as viewer_samples
from scievals.gating.score import score_model
from scievals.gating.tree import node
from scievals.gating.workflow import PREDICTIONS, USAGE
from scievals.gating.workflow import predict_config as gating_predict_config
from scievals.common.tables import read_result_table
from scievals.results.leaderboard import leaderboard_markdown, sections
from scievals.stats.comparisons import per_case_means
from support.fake_server import FakeLLMServer

KEY_VAR = "SCIEVALS_TEST_SAMPLE_KEY"
PROV = Provenance(benchmark="gating", dataset="synthetic", dataset_sha256="0" * 64,
                  config_hash="abc123def456", git_commit="testcommit")
BOOT = {"n_resamples": 200, "seed": 7}


def _tree(spec) -> dict:
    """("A", [children...]) -> a gate tree."""
    name, children = spec if isinstance(spec, tuple) else (spec, [])
    return node(name, children=[_tree(c) for c in children])


TRUTH = ("All Events", [("Singlets", [("Live", [("T cells", ["CD4+ T cells", "CD8+ T cells"])])])])
# The three answers the fake model gives at temperature 1.0 (by the request's seed):
NO_CD8 = ("All Events", [("Singlets", [("Live", [("T cells", ["CD4+ T cells"])])])])
NO_LIVE = ("All Events", [("Singlets", [("T cells", ["CD4+ T cells"]), "B cells"])])


# --- the consensus tree, by hand -------------------------------------------------------------

def test_consensus_keeps_majority_gates_under_their_most_frequent_parent():
    # Counts over 3 samples: All Events, Singlets, T cells, CD4+ in 3; Live in 2 (kept,
    # 2 > 1.5); CD8+ and B cells in 1 (dropped). T cells' parent: Live in samples 0 and 1,
    # Singlets in sample 2 -> Live. So the consensus is NO_CD8.
    got = consensus([_tree(TRUTH), _tree(NO_CD8), _tree(NO_LIVE)])
    assert got == _tree(NO_CD8)


def test_consensus_tie_goes_to_the_parent_met_first():
    # k = 2: every gate is in both samples (2 > 1). B: parent A (sample 0) or C (sample 1),
    # 1 vote each -> A, met first; C: parent B (sample 0) or A (sample 1) -> B. A > B > C.
    a_b_c = _tree(("A", [("B", ["C"])]))
    a_c_b = _tree(("A", [("C", ["B"])]))
    assert consensus([a_b_c, a_c_b]) == a_b_c
    assert consensus([a_c_b, a_b_c]) == a_c_b  # the rule is about order, so it is fixed


def test_consensus_counts_unparsed_samples_and_bridges_dropped_gates():
    # 1 tree of 3 samples: nothing is in more than half -> no answer
    assert consensus([_tree(TRUTH), None, None]) is None
    # "Mid" is in 1 of 3: dropped; "Leaf" (3 of 3) goes under its nearest kept ancestor "Top"
    with_mid = _tree(("Top", [("Mid", ["Leaf"])]))
    plain = _tree(("Top", ["Leaf"]))
    assert consensus([with_mid, plain, plain]) == plain


def test_sample_keys_are_the_normalised_gate_names():
    assert sample_keys(_tree(NO_LIVE)) == {"all events", "singlets", "t", "cd4+", "b"}
    assert sample_keys(None) == frozenset()


# --- against a fake server -------------------------------------------------------------------

def _answer(body: dict, prompt: str) -> str:
    """Temperature 0: the true tree. Above: by the seed (sample k sends seed k)."""
    if body.get("temperature", 0) == 0:
        return json.dumps(_tree(TRUTH))
    return json.dumps(_tree((TRUTH, NO_CD8, NO_LIVE)[body["seed"] % 3]))


@pytest.fixture
def cases_jsonl(tmp_path, make_case):
    path = tmp_path / "cases.jsonl"
    markers = ["CD3", "CD4", "CD8", "Live/Dead"]  # B's panel differs, so its prompt does
    write_jsonl(path, [make_case("A", _tree(TRUTH), markers),
                       make_case("B", _tree(TRUTH), markers + ["CD19"])])
    return path


def _config(server, tmp_path) -> dict:
    model = {"provider": "openai", "model": "fake-2025", "base_url": server.openai_base_url,
             "api_key_env": KEY_VAR, "n_samples": 3, "params": {"seed": 0}}
    return {"models": {"fake": model}, "llm": {"cache_dir": str(tmp_path / "cache")},
            "gating": {"contexts": ["standard"], "strategies": ["direct"],
                       "temperatures": [0.0, 1.0]}}


def test_temperatures_and_samples_against_a_fake_server(cases_jsonl, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_VAR, "sk-test")
    with FakeLLMServer(max_lifetime_s=120) as server:
        server.responder = _answer
        pred = tmp_path / PREDICTIONS.format(model="fake")
        usage = tmp_path / USAGE.format(model="fake")
        records = P.run(cases_jsonl, "fake", _config(server, tmp_path), pred, usage)
        # 2 cases x 2 temperatures x 3 samples; the temperature and seed reach the request
        assert server.count == 12
        sent = sorted((r["body"]["temperature"], r["body"]["seed"]) for r in server.requests)
        assert sent == sorted([(t, s) for t in (0.0, 1.0) for s in (0, 1, 2)] * 2)
        assert {r["condition"] for r in records} == {"standard_direct@t0", "standard_direct@t1"}
        P.run(cases_jsonl, "fake", _config(server, tmp_path), pred, usage)
        assert server.count == 12  # a re-run is answered from the cache

    out = tmp_path / "scores.csv"
    per_case = tmp_path / PER_CASE.format(model="fake")  # where the sample viewer reads it
    per_case.parent.mkdir(parents=True)
    score_model(cases_jsonl, pred, PROV, BOOT, out, per_case, tmp_path / "review.md",
                usage_json=usage, model="fake")
    table = pd.read_csv(out)
    value = table.set_index(["condition", "metric"])["value"]

    # Temperature 1.0, per case (both cases alike), hierarchy_f1 of the three samples:
    #   TRUTH 1; NO_CD8 P = 5/5, R = 5/6 -> 10/11; NO_LIVE (4 of its 5 gates true) P = 4/5,
    #   R = 4/6 -> 2 PR / (P + R) = (16/15) / (22/15) = 8/11.
    t1 = "standard_direct@t1"
    mean = (1 + 10 / 11 + 8 / 11) / 3  # 29/33
    assert value[(t1, "hierarchy_f1")] == pytest.approx(29 / 33)
    assert value[(t1, "hierarchy_f1_best_of_k")] == pytest.approx(1.0)
    assert value[(t1, "hierarchy_f1_best_of_k")] >= value[(t1, "hierarchy_f1")]
    # the consensus is NO_CD8 (test above): 10/11, a gain of 30/33 - 29/33 = 1/33
    assert value[(t1, "hierarchy_f1_consensus")] == pytest.approx(10 / 11)
    assert value[(t1, "hierarchy_f1_consensus_gain")] == pytest.approx(1 / 33)
    gain = table[(table.condition == t1) & (table.metric == "hierarchy_f1_consensus_gain")]
    assert gain["ci_method"].iloc[0].startswith("sign-flip")  # the paired test's interval
    # deviations from 29/33: 4/33, 1/33, -5/33; SD (ddof 1) = sqrt(42 / 2) / 33
    assert value[(t1, "hierarchy_f1_within_sd")] == pytest.approx(math.sqrt(21) / 33)
    assert value[(t1, "hierarchy_f1_within_sd")] > 0
    # key sets of 6, 5 and 5 gates: J(0,1) = 5/6, J(0,2) = 4/7, J(1,2) = 4/6 -> mean 29/42
    assert value[(t1, "sample_agreement")] == pytest.approx(29 / 42)
    # hallucination_rate is lower-is-better: its best-of-k is the smallest sample value
    assert value[(t1, "hallucination_rate_best_of_k")] <= value[(t1, "hallucination_rate")]

    # Temperature 0: three identical true trees
    t0 = "standard_direct@t0"
    assert value[(t0, "hierarchy_f1")] == 1.0
    assert value[(t0, "hierarchy_f1_within_sd")] == 0.0
    assert value[(t0, "sample_agreement")] == 1.0
    assert value[(t0, "hierarchy_f1_consensus")] == 1.0
    # rows carry intervals and n = cases
    row = table[(table.condition == t1) & (table.metric == "hierarchy_f1_consensus")].iloc[0]
    assert row["n"] == 2 and row["ci_low"] <= row["value"] <= row["ci_high"]
    # every arm has its own usage rows (3 samples x 2 cases each)
    n = table.set_index(["condition", "metric"])["n"]
    assert n[(t1, "tokens_in")] == 6 and n[(t0, "tokens_in")] == 6

    # the arms are compared pairwise on the same cases, derived metrics included
    metrics = per_case_means({"per_case": [str(per_case)], "table": [str(out)]}, ["fake"],
                             ["hierarchy_f1"], {}, ranges={"*": (0.0, 1.0)})
    by_name = {m.metric: m for m in metrics}
    consensus_items = by_name["hierarchy_f1_consensus"].values
    assert list(consensus_items.columns) == ["fake [standard_direct@t0]",
                                             "fake [standard_direct@t1]"]
    assert consensus_items.loc["A"].tolist() == pytest.approx([1.0, 10 / 11])
    assert by_name["hierarchy_f1_consensus_gain"].low == -1.0  # a gain spans +-range

    # the sample viewer shows every sample of an item, each with its own score
    shown = {(x.condition, x.item): x.score for x in viewer_samples(tmp_path, "fake")}
    assert len(shown) == 12
    assert sorted(shown[(t1, item)] for item in ("A", "A#1", "A#2")) == pytest.approx(
        [8 / 11, 10 / 11, 1.0])

    # the leaderboard shows them per arm, best-of-k labelled an oracle upper bound
    (section,) = sections(read_result_table(out))
    by_arm = section.samples.set_index("condition")
    assert by_arm.loc[t1, "consensus"].startswith("0.909")  # 10/11
    assert by_arm.loc[t1, "best-of-k (oracle upper bound)"].startswith("1.000")
    assert by_arm.loc[t0, "within-item SD"].startswith("0.000")
    assert "ORACLE UPPER BOUND" in leaderboard_markdown([section])


# --- the setting ------------------------------------------------------------------------------

@pytest.mark.parametrize(("benchmark", "value", "says"), [
    ("gating", [0.0, -0.5], "gating.temperatures"),
    ("autogkb", [0.7, 0.7], "autogkb.temperatures"),
    ("gating", [], "gating.temperatures"),
    ("autogkb", ["hot"], "autogkb.temperatures"),
])
def test_bad_temperatures_are_refused_in_one_line(benchmark, value, says):
    config = {benchmark: {"temperatures": value}}
    with pytest.raises(ScievalsError) as exc:
        validate_config(config)
    line = exc.value.one_line()
    assert "\n" not in line and says in line


def test_default_temperatures_keep_names_and_jobs():
    config = {}
    validate_config(config)
    assert config["gating"]["temperatures"] == [0.0] == config["autogkb"]["temperatures"]
    # the default setting adds nothing to a predict job's params (so no job re-runs) ...
    assert "temperatures" not in gating_predict_config(config, "marker_baseline")["gating"]
    assert "autogkb" not in autogkb_predict_config(config, "autogkb_baseline")
    # ... and writes no @t (the model's own params.temperature applies)
    assert temperature_arms([0.0]) == [None]
    assert temperature_arms([0.0, 0.7]) == [0.0, 0.7]
    assert Condition("rich_cot", temperature=0.7).name == "rich_cot@t0.7"


def test_a_run_cut_short_resumes_with_the_samples_it_lacks(cases_jsonl, tmp_path, monkeypatch):
    # A run that stored 2 of each item's 3 samples (as a run killed mid-sampling leaves the
    # cache) asks only for the third: 2 cases x 2 temperatures x 1 sample.
    monkeypatch.setenv(KEY_VAR, "sk-test")
    with FakeLLMServer(max_lifetime_s=120) as server:
        server.responder = _answer
        config = _config(server, tmp_path)
        config["models"]["fake"]["n_samples"] = 2
        P.run(cases_jsonl, "fake", config, tmp_path / "p.jsonl", tmp_path / "u.json")
        assert server.count == 8
        config["models"]["fake"]["n_samples"] = 3
        records = P.run(cases_jsonl, "fake", config, tmp_path / "p.jsonl", tmp_path / "u.json")
        assert server.count == 12
        assert sorted({r["body"]["seed"] for r in server.requests[8:]}) == [2]
        assert sum(r["cache_hit"] for r in records) == 8 and len(records) == 12
