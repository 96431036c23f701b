"""The sample viewer: each benchmark's items from its files, and a page that is safe to open.

The browser test (open, filter, read a known case's reply) is in test_report_browser.py,
on the page the workflow's report rule builds; here the page is opened in Chromium too,
built from a hand-made hostile item.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from scievals import benchmarks
from scievals.common.samples import request_cost
from scievals.report.viewer import collect, embedded_json, viewer_html

from .browser import find_chromium, visit

HOSTILE = "</script><script>document.title='owned'</script><!-- & \u2028 <b>bold</b>"


def _item(**fields) -> dict:
    base = {"benchmark": "gating", "model": "m", "item": "case-1", "condition": "c1",
            "input": "panel", "reply": "reply", "parse_status": "ok", "outcome": "scored",
            "metrics": {"hierarchy_f1": 0.5}, "rationale": "", "tokens_in": 10,
            "tokens_out": 2, "cost_usd": None, "latency_s": 0.1}
    return {**base, **fields}


def _data_block(html: str) -> str:
    match = re.search(r'<script type="application/json" id="sample-data">(.*?)</script>', html,
                      re.S)
    assert match, "no embedded data"
    return match.group(1)


def test_embedded_json_cannot_end_the_script_and_round_trips():
    items = [_item(reply=HOSTILE, input="a > b && c < d")]
    html = viewer_html(items)
    block = _data_block(html)
    assert "<" not in block and ">" not in block and "&" not in block
    assert "\u2028" not in block
    assert json.loads(block) == items  # \\u escapes decode back to the same text
    # The only script elements are the data block and the page's own script.
    assert html.count("<script") == 2
    assert embedded_json({"a": "</script>"}) == '{"a": "\\u003c/script\\u003e"}'


def test_every_registered_benchmark_names_a_samples_function():
    for bench in benchmarks.REGISTRY:
        assert bench.samples, bench.name
        assert callable(benchmarks.resolve(bench.samples)), bench.samples


def _gating_root(tmp_path: Path) -> Path:
    root = tmp_path / "wf"
    (root / "results/gating/predictions").mkdir(parents=True)
    (root / "results/gating/scores").mkdir(parents=True)
    record = {"case_id": "OMIP-X", "condition": "minimal_direct", "sample_index": 0,
              "context": None, "strategy": None, "raw_text": "my raw reply {", "hierarchy": None,
              "parse_status": "failed", "parse_error": "no JSON object", "error": None,
              "tokens_in": 1000, "tokens_out": 200, "latency_s": 1.5}
    (root / "results/gating/predictions/gpt.jsonl").write_text(json.dumps(record) + "\n")
    (root / "results/gating/predictions/gpt.usage.json").write_text(json.dumps(
        {"total": {"model": "gpt", "provider": "openai", "price_in_per_mtok": 3.0,
                   "price_out_per_mtok": 15.0}, "conditions": {}}))
    pd.DataFrame([{"model": "gpt", "case_id": "OMIP-X", "condition": "minimal_direct",
                   "sample_index": 0, "hierarchy_f1": 0.0, "parse_success_rate": 0.0}]).to_csv(
        root / "results/gating/scores/gpt.per_case.csv", index=False)
    return root


def test_gating_items_carry_reply_parse_status_metrics_and_cost(tmp_path):
    root = _gating_root(tmp_path)
    (item,) = collect(root, {"gating": ["gpt"]})
    assert (item["benchmark"], item["model"], item["item"]) == ("gating", "gpt", "OMIP-X")
    assert item["reply"] == "my raw reply {"
    assert (item["parse_status"], item["outcome"]) == ("failed", "parse failed")
    assert item["rationale"] == "no JSON object"
    assert item["metrics"]["hierarchy_f1"] == 0.0 and item["metrics"]["parse_success_rate"] == 0.0
    assert item["metrics"]["depth_accuracy"] is None  # not in the table: missing, not 0
    # 1000 tokens in at $3/Mtok + 200 out at $15/Mtok = 0.003 + 0.003 = 0.006 USD
    assert item["cost_usd"] == pytest.approx(0.006)
    assert request_cost(1000, 200, {}) is None  # an unpriced model has no cost


def test_waza_items_are_task_runs_with_grader_feedback(tmp_path):
    root = tmp_path / "wf"
    folder = root / "results/waza/predictions/agent"
    folder.mkdir(parents=True)
    run = {"run_number": 2, "status": "failed", "final_output": "done", "duration_ms": 1500,
           "transcript": [{"type": "user.message", "data": {"content": "do it"}},
                          {"type": "assistant.usage", "data": {"input_tokens": 40,
                                                               "output_tokens": 5}},
                          {"type": "assistant.usage", "data": {"input_tokens": 60,
                                                               "output_tokens": 7}}],
           "validations": {"judge": {"score": 0.25, "feedback": "missed the edge case"}}}
    (folder / "s1.json").write_text(json.dumps(
        {"skill": "s1", "tasks": [{"test_id": "t1", "display_name": "T", "runs": [run]}]}))
    (item,) = collect(root, {"waza": ["agent"]})
    assert item["item"] == "s1/t1#2" and item["outcome"] == "failed"
    assert item["metrics"] == {"judge": 0.25}
    assert item["rationale"] == "judge: missed the edge case"
    assert (item["tokens_in"], item["tokens_out"]) == (40 + 60, 5 + 7)
    assert item["latency_s"] == 1.5
    assert "[user.message] do it" in item["reply"]


@pytest.mark.slow
def test_hostile_reply_is_shown_as_text_in_chromium(tmp_path):
    if not find_chromium():
        pytest.skip("no chromium on PATH (test_report_browser.py says how to install it)")
    items = [_item(item="evil", reply=HOSTILE), _item(item="other", model="m2",
                                                       outcome="parse failed")]
    page_path = tmp_path / "samples.html"
    page_path.write_text(viewer_html(items), encoding="utf-8")
    page = visit(page_path.as_uri(), tmp_path / "profile", settle_s=1.0,
                 clicks=("js:(() => { const s = document.getElementById('filter-model');"
                         " s.value = 'm'; s.dispatchEvent(new Event('change')); return true; })()",
                         "evil"),
                 probe="[document.title, document.getElementById('count').textContent,"
                       " document.querySelector('#detail').innerText]")
    assert not page.errors, page.errors
    title, count, detail = page.probe
    assert title == "scievals sample viewer"  # the reply's script never ran
    assert count == "1 of 2 items"
    assert HOSTILE.replace("\u2028", "") in detail.replace("\u2028", "")
