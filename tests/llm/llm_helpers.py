"""Helpers shared by the LLM layer's tests (imported by name; conftest puts this folder on sys.path)."""

from __future__ import annotations

from scievals.llm.base import LLMRequest, Message, ModelSpec
from support.fake_server import FakeLLMServer

# A recognisable fake key: tests grep every written file for it.
FAKE_KEY = "sk-test-DO-NOT-LEAK-7f3a9c1e2b"
KEY_VAR = "SCIEVALS_TEST_LLM_KEY"


def openai_spec(server: FakeLLMServer, **overrides) -> ModelSpec:
    fields = {
        "name": "fake-gpt",
        "provider": "openai",
        "model": "fake-gpt-2025-01-01",
        "base_url": server.openai_base_url,
        "api_key_env": KEY_VAR,
        "max_connections": 4,
        "timeout_s": 2.0,
    }
    fields.update(overrides)
    return ModelSpec(**fields)


def anthropic_spec(server: FakeLLMServer, **overrides) -> ModelSpec:
    fields = {
        "name": "fake-claude",
        "provider": "anthropic",
        "model": "fake-claude-2025-01-01",
        "base_url": server.anthropic_base_url,
        "api_key_env": KEY_VAR,
        "max_connections": 4,
        "timeout_s": 2.0,
    }
    fields.update(overrides)
    return ModelSpec(**fields)


def make_requests(n: int, prefix: str = "q", system: str | None = None) -> list[LLMRequest]:
    requests = []
    for i in range(n):
        messages = [Message(role="system", content=system)] if system else []
        messages.append(Message(role="user", content=f"{prefix}{i}"))
        requests.append(LLMRequest(case_id=f"case{i}", messages=messages))
    return requests


def free_port() -> int:
    """A local port nobody listens on (bound, then released)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
