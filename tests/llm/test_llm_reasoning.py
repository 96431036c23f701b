"""Reasoning models (scievals.llm.reasoning) against the local fake server: a 400 naming a
sampling parameter gets one retry without it and one notice for the model, the cache keys
the request as configured, reasoning tokens get their own usage row and enter the cost, and
thinking text stays apart from the answer the parser reads."""

from __future__ import annotations

import asyncio
import json

import pytest
from llm_helpers import FAKE_KEY, anthropic_spec, make_requests, openai_spec
from scievals.common.errors import ScievalsError
from scievals.llm import reasoning
from scievals.llm.base import GenerateParams, RequestRejected
from scievals.llm.cache import cache_key, key_material
from scievals.llm.providers.anthropic import AnthropicAPI
from scievals.llm.registry import model_spec
from scievals.llm.runner import run_batch, sample_params
from scievals.llm.usage_rows import usage_metric_rows

PRICES = {"price_in_per_mtok": 1.0, "price_out_per_mtok": 2.0}


def notices_of(notice_dir, kind: str) -> list[dict]:
    lines = [json.loads(x) for p in notice_dir.iterdir() for x in p.read_text().splitlines()]
    return [line for line in lines if line["kind"] == kind]


def test_a_refused_temperature_is_dropped_after_one_retry_and_said_once(
        server, settings, fake_key, notice_dir):
    server.refused_sampling = {"temperature"}
    server.thinking_tokens = 50
    spec = openai_spec(server, max_connections=2, **PRICES)
    result = run_batch(spec, make_requests(6), settings, scope="test/reasoning")
    assert all(r.error is None and r.text == f"reply: q{i}"
               for i, r in enumerate(result.responses))
    assert all(r.dropped_params == ["temperature"] for r in result.responses)
    # the thinking is kept apart: the answer the parser reads is the reply alone
    assert all(r.thinking == "thought " * 50 for r in result.responses)
    per_prompt = {p: server.prompts().count(p) for p in set(server.prompts())}
    assert set(per_prompt) == {f"q{i}" for i in range(6)}
    assert max(per_prompt.values()) <= 2  # at most one retry per request
    with_temperature = [r for r in server.requests if "temperature" in r["body"]]
    # only requests sent before the first refusal came back carry it (2 in flight at most)
    assert 1 <= len(with_temperature) <= 2
    assert len(server.requests) == 6 + len(with_temperature)
    [notice] = notices_of(notice_dir, "sampling_refused")
    assert notice["message"].startswith("fake-gpt: the server refused temperature, so 6 of 6 "
                                        "requests went without it")
    # reasoning tokens: 50 a reply, inside tokens_out (2 words of answer + 50 = 52 each)
    assert [r.usage.reasoning_tokens for r in result.responses] == [50] * 6
    assert result.usage.reasoning_tokens == 300 and result.usage.tokens_out == 6 * 52
    # cost by hand: 6 prompt words at $1/M + 312 output tokens at $2/M
    assert result.usage.cost_usd == pytest.approx((6 * 1.0 + 312 * 2.0) / 1e6, abs=1e-15)
    rows = {row["metric"]: row for row in usage_metric_rows(result.usage)}
    assert rows["reasoning_tokens"]["value"] == 300 and rows["reasoning_tokens"]["n"] == 6


def test_the_cache_keeps_the_configured_request_and_a_rerun_sends_nothing(
        server, settings, fake_key):
    server.refused_sampling = {"temperature"}
    spec = openai_spec(server, max_connections=1)
    requests = make_requests(3)
    first = run_batch(spec, requests, settings, scope="test/reasoning")
    configured = [cache_key(key_material(spec, q, sample_params(spec, 0), "test/reasoning",
                                         None)) for q in requests]
    assert [r.cache_key for r in first.responses] == configured
    assert json.loads(next(settings.cache_dir.rglob("*.json")).read_text())[
        "request"]["params"]["temperature"] == 0.0  # the key material says what was asked
    sent = server.count
    again = run_batch(spec, requests, settings, scope="test/reasoning")
    assert server.count == sent and again.usage.cache_hits == 3
    assert [r.text for r in again.responses] == [r.text for r in first.responses]


