"""``python -m scievals llm check | cache stats | cache clear``, and the settings section."""

from __future__ import annotations

import pytest
import yaml
from llm_helpers import make_requests, openai_spec
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


def test_check_reports_each_model(server, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("SCIEVALS_NO_SUCH_KEY", raising=False)
    config = write_config(tmp_path, server, tmp_path / "cache")
    assert main(["llm", "check", "--config", config]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("FAIL claude:") and "SCIEVALS_NO_SUCH_KEY" in lines[0]
    assert lines[1] == f"OK   local: openai m at {server.openai_base_url}"
    assert lines[2] == "OK   random: baseline, runs locally"
    assert lines[3] == "OK   scripted: mock, offline"
    assert main(["llm", "check", "--config", config, "local", "random"]) == 0
    assert main(["llm", "check", "--config", config, "nope"]) == 1
    assert "not in the model registry" in capsys.readouterr().out


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
