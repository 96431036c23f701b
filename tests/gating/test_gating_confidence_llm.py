"""confidence: "on" through gating's LLM path against the local fake server: the request's
schema asks for a confidence on every node, the reply's confidences are parsed, and the table
says how many gates stated one (issue 42)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from scievals.common.provenance import Provenance
from scievals.gating import predict as P
from scievals.gating.curate import build_cases
from scievals.gating.paths import OMIP_VERIFIED_DIR
from scievals.gating.prompts import build_prompt, reply_schema
from scievals.gating.score import score_model
from support.fake_server import FakeLLMServer

PROV = Provenance(benchmark="gating", dataset="d", dataset_sha256="0" * 64, config_hash="x")


def _tree(confidences):
    """All Events > Singlets > Live cells > CD3+ T cells, the three gates below the root with
    the given confidences (None: the key left out)."""
    names = ["Singlets", "Live cells", "CD3+ T cells"]
    node = {"name": names[-1], "markers": [], "children": []}
    nodes = [node]
    for name in reversed(names[:-1]):
        node = {"name": name, "markers": [], "children": [node]}
        nodes.insert(0, node)
    for gate, conf in zip(nodes, confidences):
        if conf is not None:
            gate["confidence"] = conf
    return {"name": "All Events", "markers": [], "confidence": 1.0, "children": [nodes[0]]}


def _nodes_ask_for_confidence(schema: dict, root: dict, seen=None) -> bool:
    """Every object schema with a ``name`` property also requires ``confidence``."""
    seen = seen if seen is not None else set()
    if id(schema) in seen:
        return True
    seen.add(id(schema))
    if schema.get("$ref") == "#":
        return _nodes_ask_for_confidence(root, root, seen)
    ok = True
    props = schema.get("properties") or {}
    if "name" in props:
        ok = ("confidence" in props and props["confidence"].get("type") == "number"
              and "confidence" in schema.get("required", []))
    for value in [*props.values(), schema.get("items")]:
        if isinstance(value, dict) and value:
            ok = ok and _nodes_ask_for_confidence(value, root, seen)
    return ok


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cases")
    build_cases([OMIP_VERIFIED_DIR], None, tmp / "cases.jsonl", tmp / "cur.json")
    return tmp / "cases.jsonl"


@pytest.mark.parametrize("confidences, coverage", [((0.9, 0.8, 0.4), 1.0),
                                                   # one missing, one out of range: 1 / 3
                                                   ((0.9, None, 1.5), 1 / 3)])
def test_confidence_on_schema_parse_and_coverage(cases, tmp_path, confidences, coverage):
    with FakeLLMServer(max_lifetime_s=120) as server:
        server.enforced_reply = json.dumps(_tree(confidences))
        spec = {"provider": "openai", "model": "fake", "base_url": server.openai_base_url,
                "structured_output": "auto"}
        config = {"models": {"m": spec}, "llm": {"cache_dir": str(tmp_path / "cache")},
                  "gating": {"contexts": ["minimal"], "strategies": ["direct"],
                             "confidence": ["off", "on"]}}
        pred = tmp_path / "m.jsonl"
        P.run(cases, "m", config, pred, tmp_path / "usage.json")
        bodies = [r["body"] for r in server.requests]
    schemas = [b["response_format"]["json_schema"]["schema"] for b in bodies]
    asks = [_nodes_ask_for_confidence(s, s) for s in schemas]
    # 10 cases "off" (the schema as before: no confidence), then 10 "on"
    assert asks == [False] * 10 + [True] * 10
    assert all("confidence" in b["messages"][-1]["content"] for b in bodies[10:])
    assert not any("confidence" in b["messages"][-1]["content"] for b in bodies[:10])
    score_model(cases, pred, PROV, {"n_resamples": 50, "seed": 1}, tmp_path / "t.csv",
                tmp_path / "p.csv", tmp_path / "r.md")
    table = pd.read_csv(tmp_path / "t.csv")
    assert set(table["condition"]) == {"minimal_direct", "minimal_direct+conf"}
    # (the fake server gives both arms the same reply, so the "off" arm's volunteered
    # confidences are read too: what a reply states is never dropped)
    cov = table[(table["metric"] == "confidence_coverage")
                & (table["condition"] == "minimal_direct+conf")]
    # every case's 3 gates below the root state the same: its share is the coverage
    assert cov["value"].iloc[0] == pytest.approx(coverage) and cov["n"].iloc[0] == 10
    per = pd.read_csv(tmp_path / "p.csv")
    on = per[per["condition"] == "minimal_direct+conf"]
    stated = [c for text in on["units"] for _, _, c in json.loads(text)]
    assert sorted(set(stated), key=str) == sorted({c if c is not None and c <= 1 else None
                                                   for c in confidences}, key=str)


def test_off_keeps_the_prompt_and_schema(verified_cases):
    case = verified_cases[0]
    assert build_prompt(case, "minimal", "direct") == build_prompt(case, "minimal", "direct",
                                                                   False)
    assert "confidence" not in build_prompt(case, "minimal", "direct")
    assert "confidence" not in json.dumps(reply_schema(False))
    assert P.condition_name("minimal", "direct") == "minimal_direct"
    assert P.condition_name("minimal", "direct", True) == "minimal_direct+conf"


@pytest.mark.parametrize("value, switches", [("off", [False]), ("on", [True]),
                                             (["off", "on"], [False, True]),
                                             (True, [True]), ([False, True], [False, True])])
def test_confidence_setting(value, switches):
    # a bare YAML on / off is read as true / false: the same switches
    from scievals.config_validation import validate_config
    from scievals.gating.prompts import confidence_settings

    checked = validate_config({"gating": {"confidence": value}})
    assert confidence_settings(checked["gating"]) == switches


@pytest.mark.parametrize("value", ["maybe", 1, [], ["on", "on"]])
def test_bad_confidence_setting_is_one_line(value):
    from scievals.common.errors import ScievalsError
    from scievals.config_validation import validate_config

    with pytest.raises(ScievalsError) as caught:
        validate_config({"gating": {"confidence": value}})
    line = caught.value.one_line()
    assert "gating.confidence" in line and "\n" not in line
