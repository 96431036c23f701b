"""run_batch over real HTTP: samples, order, concurrency, records, request translation."""

from __future__ import annotations

import json
import logging

import pytest
from llm_helpers import KEY_VAR, anthropic_spec, make_requests, openai_spec
from scievals.common.errors import ScievalsError
from scievals.llm.base import GenerateParams, LLMRequest, Message, ModelSpec
from scievals.llm.progress import Progress
from scievals.llm.runner import expand_samples, run_batch


def test_responses_come_back_in_input_order(server, fake_key, settings):
    server.latency_s = 0.0
    server.script["q0"] = ["slow:0.3"]  # the first finishes last
    result = run_batch(openai_spec(server), make_requests(6), settings, scope="t/v1")
    assert [r.case_id for r in result.responses] == [f"case{i}" for i in range(6)]
    assert [r.text for r in result.responses] == [f"reply: q{i}" for i in range(6)]
    assert all(r.request_id and r.request_id.endswith("-req") for r in result.responses)


def test_n_samples_expands_each_request_and_varies_the_seed(server, fake_key, settings):
    spec = openai_spec(server, n_samples=3, params=GenerateParams(seed=7, temperature=0.8))
    result = run_batch(spec, make_requests(2), settings, scope="t/v1")
    assert [(r.case_id, r.sample_index) for r in result.responses] == [
        ("case0", 0),
        ("case0", 1),
        ("case0", 2),
        ("case1", 0),
        ("case1", 1),
        ("case1", 2),
    ]
    assert len({r.cache_key for r in result.responses}) == 6
    seeds = sorted((r["prompt"], r["body"]["seed"]) for r in server.requests)
    assert seeds == [("q0", 7), ("q0", 8), ("q0", 9), ("q1", 7), ("q1", 8), ("q1", 9)]
    assert result.usage.requests == 6


def test_n_samples_rejects_pre_expanded_requests():
    spec = ModelSpec(name="m", provider="mock", n_samples=2)
    request = LLMRequest(case_id="c", messages=[Message(role="user", content="x")], sample_index=1)
    with pytest.raises(ValueError, match="sample_index 0"):
        expand_samples(spec, [request])
    single = spec.model_copy(update={"n_samples": 1})
    assert expand_samples(single, [request])[0].sample_index == 1


def test_in_flight_requests_never_exceed_max_connections(server, fake_key, settings):
    server.latency_s = 0.1
    run_batch(openai_spec(server, max_connections=3), make_requests(12), settings, scope="t/v1")
    assert server.count == 12
    assert server.max_in_flight == 3


def test_identical_requests_in_a_batch_are_sent_once(server, fake_key, settings):
    same = [LLMRequest(case_id=c, messages=[Message(role="user", content="same")]) for c in "abc"]
    result = run_batch(openai_spec(server), same, settings, scope="t/v1")
    assert server.count == 1
    assert [r.case_id for r in result.responses] == ["a", "b", "c"]
    assert {r.text for r in result.responses} == {"reply: same"}
    assert [r.cache_hit for r in result.responses] == [False, True, True]
    assert result.usage.new_tokens_in == result.usage.tokens_in / 3


def test_openai_request_carries_params(server, fake_key, settings):
    params = GenerateParams(temperature=0.3, max_tokens=77, top_p=0.9, seed=5, stop=["END"])
    run_batch(
        openai_spec(server, params=params),
        make_requests(1, system="be brief"),
        settings,
        scope="t/v1",
    )
    body = server.requests[0]["body"]
    assert body["model"] == "fake-gpt-2025-01-01"
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "q0"},
    ]
    assert (body["temperature"], body["max_tokens"], body["top_p"]) == (0.3, 77, 0.9)
    assert (body["seed"], body["stop"]) == (5, ["END"])
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {fake_key}"


def test_anthropic_request_takes_system_separately(server, fake_key, settings):
    params = GenerateParams(max_tokens=55, stop=["END"], seed=3)
    result = run_batch(
        anthropic_spec(server, params=params),
        make_requests(1, system="be brief"),
        settings,
        scope="t/v1",
    )
    request = server.requests[0]
    assert request["path"] == "/v1/messages"
    body = request["body"]
    # the system prompt (the instruction every case shares) marked for the prompt cache
    assert body["system"] == [{"type": "text", "text": "be brief",
                               "cache_control": {"type": "ephemeral"}}]
    assert body["messages"] == [{"role": "user", "content": "q0"}]
    assert body["max_tokens"] == 55 and body["stop_sequences"] == ["END"]
    assert "seed" not in body
    # Sampling parameters only where the SDK's API version accepts them (not in 2026-10-21).
    import anthropic
    from scievals.llm.providers.anthropic import sampling_mode

    assert ("temperature" in body) == (sampling_mode(anthropic) != "none")
    reply = result.responses[0]
    assert (reply.text, reply.stop_reason) == ("reply: q0", "end_turn")
    assert (reply.usage.tokens_in, reply.usage.tokens_out) == (3, 2)  # "be brief q0"; "reply: q0"


def test_records_are_appended_atomically_one_line_per_sample(server, fake_key, settings, tmp_path):
    records = tmp_path / "pred" / "records.jsonl"
    spec = openai_spec(server, n_samples=2)
    run_batch(spec, make_requests(2), settings, scope="t/v1", records_path=records, label="first")
    run_batch(spec, make_requests(1), settings, scope="t/v1", records_path=records, label="second")
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    assert [(r["label"], r["case_id"], r["sample_index"], r["cache_hit"]) for r in lines] == [
        ("first", "case0", 0, False),
        ("first", "case0", 1, False),
        ("first", "case1", 0, False),
        ("first", "case1", 1, False),
        ("second", "case0", 0, True),
        ("second", "case0", 1, True),
    ]
    first = lines[0]
    assert first["text"] == "reply: q0" and first["model"] == "fake-gpt"
    assert first["model_id"] == "fake-gpt-2025-01-01" and first["scope"] == "t/v1"
    assert len(first["prompt_sha256"]) == 64 and len(first["cache_key"]) == 64
    assert (first["tokens_in"], first["tokens_out"], first["attempts"]) == (1, 2, 1)
    assert first["error"] is None
    assert not list(records.parent.glob("*.tmp"))


