"""Retries over real HTTP against the fake server: what is retried, what fails at once."""

from __future__ import annotations

import itertools
import time

import pytest
from llm_helpers import anthropic_spec, make_requests, openai_spec
from scievals.common.errors import ScievalsError
from scievals.common.io import read_jsonl
from scievals.llm.runner import run_batch
from scievals.llm.settings import LLMSettings

SPECS = {"openai": openai_spec, "anthropic": anthropic_spec}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize(
    "fault", ["429:0.01", "500", "503", "malformed", "cut", "drop", "slow:1.5"]
)
def test_transient_fault_is_retried_and_succeeds(server, fake_key, settings, provider, fault):
    spec = SPECS[provider](server, timeout_s=0.5)
    server.script["q1"] = [fault, fault]
    result = run_batch(spec, make_requests(3), settings, scope="test/v1")
    by_case = {r.case_id: r for r in result.responses}
    assert by_case["case1"].error is None
    assert by_case["case1"].text == "reply: q1"
    assert by_case["case1"].attempts == 3
    assert by_case["case0"].attempts == 1
    assert server.prompts().count("q1") == 3
    assert result.usage.retries == 2
    assert result.usage.errors == 0


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_attempt_limit_gives_error_response_and_batch_goes_on(server, fake_key, settings, provider):
    spec = SPECS[provider](server)
    server.script["q0"] = ["500"] * 10
    result = run_batch(spec, make_requests(3), settings, scope="test/v1")
    first, *rest = result.responses
    assert first.error is not None and "HTTP 500" in first.error
    assert first.text is None
    assert first.attempts == settings.max_attempts == 4
    assert server.prompts().count("q0") == 4
    assert [r.text for r in rest] == ["reply: q1", "reply: q2"]
    assert result.usage.errors == 1
    # Errors are never cached: the next run asks again (and now succeeds).
    server.script["q0"] = []
    server.reset_log()
    again = run_batch(spec, make_requests(3), settings, scope="test/v1")
    assert server.prompts() == ["q0"], server.requests
    assert again.responses[0].text == "reply: q0"
    assert again.usage.cache_hits == 2


def test_retry_after_is_honoured(server, fake_key, tmp_path):
    # Backoff alone would wait ~1 s (initial wait) here; the server asks for 0.3 s.
    settings = LLMSettings(cache_dir=tmp_path / "c", max_attempts=3, max_wait_s=10)
    server.script["q0"] = ["429:0.3"]
    run_batch(openai_spec(server), make_requests(1), settings, scope="test/v1")
    t = [r["t"] for r in server.requests]
    assert len(t) == 2
    assert 0.3 <= t[1] - t[0] < 0.9


def test_retry_after_is_capped_by_max_wait(server, fake_key, tmp_path):
    settings = LLMSettings(cache_dir=tmp_path / "c", max_attempts=3, max_wait_s=0.2)
    server.script["q0"] = ["429:30"]
    started = time.monotonic()
    result = run_batch(openai_spec(server), make_requests(1), settings, scope="test/v1")
    assert result.responses[0].text == "reply: q0"
    assert time.monotonic() - started < 5


def test_backoff_without_retry_after_grows_exponentially(server, fake_key, tmp_path):
    # initial wait 1 s, then 2 s: capped at 0.15 s here, so both waits sit at the cap.
    settings = LLMSettings(cache_dir=tmp_path / "c", max_attempts=3, max_wait_s=0.15)
    server.script["q0"] = ["500", "500"]
    run_batch(openai_spec(server), make_requests(1), settings, scope="test/v1")
    t = [r["t"] for r in server.requests]
    gaps = [b - a for a, b in itertools.pairwise(t)]
    assert len(gaps) == 2 and all(0.15 <= g < 0.6 for g in gaps)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("status", ["401", "403"])
def test_auth_failure_stops_batch_at_once_naming_model_and_variable(
    server, fake_key, settings, provider, status
):
    spec = SPECS[provider](server)
    # Some servers echo the key in their error text; it must not reach the message.
    server.error_messages[int(status)] = f"Incorrect API key provided: {fake_key}"
    server.script["q0"] = [status]
    with pytest.raises(ScievalsError) as info:
        run_batch(spec, make_requests(1), settings, scope="test/v1")
    message = info.value.one_line()
    assert spec.name in message
    assert "SCIEVALS_TEST_LLM_KEY" in message
    assert fake_key not in message
    assert server.count == 1  # no retry


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_bad_request_aborts_batch_without_retry(server, fake_key, settings, provider):
    spec = SPECS[provider](server, max_connections=1)
    server.script["q0"] = ["400"]
    with pytest.raises(ScievalsError, match=r"fake-\w+.*HTTP 400.*check models\.fake-\w+\.model"):
        run_batch(spec, make_requests(5), settings, scope="test/v1")
    # One connection: the 400 came first, the rest were cancelled unsent.
    assert server.prompts() == ["q0"], server.requests


def test_unknown_model_404_names_model_id(server, fake_key, settings):
    server.script["q0"] = ["404"]
    with pytest.raises(ScievalsError, match="fake-gpt-2025-01-01"):
        run_batch(openai_spec(server), make_requests(1), settings, scope="test/v1")


def test_truncated_completion_is_a_reply_with_its_stop_reason(server, fake_key, settings):
    server.script["a long question"] = ["length"]
    server.script["another long question"] = ["length"]
    from scievals.llm.base import LLMRequest, Message

    requests = [
        LLMRequest(case_id="x", messages=[Message(role="user", content="a long question")]),
    ]
    openai = run_batch(openai_spec(server), requests, settings, scope="test/v1").responses[0]
    assert openai.error is None and openai.stop_reason == "length"
    assert openai.text == "reply: a long question"[: len("reply: a long question") // 2]
    requests[0].messages[0].content = "another long question"
    claude = run_batch(anthropic_spec(server), requests, settings, scope="test/v1").responses[0]
    assert claude.error is None and claude.stop_reason == "max_tokens"
    assert server.count == 2  # not retried


def test_unreachable_server_fails_the_batch_naming_the_model(fake_key, settings):
    import socket

    from scievals.llm.base import ModelSpec

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    spec = ModelSpec(
        name="gone",
        provider="openai",
        model="m",
        base_url=f"http://127.0.0.1:{port}/v1",
        api_key_env="SCIEVALS_TEST_LLM_KEY",
        timeout_s=1,
    )
    records = settings.cache_dir.parent / "records.jsonl"
    with pytest.raises(ScievalsError) as info:
        run_batch(spec, make_requests(2), settings, scope="test/v1", records_path=records)
    assert info.value.where == f"model 'gone' (openai at http://127.0.0.1:{port}/v1)"
    assert info.value.problem.startswith("2 of 2 requests failed after their retries")
    assert "first error, case case0: connection failed" in info.value.problem
    # Each request was tried max_attempts times before the batch gave up.
    assert [r["attempts"] for r in read_jsonl(records)] == [4, 4]
