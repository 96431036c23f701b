"""Refinement turns on gating (issue 43): feedback from the panel only, each turn its own arm.

The fake model answers every case with a tree holding a gate on CD999 (no panel has it) and,
when a follow-up names CD999, drops that gate. The truth gate names of the case file are
replaced by sentinels first, so a follow-up that quoted the truth would show them.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from scievals.common.io import read_jsonl, write_jsonl
from scievals.common.provenance import Provenance
from scievals.gating import predict as P
from scievals.gating.curate import build_cases
from scievals.gating.experiments import feedback, item_inputs
from scievals.gating.paths import OMIP_VERIFIED_DIR
from scievals.gating.score import score_model
from scievals.stats.comparisons import comparison_table, per_case_means
from support.fake_server import FakeLLMServer


def gate(name, markers=(), children=()):
    return {"name": name, "markers": list(markers), "children": list(children)}


FIXED = gate("All Events", children=[gate("Singlets", children=[gate("Live cells")])])
WRONG = gate("All Events", children=[gate("Singlets", children=[
    gate("Live cells", children=[gate("CD999+ cells", ["CD999"])])])])
SENTINEL = "TRUTHGATE"


def model(body: dict, prompt: str = "") -> str:
    """Turn 0: the tree with CD999; once told about CD999: the tree without it."""
    told = any(m["role"] == "user" and "CD999" in str(m["content"])
               for m in body["messages"][2:])
    return json.dumps(FIXED if told else WRONG)


def poisoned(case: dict) -> dict:
    """The case with every truth gate renamed to a sentinel (the panel stays)."""
    counter = iter(range(10_000))

    def rename(node):
        node["name"] = f"{SENTINEL}{next(counter)}"
        for child in node.get("children") or []:
            rename(child)

    rename(case["gating_hierarchy"]["root"])
    return case


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("refine")
    build_cases([OMIP_VERIFIED_DIR], None, tmp / "real.jsonl", tmp / "cur.json")
    write_jsonl(tmp / "cases.jsonl", [poisoned(c) for c in read_jsonl(tmp / "real.jsonl")])
    prov = Provenance(benchmark="gating", dataset="d", dataset_sha256="0" * 64, config_hash="x")
    with FakeLLMServer(max_lifetime_s=120) as server:
        server.responder = model
        spec = {"provider": "openai", "model": "fake", "base_url": server.openai_base_url,
                "structured_output": "off"}
        config = {"models": {"m": spec}, "llm": {"cache_dir": str(tmp / "cache")},
                  "gating": {"contexts": ["minimal"], "strategies": ["direct"],
                             "refine_turns": 2}}
        records = P.run(tmp / "cases.jsonl", "m", config, tmp / "m.jsonl", tmp / "m.usage.json")
        sent = [r["body"]["messages"] for r in server.requests]
        server.requests.clear()
        P.run(tmp / "cases.jsonl", "m", config, tmp / "again.jsonl", tmp / "again.usage.json")
        resent = len(server.requests)
    score_model(tmp / "cases.jsonl", tmp / "m.jsonl", prov, {"n_resamples": 200, "seed": 1},
                tmp / "m.csv", tmp / "m.per_case.csv", tmp / "m.md",
                usage_json=tmp / "m.usage.json")
    return {"tmp": tmp, "records": records, "sent": sent, "resent": resent,
            "table": pd.read_csv(tmp / "m.csv")}


def value(table, condition, metric):
    row = table[(table["condition"] == condition) & (table["metric"] == metric)]
    assert len(row) == 1, (condition, metric)
    return float(row["value"].iloc[0]), int(row["n"].iloc[0])


def test_follow_up_names_the_marker_and_is_sent_once(run):
    # 10 verified cases: turn 0 sends 10 prompts, turn 1 sends 10 follow-ups (CD999 found in
    # each), turn 2 sends none (the fixed tree has no problem): 20 requests
    sent = run["sent"]
    assert len(sent) == 20
    follow_ups = [m[-1]["content"] for m in sent if len(m) > 2]
    assert len(follow_ups) == 10
    assert all("'CD999+ cells'" in f and "CD999" in f for f in follow_ups)
    assert all([m["role"] for m in messages] == ["system", "user", "assistant", "user"]
               for messages in sent if len(messages) > 2)
    assert run["resent"] == 0  # a re-run is answered by the cache, turn by turn


def test_no_follow_up_holds_a_truth_gate_name(run):
    assert SENTINEL in (run["tmp"] / "cases.jsonl").read_text()  # the poison is there
    for messages in run["sent"]:
        for message in messages[2:]:  # everything after the first prompt
            assert SENTINEL not in message["content"]


def test_each_turn_is_an_arm_and_hallucination_falls(run):
    table = run["table"]
    # turn 0: 1 of 4 distinct gates (CD999+ cells) cites a marker no panel has -> 0.25 per
    # case; turns 1 and 2: the 3-gate tree without it -> 0
    assert value(table, "minimal_direct", "hallucination_rate") == (0.25, 10)
    assert value(table, "minimal_direct#turn1", "hallucination_rate") == (0.0, 10)
    assert value(table, "minimal_direct#turn2", "hallucination_rate") == (0.0, 10)
    # all 10 cases improved at turn 1 and none got worse; turn 2: 10 follow-ups? none, the
    # reply of turn 1 stood for all 10
    assert value(table, "minimal_direct#turn1", "hallucination_rate:improved") == (10, 10)
    assert value(table, "minimal_direct#turn1", "hallucination_rate:worsened") == (0, 10)
    assert value(table, "minimal_direct#turn1", "followups_sent") == (10, 10)
    assert value(table, "minimal_direct#turn2", "followups_sent") == (0, 10)
    assert value(table, "minimal_direct#turn2", "replies_stood") == (10, 10)
    # usage per turn: 10 requests at turns 0 and 1, none at turn 2
    assert value(table, "minimal_direct", "tokens_out")[1] == 10
    assert value(table, "minimal_direct#turn1", "tokens_out")[1] == 10
    assert value(table, "minimal_direct#turn2", "tokens_out") == (0, 0)
    usage = json.loads((run["tmp"] / "m.usage.json").read_text())
    assert usage["total"]["requests"] == 20  # the model's whole cost: prompts and follow-ups


def test_records_carry_the_turns_feedback(run):
    by_turn = {}
    for record in run["records"]:
        by_turn.setdefault(record["turn"], []).append(record)
    assert sorted(by_turn) == [0, 1, 2] and all(len(v) == 10 for v in by_turn.values())
    assert all(r["next_feedback"] and "CD999" in r["next_feedback"] for r in by_turn[0])
    assert all(r["refine_status"] == "revised" and "CD999" in r["feedback"]
               and r["next_feedback"] is None for r in by_turn[1])
    assert all(r["refine_status"] == "stood" and r["feedback"] is None
               and r["tokens_in"] == r["tokens_out"] == 0 for r in by_turn[2])
    assert all(r["tokens_in"] > 0 for r in by_turn[1])
    assert [m["role"] for m in by_turn[1][0]["conversation"]] == ["assistant", "user"]


def test_comparisons_test_turn_0_against_turn_1(run):
    tmp = run["tmp"]
    metrics = per_case_means({"per_case": [tmp / "m.per_case.csv"], "table": [tmp / "m.csv"]},
                             ["m"], ["hallucination_rate"], {})
    pairs = comparison_table("gating", metrics, {"n_resamples": 200, "seed": 1})
    arms = {frozenset((a, b)): row for a, b, row in
            zip(pairs["arm_a"], pairs["arm_b"], pairs.to_dict("records"))}
    row = arms[frozenset(("m [minimal_direct]", "m [minimal_direct#turn1]"))]
    assert row["n"] == 10 and row["family"] == "conditions"
    # the same 10 cases: every paired difference is 0.25
    assert abs(abs(row["diff"]) - 0.25) < 1e-12


# --- feedback() on its own -------------------------------------------------------------------

PANEL = {"test_case_id": "c", "context": {},
         "panel": {"entries": [{"marker": "CD3", "fluorophore": "FITC"},
                               {"marker": "CD4", "fluorophore": "PE"},
                               {"marker": "Zombie NIR", "fluorophore": "APC-Cy7"}]}}


class Raises(dict):
    """A truth that fails the test the moment anything reads it."""

    def __getitem__(self, key):
        raise AssertionError("feedback read the truth")

    get = __getitem__


def test_inputs_never_hold_the_truth():
    case = {**PANEL, "gating_hierarchy": Raises()}
    inputs = item_inputs(case)
    assert inputs.markers == ["CD3", "CD4", "Zombie NIR"]
    assert "gating_hierarchy" not in repr(inputs)
    tree = gate("All Events", children=[gate("Live", ["Zombie NIR"], [gate("CD3+", ["CD3"])])])
    assert feedback(tree, inputs) is None  # nothing wrong: no follow-up


def test_each_check_names_gate_and_marker():
    inputs = item_inputs(PANEL)
    tree = gate("All Events", children=[
        gate("CD3+", ["CD3", "CD8"], [gate("CD3+", ["CD3"])]),  # CD8 missing; own ancestor
        gate("Tregs", ["CD25", "FOXP3"]),  # every marker missing
        gate("Tregs", ["CD4"]),  # the same path twice
    ])
    said = feedback(tree, inputs)
    assert "gate 'CD3+': marker 'CD8' is not in the panel" in said
    assert "gate 'Tregs': none of its markers (CD25, FOXP3) is in the panel" in said
    assert "gate 'CD3+' is its own ancestor" in said
    assert "gate 'Tregs' appears twice under 'All Events'" in said
    assert "viability dye 'Zombie NIR'" in said  # no live/dead gate
    assert feedback("no JSON, list or indented hierarchy found", inputs).startswith(
        "Your reply could not be read as a gating hierarchy: no JSON")


def test_viewer_shows_every_turn_with_its_feedback(run, tmp_path):
    import shutil

    from scievals.gating.samples import samples

    for src, dst in (("cases.jsonl", "data/curated/gating/cases.jsonl"),
                     ("m.jsonl", "results/gating/predictions/m.jsonl"),
                     ("m.per_case.csv", "results/gating/scores/m.per_case.csv")):
        (tmp_path / dst).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(run["tmp"] / src, tmp_path / dst)
    items = [s for s in samples(tmp_path, "m") if s.item == run["records"][0]["case_id"]]
    by_condition = {s.condition: s for s in items}
    assert sorted(by_condition) == ["minimal_direct", "minimal_direct#turn1",
                                    "minimal_direct#turn2"]
    first, second, third = (by_condition[c] for c in sorted(by_condition))
    assert "turn 0; feedback on this reply:" in first.rationale and "CD999" in first.rationale
    assert "--- feedback, turn 1 ---" not in first.input
    # turn 1's prompt shows turn 0's reply and the feedback it drew; its own reply is clean
    assert "--- reply, turn 0 ---" in second.input and "--- feedback, turn 1 ---" in second.input
    assert "the checks found nothing in this reply" in second.rationale
    assert first.metrics["hallucination_rate"] == 0.25
    assert second.metrics["hallucination_rate"] == 0.0
    assert "reply of the turn before stood" in third.rationale


def test_setting_checked_and_sent_to_the_job_only_when_set():
    from pathlib import Path

    import yaml
    from scievals.autogkb.workflow import predict_config as autogkb_job
    from scievals.common.errors import ScievalsError
    from scievals.config_validation import validate_config
    from scievals.gating.workflow import predict_config as gating_job

    root = Path(__file__).resolve().parents[2]
    config = validate_config(yaml.safe_load((root / "config/config.yaml").read_text()))
    assert config["gating"]["refine_turns"] == 0 and config["autogkb"]["refine_turns"] == 0
    # the default: the predict jobs' params are what they were before the setting existed
    assert gating_job(config, "marker_baseline")["gating"] == {
        "contexts": ["minimal", "standard", "rich"], "strategies": ["direct", "cot"]}
    assert "autogkb" not in autogkb_job(config, "autogkb_baseline")
    config["gating"]["refine_turns"] = config["autogkb"]["refine_turns"] = 2
    assert gating_job(config, "marker_baseline")["gating"]["refine_turns"] == 2
    assert autogkb_job(config, "autogkb_baseline")["autogkb"] == {"refine_turns": 2}
    config["gating"]["refine_turns"] = -1
    with pytest.raises(ScievalsError, match=r"gating\.refine_turns: -1 is less than the minimum"):
        validate_config(config)


class Poison:
    """A truth that fails the test on any read of its content."""

    def _read(self, *args, **kwargs):
        raise AssertionError("the truth was read")

    __getitem__ = __iter__ = __len__ = __contains__ = get = keys = items = values = _read


def test_predict_with_refinement_never_reads_the_truth(run, tmp_path):
    """The whole LLM path - prompts, turns, feedback - on cases whose truth raises."""
    cases = [{**c, "gating_hierarchy": Poison()} for c in read_jsonl(run["tmp"] / "cases.jsonl")]
    with FakeLLMServer(max_lifetime_s=60) as server:
        server.responder = model
        spec = P.model_spec("m", {"models": {"m": {
            "provider": "openai", "model": "fake", "base_url": server.openai_base_url,
            "structured_output": "off"}}})
        config = {"llm": {"cache_dir": str(tmp_path / "cache")},
                  "gating": {"contexts": ["rich"], "strategies": ["cot"], "refine_turns": 1}}
        records, _ = P.llm_predictions(cases, spec, config)
    assert [r["turn"] for r in records] == [0] * 10 + [1] * 10


def test_temperature_arms_are_refined_each_at_its_own_temperature(tmp_path):
    # temperatures [0, 1] x refine_turns 1: four arms, the follow-ups of the 1.0 arm are sent
    # at 1.0 (the arm's temperature is part of every turn's request)
    build_cases([OMIP_VERIFIED_DIR], None, tmp_path / "cases.jsonl", tmp_path / "cur.json")
    prov = Provenance(benchmark="gating", dataset="d", dataset_sha256="0" * 64, config_hash="x")
    with FakeLLMServer(max_lifetime_s=120) as server:
        server.responder = model
        spec = {"provider": "openai", "model": "fake", "base_url": server.openai_base_url,
                "structured_output": "off"}
        config = {"models": {"m": spec}, "llm": {"cache_dir": str(tmp_path / "cache")},
                  "gating": {"contexts": ["minimal"], "strategies": ["direct"],
                             "temperatures": [0.0, 1.0], "refine_turns": 1}}
        P.run(tmp_path / "cases.jsonl", "m", config, tmp_path / "m.jsonl",
              tmp_path / "m.usage.json")
        bodies = [r["body"] for r in server.requests]
    # 10 cases x 2 temperatures at turn 0, and as many follow-ups (each names CD999): 40
    assert len(bodies) == 40
    follow_up_temperatures = sorted(b["temperature"] for b in bodies if len(b["messages"]) > 2)
    assert follow_up_temperatures == [0.0] * 10 + [1.0] * 10
    score_model(tmp_path / "cases.jsonl", tmp_path / "m.jsonl", prov,
                {"n_resamples": 200, "seed": 1}, tmp_path / "m.csv", tmp_path / "m.pc.csv",
                tmp_path / "m.md", usage_json=tmp_path / "m.usage.json")
    table = pd.read_csv(tmp_path / "m.csv")
    for t in ("t0", "t1"):
        # turn 0: 1 of 4 gates hallucinated (0.25) in each of 10 cases; turn 1: none
        assert value(table, f"minimal_direct@{t}", "hallucination_rate") == (0.25, 10)
        assert value(table, f"minimal_direct@{t}#turn1", "hallucination_rate") == (0.0, 10)
        assert value(table, f"minimal_direct@{t}#turn1", "followups_sent") == (10, 10)
