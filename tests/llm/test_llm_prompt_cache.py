"""Prompt caching against the local fake server: the shared system prompt is marked for
Anthropic's cache (without changing the response cache key), both providers' cached-token
counts are read, and cached / cache-written input tokens are priced at their own rates."""

from __future__ import annotations

import pytest
from llm_helpers import anthropic_spec, make_requests, openai_spec
from scievals.llm.cache import cache_key, key_material
from scievals.llm.providers import provider_class
from scievals.llm.runner import run_batch, sample_params
from scievals.llm.usage_rows import usage_metric_rows

SYSTEM = "you are a gating expert"  # 5 words, the fake server's tokens


def rows(usage) -> dict:
    return {row["metric"]: row["value"] for row in usage_metric_rows(usage)}


def test_openai_cached_tokens_are_read_and_priced_at_the_cached_rate(
        server, settings, fake_key):
    server.prompt_cache = True
    spec = openai_spec(server, max_connections=1, price_in_per_mtok=2.0,
                       price_cached_in_per_mtok=0.5, price_out_per_mtok=4.0)
    result = run_batch(spec, make_requests(3, system=SYSTEM), settings, scope="test/pcache")
    # each prompt: 5 system words + 1 user word; the 2nd and 3rd read the 5 from the cache
    assert [r.usage.cached_in for r in result.responses] == [0, 5, 5]
    assert result.usage.tokens_in == 18 and result.usage.cached_in == 10
    assert result.usage.tokens_out == 6  # "reply: qN", 2 words each
    # by hand: 8 uncached at $2/M + 10 cached at $0.5/M + 6 out at $4/M = 45 micro-USD
    assert result.usage.cost_usd == pytest.approx(45e-6, abs=1e-15)
    assert rows(result.usage)["cached_tokens_in"] == 10
    unpriced_cache = spec.model_copy(update={"price_cached_in_per_mtok": None})
    again = run_batch(unpriced_cache, make_requests(3, system=SYSTEM), settings,
                      scope="test/pcache")
    # without a cached rate the input price applies to all 18: 36 + 24 = 60 micro-USD
    assert again.usage.cost_usd == pytest.approx(60e-6, abs=1e-15)


def test_anthropic_marks_the_system_prompt_and_prices_reads_and_writes(
        server, settings, fake_key):
    server.prompt_cache = True
    spec = anthropic_spec(server, max_connections=1, price_in_per_mtok=3.0,
                          price_cached_in_per_mtok=0.3, price_cache_write_per_mtok=3.75,
                          price_out_per_mtok=15.0)
    result = run_batch(spec, make_requests(3, system=SYSTEM), settings, scope="test/pcache")
    assert all(r["body"]["system"] == [{"type": "text", "text": SYSTEM,
                                        "cache_control": {"type": "ephemeral"}}]
               for r in server.requests)
    assert [(r.usage.cache_write_in, r.usage.cached_in) for r in result.responses] == [
        (5, 0), (0, 5), (0, 5)]
    # tokens_in is the whole prompt (uncached + written + read), 6 a request
    assert result.usage.tokens_in == 18
    # by hand: 3 uncached x $3 + 10 read x $0.3 + 5 written x $3.75 + 6 out x $15, per M
    assert result.usage.cost_usd == pytest.approx((9 + 3 + 18.75 + 90) / 1e6, abs=1e-15)
    assert rows(result.usage)["cache_write_tokens_in"] == 5
    assert rows(result.usage)["cached_tokens_in"] == 10


def test_a_model_without_cached_tokens_gets_no_extra_rows(server, settings, fake_key):
    result = run_batch(openai_spec(server), make_requests(2, system=SYSTEM), settings,
                       scope="test/pcache")
    assert set(rows(result.usage)) == {"tokens_in", "tokens_out", "cost_usd", "cache_hits",
                                       "failed_requests", "latency_mean_s"}


def test_marking_leaves_the_cache_key_and_off_sends_a_plain_string(server, settings, fake_key):
    marked = anthropic_spec(server)
    plain = anthropic_spec(server, prompt_cache=False)
    [request] = make_requests(1, system=SYSTEM)

    def key(spec):
        extra = provider_class(spec).cache_extra(spec, request)
        return cache_key(key_material(spec, request, sample_params(spec, 0), "s", extra))

    assert key(marked) == key(plain)
    run_batch(plain, [request], settings, scope="test/pcache")
    assert server.requests[0]["body"]["system"] == SYSTEM
