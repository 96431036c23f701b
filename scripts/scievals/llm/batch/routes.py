"""What the driver needs from a provider's batch route (the types and helpers both share)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from scievals.llm.base import ProviderReply
from scievals.llm.providers._sdk_errors import translate


@dataclass
class BatchState:
    """One poll's answer: whether the batch has ended, and its counts so far."""

    status: str
    ended: bool
    total: int
    completed: int
    failed: int


@dataclass
class BatchResults:
    """An ended batch's outcome: custom_id -> the reply, or why there is none. A request of
    the batch missing from both is unanswered for ``missing`` (expired, cancelled...)."""

    replies: dict[str, ProviderReply]
    errors: dict[str, str]
    missing: str
    # custom_id -> the HTTP status and error.param of a request the provider refused (400 for
    # Anthropic's invalid_request_error): a refused sampling parameter or schema goes again
    # without it (scievals.llm.batch.driver)
    refusals: dict[str, tuple[int, str | None]] = field(default_factory=dict)


class BatchRoute(Protocol):
    provider: str

    def line(self, custom_id: str, body: dict) -> bytes:
        """One request as the batch carries it (a JSONL line; its length counts to the
        size limit)."""
        ...

    async def create(self, lines: list[bytes]) -> str:
        """Submit the requests; the provider's batch id."""
        ...

    async def state(self, batch_id: str) -> BatchState: ...

    async def results(self, batch_id: str) -> BatchResults: ...


async def sdk_call(api: Any, awaitable) -> Any:
    """Await one SDK call, its failures as TransientError / RequestRejected (as realtime)."""
    try:
        return await awaitable
    except Exception as exc:  # translated; unknown kinds propagate unchanged
        raise translate(exc, api._sdk, api._secret) from exc


def request_body(api: Any, kwargs: dict) -> dict:
    """The SDK call's keyword arguments as the plain JSON body the batch carries: what went
    in ``extra_body`` (sampling fields of some SDKs, structured output) joins the rest."""
    body = {key: value for key, value in kwargs.items() if key != "extra_body"}
    body.update(kwargs.get("extra_body") or {})
    return body


def jsonl_line(record: dict) -> bytes:
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
