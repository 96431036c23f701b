"""The response cache: what the key covers, the three modes, stats and clearing."""

from __future__ import annotations

import json

import pytest
from llm_helpers import anthropic_spec, make_requests, openai_spec
from scievals.llm.base import GenerateParams, LLMRequest, Message, ModelSpec
from scievals.llm.cache import cache_key, cache_stats, clear_cache, key_material, model_slug
from scievals.llm.runner import run_batch

BASE = ModelSpec(
    name="m", provider="openai", model="gpt-x", base_url="http://h:1/v1", api_key_env="K"
)
REQUEST = LLMRequest(case_id="c1", messages=[Message(role="user", content="hello")])


def key(spec=BASE, request=REQUEST, params=None, scope="bench/v1", extra=None) -> str:
    return cache_key(key_material(spec, request, params or spec.params, scope, extra))


def test_key_is_sha256_hex_and_stable():
    k = key()
    assert len(k) == 64 and int(k, 16) >= 0
    assert key() == k


@pytest.mark.parametrize(
    "change",
    [
        lambda: key(
            request=REQUEST.model_copy(
                update={"messages": [Message(role="user", content="hello!")]}
            )
        ),
        lambda: key(
            request=REQUEST.model_copy(
                update={"messages": [Message(role="system", content="hello")]}
            )
        ),
        lambda: key(request=REQUEST.model_copy(update={"sample_index": 1})),
        lambda: key(params=GenerateParams(temperature=0.7)),
        lambda: key(params=GenerateParams(max_tokens=10)),
        lambda: key(params=GenerateParams(top_p=0.9)),
        lambda: key(params=GenerateParams(seed=1)),
        lambda: key(params=GenerateParams(stop=["\n"])),
        lambda: key(spec=BASE.model_copy(update={"base_url": "http://other:1/v1"})),
        lambda: key(spec=BASE.model_copy(update={"model": "gpt-y"})),
        lambda: key(spec=BASE.model_copy(update={"provider": "anthropic"})),
        lambda: key(scope="bench/v2"),
        lambda: key(extra={"case_id": "c1"}),
    ],
)
def test_key_changes_with_everything_that_decides_the_reply(change):
    assert change() != key()


@pytest.mark.parametrize(
    "update",
    [
        {"api_key_env": "OTHER_VAR"},
        {"name": "another-registry-name"},
        {"max_connections": 64},
        {"timeout_s": 5.0},
        {"price_in_per_mtok": 1.0, "price_out_per_mtok": 2.0},
        {"base_url": "http://h:1/v1/"},  # trailing slash is the same server
    ],
)
def test_key_ignores_what_does_not_decide_the_reply(update):
    assert key(spec=BASE.model_copy(update=update)) == key()


def test_key_ignores_case_id():
    assert key(request=REQUEST.model_copy(update={"case_id": "other"})) == key()


def test_key_ignores_the_api_key_value(server, settings, monkeypatch):
    spec = openai_spec(server)
    monkeypatch.setenv("SCIEVALS_TEST_LLM_KEY", "sk-first-key-1111")
    first = run_batch(spec, make_requests(2), settings, scope="t/v1")
    monkeypatch.setenv("SCIEVALS_TEST_LLM_KEY", "sk-second-key-2222")
    second = run_batch(spec, make_requests(2), settings, scope="t/v1")
    assert [r.cache_key for r in first.responses] == [r.cache_key for r in second.responses]
    assert second.usage.cache_hits == 2
    assert server.count == 2


def test_use_mode_writes_one_json_file_per_reply_and_reads_it_back(server, fake_key, settings):
    spec = openai_spec(server)
    first = run_batch(spec, make_requests(3), settings, scope="t/v1")
    files = sorted(settings.cache_dir.rglob("*.json"))
    assert len(files) == 3
    entry = json.loads(files[0].read_text())
    assert entry["key"] == files[0].stem
    assert files[0].parent.parent.name == model_slug(spec.model)
    assert entry["request"]["model"] == spec.model and entry["request"]["scope"] == "t/v1"
    assert not list(settings.cache_dir.rglob("*.tmp"))
    second = run_batch(spec, make_requests(3), settings, scope="t/v1")
    assert server.count == 3
    assert [r.cache_hit for r in second.responses] == [True] * 3
    assert [r.text for r in second.responses] == [r.text for r in first.responses]
    assert [r.usage for r in second.responses] == [r.usage for r in first.responses]
    assert (second.usage.cache_hits, second.usage.cache_misses) == (3, 0)
    assert (first.usage.cache_hits, first.usage.cache_misses) == (0, 3)


