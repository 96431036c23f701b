"""Fixtures for the LLM layer's tests: a local fake server over real HTTP, fast retries."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # for llm_helpers (importlib import mode)

from llm_helpers import FAKE_KEY, KEY_VAR
from scievals.common import notices
from support.fake_server import FakeLLMServer
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
    # Waits capped at 20 ms keep retry tests fast; the policy is the same. Several tests let
    # one request of three fail on purpose, so they tolerate half (the default, 0.25, and the
    # threshold itself are tested in test_llm_failures.py).
    return LLMSettings(
        cache_dir=tmp_path / "cache", max_attempts=4, max_wait_s=0.02, max_failure_rate=0.5
    )


@pytest.fixture(autouse=True)
def notice_dir(tmp_path):
    """Each test runs as a prediction job whose notices go to its own folder, not the
    checkout's logs/ (outside a job, notices are only logged)."""
    folder = tmp_path / "notices"
    output = tmp_path / "job-output"
    output.touch()
    notices.start_job("gating_predict_llm", {"model": "m"}, [str(output)], folder)
    yield folder
    notices.end_job()
