"""The offline mock provider: scripted, deterministic, cached like any other provider."""

from __future__ import annotations

from scievals.common.io import canonical_json, sha256_text
from scievals.llm.base import LLMRequest, Message, ModelSpec
from scievals.llm.runner import run_batch

REQUESTS = [
    LLMRequest(case_id=c, messages=[Message(role="user", content=f"tell me about {c}")])
    for c in ("omip-001", "omip-002", "omip-003")
]


def test_scripted_replies_by_case_with_default(settings):
    spec = ModelSpec(
        name="mock", provider="mock", responses={"omip-001": "gate A", "*": "no idea at all"}
    )
    result = run_batch(spec, REQUESTS, settings, scope="t/v1")
    assert [r.text for r in result.responses] == ["gate A", "no idea at all", "no idea at all"]
    assert [(r.usage.tokens_in, r.usage.tokens_out) for r in result.responses] == [
        (4, 2),
        (4, 4),
        (4, 4),
    ]
    assert all(r.error is None and r.stop_reason == "stop" for r in result.responses)


def test_unscripted_reply_is_a_stable_hash_of_the_prompt(settings, tmp_path):
    spec = ModelSpec(name="mock", provider="mock")
    first = run_batch(spec, REQUESTS, settings, scope="t/v1")
    other = settings.model_copy(update={"cache_mode": "off"})
    second = run_batch(spec, REQUESTS, other, scope="t/v1")
    texts = [r.text for r in first.responses]
    assert texts == [r.text for r in second.responses]
    assert len(set(texts)) == 3 and all(t.startswith("mock reply ") for t in texts)
    prompt = canonical_json([{"role": "user", "content": "tell me about omip-001"}])
    assert texts[0] == "mock reply " + sha256_text(prompt)[:12]


def test_changing_the_script_is_not_served_stale_from_cache(settings):
    spec = ModelSpec(name="mock", provider="mock", responses={"*": "old"})
    assert run_batch(spec, REQUESTS[:1], settings, scope="t/v1").responses[0].text == "old"
    again = run_batch(spec, REQUESTS[:1], settings, scope="t/v1").responses[0]
    assert again.cache_hit and again.text == "old"
    changed = spec.model_copy(update={"responses": {"*": "new"}})
    fresh = run_batch(changed, REQUESTS[:1], settings, scope="t/v1").responses[0]
    assert not fresh.cache_hit and fresh.text == "new"


def test_mock_needs_no_key_and_no_network(settings, monkeypatch):
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("the mock provider opened a connection")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    result = run_batch(ModelSpec(name="m", provider="mock"), REQUESTS, settings, scope="t/v1")
    assert result.usage.errors == 0
