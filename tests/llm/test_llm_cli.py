"""``python -m scievals llm check | cache stats | cache clear``, and the settings section."""

from __future__ import annotations

import pytest
import yaml
from llm_helpers import free_port, make_requests, openai_spec
from scievals.cli import main
from scievals.common.errors import ScievalsError
from scievals.llm.runner import run_batch
from scievals.llm.settings import LLMSettings


def write_config(tmp_path, server, cache_dir) -> str:
    config = {
        "models": {
            "random": {"provider": "baseline"},
            "local": {"provider": "openai", "model": "m", "base_url": server.openai_base_url},
            "claude": {
                "provider": "anthropic",
                "model": "c",
                "api_key_env": "SCIEVALS_NO_SUCH_KEY",
            },
            "scripted": {"provider": "mock"},
        },
        "llm": {"cache_dir": str(cache_dir)},
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return str(path)


def test_check_reaches_each_model(server, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("SCIEVALS_NO_SUCH_KEY", raising=False)
    config = write_config(tmp_path, server, tmp_path / "cache")
    assert main(["llm", "check", "--config", config]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("FAILED claude:") and "SCIEVALS_NO_SUCH_KEY" in lines[0]
    # "it lists 1 model(s)" comes from the server's own /v1/models reply (it lists "fake").
    assert lines[1] == (
        f"OK     local: openai m at {server.openai_base_url}: reached, it lists 1 model(s), "
        "not 'm' (check the id)"
    )
    assert lines[2] == "OK     random: baseline, runs locally"
    assert lines[3] == "OK     scripted: mock, offline"
    assert main(["llm", "check", "--config", config, "local", "random"]) == 0
    assert main(["llm", "check", "--config", config, "nope"]) == 1
    assert "not in the model registry" in capsys.readouterr().out


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_check_says_failed_when_the_provider_is_unreachable(
    provider, tmp_path, capsys, monkeypatch
):
    # Offline: a key is set, the only thing missing is the server. A key check alone said OK.
    monkeypatch.setenv("SCIEVALS_TEST_LLM_KEY", "sk-test-offline-123456")
    base = f"http://127.0.0.1:{free_port()}" + ("/v1" if provider == "openai" else "")
    config = {
        "models": {
            "gone": {
                "provider": provider, "model": "x", "base_url": base,
                "api_key_env": "SCIEVALS_TEST_LLM_KEY",
            }
        }
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["llm", "check", "--config", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAILED gone: ") and "not reachable" in out
    assert out.count("\n") == 1 and "sk-test-offline" not in out


def test_check_reaches_anthropic_through_its_sdk(server, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SCIEVALS_TEST_LLM_KEY", "sk-test-123456")
    config = {
        "models": {
            "claude": {
                "provider": "anthropic", "model": "fake", "base_url": server.anthropic_base_url,
                "api_key_env": "SCIEVALS_TEST_LLM_KEY",
            }
        }
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["llm", "check", "--config", str(path)]) == 0
    assert capsys.readouterr().out.strip().endswith("reached, it lists 1 model(s), including this one")


def test_cache_stats_and_clear(server, fake_key, settings, tmp_path, capsys):
    run_batch(openai_spec(server), make_requests(3), settings, scope="t/v1")
    config = write_config(tmp_path, server, settings.cache_dir)
    assert main(["llm", "cache", "stats", "--config", config]) == 0
    out = capsys.readouterr().out
    assert f"cache {settings.cache_dir}: 3 entries" in out
    assert "openai/fake-gpt-2025-01-01: 3 entries" in out
    assert (
        main(
            [
                "llm",
                "cache",
                "clear",
                "--cache-dir",
                str(settings.cache_dir),
                "--model",
                "other-model",
            ]
        )
        == 0
    )
    assert "removed 0 entries" in capsys.readouterr().out
    assert (
        main(
            [
                "llm",
                "cache",
                "clear",
                "--cache-dir",
                str(settings.cache_dir),
                "--model",
                "fake-gpt-2025-01-01",
            ]
        )
        == 0
    )
    assert "removed 3 entries (fake-gpt-2025-01-01)" in capsys.readouterr().out
    assert main(["llm", "cache", "stats", "--cache-dir", str(settings.cache_dir)]) == 0
    assert ": 0 entries" in capsys.readouterr().out


def test_settings_from_config_section():
    assert LLMSettings.from_config(None) == LLMSettings()
    s = LLMSettings.from_config({"cache_dir": "/x", "cache_mode": "refresh", "max_attempts": 2})
    assert (str(s.cache_dir), s.cache_mode, s.max_attempts, s.max_wait_s) == (
        "/x",
        "refresh",
        2,
        60,
    )
    with pytest.raises(ScievalsError, match=r"llm\.cache_mode"):
        LLMSettings.from_config({"cache_mode": "sometimes"})
    with pytest.raises(ScievalsError, match=r"llm\.max_attempts"):
        LLMSettings.from_config({"max_attempts": 0})


def test_check_fails_when_the_port_answers_but_the_provider_does_not(tmp_path, capsys, monkeypatch):
    # The port is open (the preflight's TCP check passes) but every connection is dropped:
    # only the SDK call notices.
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def drop_all():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.close()

    threading.Thread(target=drop_all, daemon=True).start()
    monkeypatch.setenv("SCIEVALS_TEST_LLM_KEY", "sk-test-123456")
    base = f"http://127.0.0.1:{listener.getsockname()[1]}"
    config = {"models": {"claude": {"provider": "anthropic", "model": "c", "base_url": base,
                                    "api_key_env": "SCIEVALS_TEST_LLM_KEY"}}}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    try:
        assert main(["llm", "check", "--config", str(path)]) == 1
    finally:
        listener.close()
    out = capsys.readouterr().out
    assert out.startswith("FAILED claude: ") and "provider not reached (connection failed" in out
