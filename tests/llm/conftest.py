"""Fixtures for the LLM layer's tests: a local fake server over real HTTP, fast retries."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # for llm_helpers (importlib import mode)

from llm_helpers import FAKE_KEY, KEY_VAR
from scievals.llm.fake_server import FakeLLMServer
from scievals.llm.settings import LLMSettings


@pytest.fixture
def server():
    with FakeLLMServer(max_lifetime_s=120) as srv:
        yield srv


@pytest.fixture
def fake_key(monkeypatch):
    monkeypatch.setenv(KEY_VAR, FAKE_KEY)
    return FAKE_KEY


@pytest.fixture
def settings(tmp_path) -> LLMSettings:
    # Waits capped at 20 ms keep retry tests fast; the policy is the same.
    return LLMSettings(cache_dir=tmp_path / "cache", max_attempts=4, max_wait_s=0.02)
