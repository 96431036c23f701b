"""Issue 42's acceptance tests for autogkb: an own file's stated confidences give the Brier
score and ECE of hand arithmetic and a paired comparison of over-stated ones; confidence "on"
against the fake server asks for a confidence on every annotation and reports coverage."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from scievals.autogkb import curate, predict, score
from scievals.autogkb.metrics import FIELDS, METRIC_RANGES
from scievals.stats.calibration_rows import per_case_with_calibration
from scievals.stats.comparisons import comparison_table
from support.fake_server import FakeLLMServer

BOOT = {"n_resamples": 1000, "seed": 5}
INVENTED = dict.fromkeys(FIELDS, "zzqx invented")  # shares no token with any curated value


def _own(cases, even_conf, odd_conf):
    """Per article: its first curated annotation T (right: it pairs with itself, score 1) and
    one invented X (wrong: pair score 0), with (T, X) confidences by the article's parity."""
    out = {}
    for i, case in enumerate(cases):
        t_conf, x_conf = even_conf if i % 2 == 0 else odd_conf
        t = {f: case["truth"][0].get(f) for f in FIELDS}
        out[case["case_id"]] = [{**t, "confidence": t_conf},
                                {**INVENTED, "confidence": x_conf}]
    return out


@pytest.fixture(scope="module")
def scored(curated_demo, tmp_path_factory):
    d, _ = curated_demo
    tmp = tmp_path_factory.mktemp("own")
    cases = curate.read_cases(d / "cases.jsonl")
    prov = score.provenance_for(d / "cases.jsonl", d / "report.json", "cfg")
    out = {"n": len(cases)}
    for model, even, odd in (("calibrated", (0.5, 0.5), (1.0, 0.0)),
                             ("overstated", (0.8, 0.8), (1.0, 0.3))):
        user = tmp / f"{model}.json"
        user.write_text(json.dumps(_own(cases, even, odd)))
        pred = tmp / f"{model}.jsonl"
        predict.import_predictions(user, d / "cases.jsonl", model, pred)
        paths = {k: tmp / f"{model}.{k}" for k in ("csv", "per_case.csv", "md")}
        score.score_model(d / "cases.jsonl", pred, prov, BOOT, 0.7, paths["csv"],
                          paths["per_case.csv"], paths["md"], model)
        out[model] = paths
    return out


def _value(paths, metric):
    return pd.read_csv(paths["csv"]).set_index("metric").loc[metric]


def test_own_file_by_hand_and_paired(scored):
    n = scored["n"]
    even, odd = (n + 1) // 2, n // 2  # articles 0, 2, 4, ... and 1, 3, ...
    # calibrated: even articles T and X at 0.5 (bin [0.5, 0.6): accuracy 1/2), odd articles
    # T at 1.0 (last bin, accuracy 1) and X at 0.0 (first bin, accuracy 0): ECE 0.
    # Brier: an even article 0.5^2 + 0.5^2 = 0.5, an odd one 0; over 2n units.
    brier = _value(scored["calibrated"], "calibration_brier")
    assert brier["value"] == pytest.approx(0.5 * even / (2 * n)) and brier["n"] == 2 * n
    assert brier["ci_low"] <= brier["value"] <= brier["ci_high"]
    assert _value(scored["calibrated"], "calibration_ece")["value"] == pytest.approx(0.0)
    assert _value(scored["calibrated"], "confidence_coverage")["value"] == 1.0
    # overstated: even T, X at 0.8 (accuracy 1/2: gap 0.3 on 2 x even units), odd T at 1.0
    # (gap 0), X at 0.3 (accuracy 0: gap 0.3 on `odd` units):
    # ECE = 0.3 (2 even + odd) / (2 n)
    ece = _value(scored["overstated"], "calibration_ece")
    assert ece["value"] == pytest.approx(0.3 * (2 * even + odd) / (2 * n))
    models = ["calibrated", "overstated"]
    metrics = per_case_with_calibration(
        {"per_case": [scored[m]["per_case.csv"] for m in models],
         "table": [scored[m]["csv"] for m in models]}, models, ["one_to_one_score"], {}, BOOT,
        METRIC_RANGES)
    table = comparison_table("autogkb", metrics, BOOT)
    row = table[table["metric"] == "calibration_ece"].iloc[0]
    values = {row["arm_a"]: row["value_a"], row["arm_b"]: row["value_b"]}
    assert values["overstated"] > values["calibrated"] and row["p_value"] < 0.05
    assert row["n"] == n


def _reply(confidences):
    base = {f: None for f in FIELDS}
    items = [{**base, "Gene": f"G{i}"} for i in range(len(confidences))]
    for item, conf in zip(items, confidences):
        if conf is not None:
            item["confidence"] = conf
    return json.dumps({"annotations": items})


@pytest.mark.parametrize("confidences, coverage", [((0.9, 0.2), 1.0),
                                                   ((0.9, None), 0.5), (("high", 0.3), 0.5)])
def test_fake_server_asks_parses_and_counts(curated_demo, tmp_path, confidences, coverage):
    d, _ = curated_demo
    with FakeLLMServer(max_lifetime_s=120) as server:
        server.enforced_reply = _reply(confidences)
        spec = {"provider": "openai", "model": "fake", "base_url": server.openai_base_url,
                "structured_output": "auto"}
        cfg = {"models": {"m": spec}, "llm": {"cache_dir": str(tmp_path / "cache")},
               "autogkb": {"confidence": "on"}}
        predict.run(d / "cases.jsonl", d / "vocab.json", "m", cfg, tmp_path / "p.jsonl",
                    tmp_path / "u.json")
        bodies = [r["body"] for r in server.requests]
    items = [b["response_format"]["json_schema"]["schema"]["properties"]["annotations"]["items"]
             for b in bodies]
    assert len(items) == 17
    assert all(i["properties"]["confidence"]["type"] == "number"
               and "confidence" in i["required"] for i in items)
    assert all('"confidence"' in b["messages"][-1]["content"] for b in bodies)
    prov = score.provenance_for(d / "cases.jsonl", d / "report.json", "cfg")
    score.score_model(d / "cases.jsonl", tmp_path / "p.jsonl", prov, BOOT, 0.7,
                      tmp_path / "s.csv", tmp_path / "pa.csv", tmp_path / "r.md", "m")
    table = pd.read_csv(tmp_path / "s.csv")
    assert set(table["condition"]) == {"evidence+conf"}
    row = table.set_index("metric").loc["confidence_coverage"]
    # every article has the same two annotations: its share is the coverage; n = articles
    assert row["value"] == pytest.approx(coverage) and row["n"] == 17
    assert row["ci_low"] <= row["value"] <= row["ci_high"] and row["ci_low"] < row["ci_high"]