def test_missing_key_stops_before_any_request(server, settings, monkeypatch):
    monkeypatch.delenv(KEY_VAR, raising=False)
    with pytest.raises(ScievalsError, match=f"fake-gpt.*{KEY_VAR} is not set"):
        run_batch(openai_spec(server), make_requests(2), settings, scope="t/v1")
    assert server.count == 0


def test_missing_key_is_fine_when_everything_is_cached(server, fake_key, settings, monkeypatch):
    run_batch(openai_spec(server), make_requests(2), settings, scope="t/v1")
    monkeypatch.delenv(KEY_VAR)
    result = run_batch(openai_spec(server), make_requests(2), settings, scope="t/v1")
    assert result.usage.cache_hits == 2


def test_local_server_without_key_needs_no_variable(server, settings):
    spec = openai_spec(server, api_key_env=None)
    result = run_batch(spec, make_requests(1), settings, scope="t/v1")
    assert result.responses[0].text == "reply: q0"


def test_baseline_is_not_run_through_the_llm_layer(settings):
    spec = ModelSpec(name="random", provider="baseline")
    with pytest.raises(ScievalsError, match="random.*baseline"):
        run_batch(spec, make_requests(1), settings, scope="t/v1")


def test_scope_is_required(settings):
    with pytest.raises(ValueError, match="scope"):
        run_batch(ModelSpec(name="m", provider="mock"), make_requests(1), settings, scope="")


def test_plain_progress_logs_about_every_ten_percent(server, fake_key, settings, caplog):
    caplog.set_level(logging.INFO, logger="scievals.llm")
    run_batch(openai_spec(server), make_requests(20), settings, scope="t/v1", label="demo")
    lines = [r.getMessage() for r in caplog.records if "done (" in r.getMessage()]
    assert lines == [f"demo: {2 * k}/20 done ({10 * k} %)" for k in range(1, 11)]


def test_progress_starts_at_the_cached_share_and_skips_to_new_deciles(caplog):
    caplog.set_level(logging.INFO, logger="scievals.llm")
    progress = Progress(total=7, label="p", done=3, tty=False)
    for _ in range(4):
        progress.update()
    assert [r.getMessage() for r in caplog.records] == [
        "p: 4/7 done (50 %)",
        "p: 5/7 done (70 %)",
        "p: 6/7 done (80 %)",
        "p: 7/7 done (100 %)",
    ]


def test_progress_uses_tqdm_on_a_terminal(capsys):
    progress = Progress(total=4, label="bar", tty=True)
    for _ in range(4):
        progress.update()
    progress.close()
    assert "bar: 100%" in capsys.readouterr().err


def test_anthropic_sampling_follows_the_sdk_api_version(monkeypatch):
    import sys
    import types

    from scievals.llm.providers.anthropic import sampling_mode

    def fake_sdk(version: str, create) -> types.ModuleType:
        sdk = types.ModuleType("fake_anthropic")
        constants = types.ModuleType("fake_anthropic._constants")
        constants.ANTHROPIC_API_VERSION = version
        monkeypatch.setitem(sys.modules, "fake_anthropic._constants", constants)
        messages = types.SimpleNamespace(AsyncMessages=types.SimpleNamespace(create=create))
        sdk.resources = types.SimpleNamespace(messages=messages)
        return sdk

    def old_create(*, model, messages, max_tokens, temperature=None, top_p=None): ...
    def v1_create(*, model, messages, max_tokens, extra_body=None): ...

    assert sampling_mode(fake_sdk("2023-06-01", old_create)) == "kwargs"
    assert sampling_mode(fake_sdk("2023-06-01", v1_create)) == "extra_body"
    assert sampling_mode(fake_sdk("2026-10-21", old_create)) == "none"


def test_model_id_and_system_fingerprint_are_kept_from_replies_and_cache(server, fake_key,
                                                                         settings, tmp_path):
    """The run record needs what the provider said answered: the fake server echoes the model
    id it was asked for and sends the fingerprint FINGERPRINT, as api.openai.com does."""
    from support.fake_server import FINGERPRINT

    records = tmp_path / "records.jsonl"
    spec = openai_spec(server)
    first = run_batch(spec, make_requests(2), settings, scope="t/v1", records_path=records)
    again = run_batch(spec, make_requests(2), settings, scope="t/v1")  # from the cache
    for result in (first, again):
        assert [r.system_fingerprint for r in result.responses] == [FINGERPRINT, FINGERPRINT]
        assert {r.response_model for r in result.responses} == {"fake-gpt-2025-01-01"}
        assert result.usage.system_fingerprints == [FINGERPRINT]
        assert result.usage.response_models == ["fake-gpt-2025-01-01"]
    assert server.count == 2  # the second batch came from the cache
    line = json.loads(records.read_text().splitlines()[0])
    assert (line["response_model"], line["system_fingerprint"]) == (
        "fake-gpt-2025-01-01", FINGERPRINT)
    # Anthropic returns a model id but has no fingerprint.
    result = run_batch(anthropic_spec(server), make_requests(1), settings, scope="t/v2")
    assert result.usage.system_fingerprints == []
    assert result.responses[0].response_model == anthropic_spec(server).model
