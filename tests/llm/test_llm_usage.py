"""Token, cost, latency and cache accounting."""

from __future__ import annotations

import json
import math

import pytest
from scievals.common.provenance import Provenance
from scievals.common.tables import result_rows
from scievals.llm.base import LLMResponse, ModelSpec, Usage
from scievals.llm.usage import cost_usd, summarize_usage, write_usage
from scievals.llm.usage_rows import usage_metric_rows

PRICED = ModelSpec(
    name="claude",
    provider="anthropic",
    model="claude-x",
    price_in_per_mtok=3.0,
    price_out_per_mtok=15.0,
)
RESPONSES = [
    LLMResponse(
        case_id="a",
        text="x",
        usage=Usage(tokens_in=1000, tokens_out=200),
        latency_s=0.2,
        attempts=3,
    ),
    LLMResponse(
        case_id="b",
        text="y",
        usage=Usage(tokens_in=500, tokens_out=100),
        latency_s=0.4,
        cache_hit=True,
    ),
    LLMResponse(case_id="c", error="HTTP 500: boom", attempts=4),
]


def test_cost_from_prices_per_million_tokens():
    assert cost_usd(PRICED, 1_000_000, 0) == 3.0
    assert cost_usd(PRICED, 0, 1_000_000) == 15.0
    assert cost_usd(PRICED, 1500, 300) == pytest.approx(0.009, abs=1e-15)
    assert cost_usd(PRICED.model_copy(update={"price_in_per_mtok": None}), 10, 10) is None


def test_summary_arithmetic():
    usage = summarize_usage(PRICED, RESPONSES, wall_s=1.5)
    assert (usage.requests, usage.cache_hits, usage.cache_misses, usage.errors) == (3, 1, 2, 1)
    assert (usage.tokens_in, usage.tokens_out) == (1500, 300)
    assert usage.cost_usd == pytest.approx((1500 * 3 + 300 * 15) / 1e6)  # 0.009
    assert (usage.new_tokens_in, usage.new_tokens_out) == (1000, 200)
    assert usage.new_cost_usd == pytest.approx((1000 * 3 + 200 * 15) / 1e6)  # 0.006
    assert usage.retries == 2 + 3
    assert usage.latency.mean_s == pytest.approx(0.3)
    assert usage.latency.p50_s == pytest.approx(0.3)
    assert usage.latency.p95_s == pytest.approx(0.39)  # linear: 0.2 + 0.95 * 0.2
    assert usage.latency.wall_s == 1.5
    assert (usage.model, usage.provider, usage.model_id) == ("claude", "anthropic", "claude-x")


def test_unpriced_and_empty():
    spec = ModelSpec(name="local", provider="openai", model="m", base_url="http://h:1/v1")
    usage = summarize_usage(spec, RESPONSES)
    assert usage.cost_usd is None and usage.new_cost_usd is None
    empty = summarize_usage(spec, [])
    assert empty.requests == 0 and empty.latency.mean_s is None and empty.tokens_in == 0


def test_write_usage_is_json_beside_predictions(tmp_path):
    path = tmp_path / "predictions" / "claude" / "usage.json"
    write_usage(path, summarize_usage(PRICED, RESPONSES, wall_s=2.0))
    data = json.loads(path.read_text())
    assert data["tokens_in"] == 1500 and data["cost_usd"] == pytest.approx(0.009)
    assert data["latency"]["wall_s"] == 2.0
    assert not list(path.parent.glob("*.tmp"))
    write_usage(path, summarize_usage(PRICED.model_copy(update={"price_in_per_mtok": None}), []))
    assert json.loads(path.read_text())["cost_usd"] is None


def test_metric_rows_feed_result_tables():
    rows = usage_metric_rows(summarize_usage(PRICED, RESPONSES))
    assert [(r["metric"], r["value"]) for r in rows] == [
        ("tokens_in", 1500),
        ("tokens_out", 300),
        ("cost_usd", pytest.approx(0.009)),
        ("cache_hits", 1),
        ("failed_requests", 1),  # case c: HTTP 500
        ("latency_mean_s", pytest.approx(0.3)),  # (0.2 + 0.4) / 2, the answered requests
    ]
    provenance = Provenance("gating", "demo", "0" * 64, "abc", git_commit="deadbeef")
    table = result_rows(provenance, "claude", "", rows)
    assert list(table["metric"]) == ["tokens_in", "tokens_out", "cost_usd", "cache_hits",
                                     "failed_requests", "latency_mean_s"]
    assert list(table["n"]) == [3, 3, 3, 3, 3, 3]
    # A usage.json read back gives the same rows.
    dumped = summarize_usage(PRICED, RESPONSES).model_dump(mode="json")
    assert [(r["metric"], r["value"]) for r in usage_metric_rows(dumped)] == [
        (r["metric"], r["value"]) for r in rows]
    unpriced = usage_metric_rows(
        summarize_usage(
            PRICED.model_copy(update={"price_in_per_mtok": None, "price_out_per_mtok": None}),
            RESPONSES,
        )
    )
    table = result_rows(provenance, "claude", "", unpriced)
    assert math.isnan(table.loc[table["metric"] == "cost_usd", "value"].item())
