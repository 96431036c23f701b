"""The model registry and the preflight check before any job starts."""

from __future__ import annotations

import socket

import pytest
from scievals.common.errors import ScievalsError
from scievals.llm.base import ModelSpec
from scievals.llm.registry import key_env, model_spec, preflight

CONFIG = {
    "models": {
        "random": {"provider": "baseline"},
        "claude": {
            "provider": "anthropic",
            "model": "claude-sonnet-4-5-20250929",
            "api_key_env": "SCIEVALS_TEST_ANTHROPIC",
            "params": {"temperature": 0.0, "max_tokens": 6000},
            "price_in_per_mtok": 3.0,
            "price_out_per_mtok": 15.0,
        },
        "local": {
            "provider": "openai",
            "model": "llama3.1:8b",
            "base_url": "http://localhost:11434/v1",
        },
        "scripted": {"provider": "mock", "responses": {"c1": "yes", "*": "no"}},
    }
}


def test_model_spec_reads_registry_entry():
    spec = model_spec("claude", CONFIG)
    assert spec.name == "claude" and spec.provider == "anthropic"
    assert spec.params.max_tokens == 6000 and spec.params.temperature == 0.0
    assert spec.price_out_per_mtok == 15.0
    assert model_spec("scripted", CONFIG).responses == {"c1": "yes", "*": "no"}
    assert not model_spec("random", CONFIG).is_llm


def test_unknown_model_lists_known_names():
    with pytest.raises(ScievalsError) as info:
        model_spec("gpt-9", CONFIG)
    message = info.value.one_line()
    assert "gpt-9" in message and "['claude', 'local', 'random', 'scripted']" in message


@pytest.mark.parametrize(
    ("entry", "pattern"),
    [
        ({"provider": "openai"}, "needs a model id"),
        ({"provider": "openai", "model": "m", "price_in_per_mtok": 1.0}, "set both"),
        ({"provider": "openai", "model": "m", "responses": {"*": "x"}}, "only for provider mock"),
        ({"provider": "openai", "model": "m", "modle": "typo"}, r"models\.bad\.modle"),
        ({"provider": "palm", "model": "m"}, r"models\.bad\.provider"),
        (
            {"provider": "openai", "model": "m", "params": {"temprature": 1}},
            r"models\.bad\.params\.temprature",
        ),
    ],
)
def test_bad_entries_name_the_key(entry, pattern):
    with pytest.raises(ScievalsError, match=pattern):
        model_spec("bad", {"models": {"bad": entry}})


def test_key_env_defaults():
    assert key_env(ModelSpec(name="a", provider="openai", model="m")) == "OPENAI_API_KEY"
    assert key_env(ModelSpec(name="a", provider="anthropic", model="m")) == "ANTHROPIC_API_KEY"
    local = ModelSpec(name="a", provider="openai", model="m", base_url="http://h:1/v1")
    assert key_env(local) is None
    assert key_env(local.model_copy(update={"api_key_env": "MY_KEY"})) == "MY_KEY"
    assert key_env(ModelSpec(name="a", provider="mock")) is None


def test_preflight_passes_baselines_and_mock(monkeypatch):
    preflight([model_spec("random", CONFIG), model_spec("scripted", CONFIG)])


def test_preflight_missing_key_is_one_line_naming_model_and_variable(monkeypatch):
    monkeypatch.delenv("SCIEVALS_TEST_ANTHROPIC", raising=False)
    with pytest.raises(ScievalsError) as info:
        preflight([model_spec("random", CONFIG), model_spec("claude", CONFIG)])
    line = info.value.one_line()
    assert "\n" not in line
    assert "'claude'" in line and "SCIEVALS_TEST_ANTHROPIC" in line
    monkeypatch.setenv("SCIEVALS_TEST_ANTHROPIC", "   ")
    with pytest.raises(ScievalsError, match="SCIEVALS_TEST_ANTHROPIC is not set"):
        preflight([model_spec("claude", CONFIG)])


def test_preflight_key_present_does_not_print_it(monkeypatch):
    monkeypatch.setenv("SCIEVALS_TEST_ANTHROPIC", "sk-secret-value")
    # No base_url: the public endpoint is not probed (compute nodes may be offline).
    preflight([model_spec("claude", CONFIG)])


def test_preflight_reachable_server_passes(server):
    spec = ModelSpec(name="local", provider="openai", model="m", base_url=server.openai_base_url)
    preflight([spec])


def test_preflight_unreachable_server_names_model_and_url():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    spec = ModelSpec(name="local", provider="openai", model="m", base_url=url)
    with pytest.raises(ScievalsError) as info:
        preflight([spec])
    line = info.value.one_line()
    assert "'local'" in line and url in line and "not reachable" in line


@pytest.mark.slow
def test_preflight_times_out_within_about_three_seconds():
    import time

    # A listener that never accepts, with its one-slot queue taken: the next
    # connection attempt hangs, like a firewalled host.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            url = f"http://127.0.0.1:{port}/v1"
            spec = ModelSpec(name="far", provider="openai", model="m", base_url=url)
            started = time.monotonic()
            with pytest.raises(ScievalsError, match=f"far.*{url}.*timed out"):
                preflight([spec])
            assert 2.5 < time.monotonic() - started < 4.5


@pytest.mark.parametrize("url", ["localhost:8000/v1", "ftp://h/v1", "http://h:notaport/v1"])
def test_preflight_malformed_base_url(url):
    spec = ModelSpec(name="x", provider="openai", model="m", base_url=url)
    with pytest.raises(ScievalsError, match=r"models\.x\.base_url"):
        preflight([spec])


def test_default_config_needs_no_key(monkeypatch):
    """The README's main command runs the default config: it must pass preflight keyless."""
    from scievals.config_validation import validate_config
    from scievals.common.config import CONFIG_DIR
    from scievals.common.io import read_yaml

    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    config = validate_config(read_yaml(CONFIG_DIR / "config.yaml"))
    used = {name for bench in config["benchmarks"] for name in config[bench].get("models", [])}
    assert used  # the default run has models
    preflight([model_spec(name, config) for name in sorted(used)])