def test_anthropic_thinking_is_sent_counted_and_kept_apart_from_the_answer(
        server, settings, fake_key, tmp_path):
    server.thinking_tokens = 7
    params = GenerateParams(max_tokens=2048, thinking_budget=1024)
    spec = anthropic_spec(server, params=params, **PRICES)
    records = tmp_path / "records.jsonl"
    result = run_batch(spec, make_requests(2), settings, scope="test/thinking",
                       records_path=records)
    body = server.requests[0]["body"]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert [r.text for r in result.responses] == ["reply: q0", "reply: q1"]
    assert [r.thinking for r in result.responses] == ["thought " * 7] * 2
    assert result.usage.reasoning_tokens == 14 and result.usage.tokens_out == 2 * (2 + 7)
    lines = [json.loads(x) for x in records.read_text().splitlines()]
    assert [line["thinking"] for line in lines] == ["thought " * 7] * 2
    assert [line["text"] for line in lines] == ["reply: q0", "reply: q1"]


def test_anthropic_refusing_temperature_with_thinking_is_asked_again_without_it(
        server, fake_key):
    # The installed SDK's API version sends no sampling parameter at all; older ones send
    # them through extra_body, which is where Anthropic's 400 comes from.
    server.refused_sampling = {"temperature"}
    spec = anthropic_spec(server, params=GenerateParams(max_tokens=2048, thinking_budget=1024))
    params = spec.params
    [first, second] = make_requests(2)

    async def both():
        api = AnthropicAPI(spec, FAKE_KEY)
        api.sampling = "extra_body"
        try:
            return [await api.generate(first, params), await api.generate(second, params)]
        finally:
            await api.aclose()

    replies = asyncio.run(both())
    assert ["temperature" in r["body"] for r in server.requests] == [True, False, False]
    assert all(r["body"]["thinking"]["budget_tokens"] == 1024 for r in server.requests)
    assert [r.dropped_params for r in replies] == [["temperature"], ["temperature"]]
    assert [r.text for r in replies] == ["reply: q0", "reply: q1"]


@pytest.mark.parametrize(("message", "param", "status", "kwargs", "expected"), [
    ("HTTP 400: Unsupported parameter: 'temperature' is not supported with this model.",
     "temperature", 400, {"temperature": 0, "top_p": 1}, ["temperature"]),
    (("HTTP 400: Unsupported value: 'temperature' does not support 0 with this model. Only "
      "the default (1) value is supported."), None, 400, {"temperature": 0}, ["temperature"]),
    ("HTTP 400: `top_p` may only be set to 1 when thinking is enabled.", None, 400,
     {"extra_body": {"temperature": 0, "top_p": 0.9}}, ["top_p"]),
    # a 400 about the prompt that happens to say the word; a parameter not sent; another status
    ("HTTP 400: prompt too long: describe the temperature of the sample", None, 400,
     {"temperature": 0}, []),
    ("HTTP 400: Unsupported parameter: 'temperature'", None, 400, {"top_p": 1}, []),
    ("HTTP 422: Unsupported parameter: 'temperature'", None, 422, {"temperature": 0}, []),
])
def test_which_400s_refuse_a_sampling_parameter(message, param, status, kwargs, expected):
    exc = RequestRejected(message, status, param)
    assert reasoning.refused_parameters(exc, kwargs) == expected


def test_without_removes_from_both_places():
    kwargs = {"model": "m", "temperature": 0, "extra_body": {"top_p": 1}}
    assert reasoning.without(kwargs, ["temperature", "top_p"]) == {"model": "m"}
    assert reasoning.without(kwargs, []) is kwargs


def test_reasoning_settings_are_validated_in_one_line():
    base = {"models": {"r": {"provider": "openai", "model": "o3", "params": {}}}}
    for params, expected in [({"reasoning_effort": "huge"}, "reasoning_effort"),
                             ({"thinking_budget": 500}, "thinking_budget"),
                             ({"thinking_budget": 4096, "max_tokens": 4096}, "below max_tokens")]:
        base["models"]["r"]["params"] = params
        with pytest.raises(ScievalsError, match=expected) as info:
            model_spec("r", base)
        assert "\n" not in str(info.value)


def test_unset_reasoning_parameters_leave_todays_cache_keys_alone():
    # the key's params are the five fields the recipe had before these parameters existed
    assert set(GenerateParams().key_dump()) == {"temperature", "max_tokens", "top_p", "seed",
                                                "stop"}
    assert GenerateParams(reasoning_effort="low").key_dump()["reasoning_effort"] == "low"
    assert GenerateParams().key_dump() != GenerateParams(reasoning_effort="low").key_dump()
