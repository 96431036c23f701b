"""Structured output through gating's predict and score: the parse rate per model in the tables
tells a model asked with the schema from the same model asked without it."""

from __future__ import annotations

import json

import pandas as pd
from scievals.common.provenance import Provenance
from scievals.gating import predict as P
from scievals.gating.curate import build_cases
from scievals.gating.paths import OMIP_VERIFIED_DIR
from scievals.gating.score import score_model
from support.fake_server import FakeLLMServer

TREE = {"name": "All Events", "markers": [], "children": [
    {"name": "Singlets", "markers": [], "children": [
        {"name": "Live cells", "markers": [], "children": [
            {"name": "CD3+ T cells", "markers": ["CD3"], "children": []}]}]}]}


def test_parse_rate_with_and_without_structured_output(tmp_path):
    build_cases([OMIP_VERIFIED_DIR], None, tmp_path / "cases.jsonl", tmp_path / "cur.json")
    prov = Provenance(benchmark="gating", dataset="d", dataset_sha256="0" * 64, config_hash="x")
    rates = {}
    with FakeLLMServer(max_lifetime_s=120) as server:
        # a small model: the JSON tree when the server holds it to the schema, else prose
        server.enforced_reply = json.dumps(TREE)
        server.free_reply = "Gate on singlets, then live cells, then CD3+ T cells."
        for name, setting in (("with_schema", "auto"), ("without_schema", "off")):
            spec = {"provider": "openai", "model": "fake", "base_url": server.openai_base_url,
                    "structured_output": setting}
            config = {"models": {name: spec}, "llm": {"cache_dir": str(tmp_path / "cache")},
                      "gating": {"contexts": ["minimal"], "strategies": ["direct"]}}
            pred = tmp_path / f"{name}.jsonl"
            P.run(tmp_path / "cases.jsonl", name, config, pred, tmp_path / f"{name}.usage.json")
            score_model(tmp_path / "cases.jsonl", pred, prov, {"n_resamples": 50, "seed": 1},
                        tmp_path / f"{name}.csv", tmp_path / f"{name}.per_case.csv",
                        tmp_path / f"{name}.md")
            table = pd.read_csv(tmp_path / f"{name}.csv")
            row = table[table["metric"] == "parse_success_rate"]
            assert list(row["condition"]) == ["minimal_direct"]
            rates[name] = (float(row["value"].iloc[0]), int(row["n"].iloc[0]))
        sent = ["response_format" in r["body"] for r in server.requests]
    # 10 verified cases each: every reply under the schema is the tree (10/10 parsed); the
    # prose has no hierarchy in it (0/10)
    assert sent == [True] * 10 + [False] * 10
    assert rates == {"with_schema": (1.0, 10), "without_schema": (0.0, 10)}