def test_different_scope_misses(server, fake_key, settings):
    spec = openai_spec(server)
    run_batch(spec, make_requests(2), settings, scope="t/v1")
    run_batch(spec, make_requests(2), settings, scope="t/v2")
    assert server.count == 4


def test_refresh_mode_requests_again_and_overwrites(server, fake_key, settings):
    spec = openai_spec(server)
    run_batch(spec, make_requests(2), settings, scope="t/v1")
    server.reply_prefix = "fresh: "
    refresh = settings.model_copy(update={"cache_mode": "refresh"})
    result = run_batch(spec, make_requests(2), refresh, scope="t/v1")
    assert server.count == 4
    assert [r.text for r in result.responses] == ["fresh: q0", "fresh: q1"]
    assert result.usage.cache_hits == 0
    # The overwritten entries now serve the new text.
    again = run_batch(spec, make_requests(2), settings, scope="t/v1")
    assert server.count == 4
    assert [r.text for r in again.responses] == ["fresh: q0", "fresh: q1"]


def test_off_mode_writes_nothing(server, fake_key, settings):
    spec = openai_spec(server)
    off = settings.model_copy(update={"cache_mode": "off"})
    run_batch(spec, make_requests(2), off, scope="t/v1")
    run_batch(spec, make_requests(2), off, scope="t/v1")
    assert server.count == 4
    assert not settings.cache_dir.exists()


def test_off_mode_ignores_existing_entries(server, fake_key, settings):
    spec = openai_spec(server)
    run_batch(spec, make_requests(2), settings, scope="t/v1")
    off = settings.model_copy(update={"cache_mode": "off"})
    result = run_batch(spec, make_requests(2), off, scope="t/v1")
    assert server.count == 4 and result.usage.cache_hits == 0


def test_unreadable_entry_is_asked_again_and_replaced(server, fake_key, settings):
    spec = openai_spec(server)
    run_batch(spec, make_requests(1), settings, scope="t/v1")
    (entry,) = settings.cache_dir.rglob("*.json")
    entry.write_text("{not json")
    result = run_batch(spec, make_requests(1), settings, scope="t/v1")
    assert server.count == 2 and result.responses[0].text == "reply: q0"
    assert json.loads(entry.read_text())["reply"]["text"] == "reply: q0"


def test_stats_and_clear_by_model_and_provider(server, fake_key, settings):
    run_batch(openai_spec(server), make_requests(3), settings, scope="t/v1")
    run_batch(anthropic_spec(server), make_requests(2), settings, scope="t/v1")
    stats = cache_stats(settings.cache_dir)
    assert stats.entries == 5
    assert stats.by_model["openai/fake-gpt-2025-01-01"][0] == 3
    assert stats.by_model["anthropic/fake-claude-2025-01-01"][0] == 2
    assert stats.bytes == sum(p.stat().st_size for p in settings.cache_dir.rglob("*.json"))
    assert clear_cache(settings.cache_dir, model="fake-claude-2025-01-01") == 2
    assert cache_stats(settings.cache_dir).entries == 3
    assert clear_cache(settings.cache_dir, provider="anthropic") == 0
    assert clear_cache(settings.cache_dir, provider="openai") == 3
    assert cache_stats(settings.cache_dir).entries == 0
    assert clear_cache(settings.cache_dir / "missing") == 0


def test_model_slug_makes_folder_names():
    assert model_slug("meta-llama/Llama-3.1-8B") == "meta-llama_Llama-3.1-8B"
    assert model_slug("llama3.1:8b") == "llama3.1_8b"
    assert model_slug(None) == "none"
