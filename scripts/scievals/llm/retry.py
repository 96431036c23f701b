"""Bounded retries: exponential backoff with jitter, or the server's ``Retry-After``.

Only :class:`~scievals.llm.base.TransientError` is retried (429, 408, 409, 5xx,
timeouts, dropped connections, unreadable bodies). Everything else propagates at
once. The SDKs' own retries are switched off, so this is the only retry loop.
"""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)
from tenacity.wait import wait_base

from scievals.llm.base import TransientError

log = logging.getLogger("scievals.llm")

T = TypeVar("T")

# First backoff wait; doubles each attempt, plus up to this much jitter.
INITIAL_WAIT_S = 1.0
# Statuses a retry can fix (the same set the official SDKs retry).
RETRYABLE_STATUS = frozenset({408, 409, 429})


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS or status >= 500


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or HTTP date)."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(when - (time.time() if now is None else now), 0.0)


class wait_retry_after_or_backoff(wait_base):
    """Honour the server's Retry-After (capped at ``max_wait_s``), else back off with jitter."""

    def __init__(self, max_wait_s: float, initial_s: float = INITIAL_WAIT_S) -> None:
        initial = min(initial_s, max_wait_s)
        self.max_wait_s = max_wait_s
        # initial * 2**(attempt-1) plus up to ``initial`` of jitter, all capped at max_wait_s.
        self.backoff = wait_exponential(multiplier=initial, max=max_wait_s) + wait_random(
            0, initial
        )

    def __call__(self, retry_state: RetryCallState) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:
            return min(retry_after, self.max_wait_s)
        return min(self.backoff(retry_state), self.max_wait_s)


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    max_attempts: int,
    max_wait_s: float,
    label: str = "",
) -> tuple[T, int]:
    """Await ``call()`` until it succeeds or the attempts run out; return (result, attempts).

    The last TransientError is re-raised with ``attempts`` set on it.
    """

    def note(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        log.info(
            "%s: attempt %d/%d failed (%s); retrying in %.2f s",
            label,
            state.attempt_number,
            max_attempts,
            exc,
            state.upcoming_sleep,
        )

    retrying = AsyncRetrying(
        stop=stop_after_attempt(max_attempts),
        wait=wait_retry_after_or_backoff(max_wait_s),
        retry=retry_if_exception_type(TransientError),
        before_sleep=note,
        reraise=True,
    )
    attempts = 0
    try:
        async for attempt in retrying:
            with attempt:
                attempts = attempt.retry_state.attempt_number
                result = await call()
    except TransientError as exc:
        exc.attempts = attempts  # type: ignore[attr-defined]
        raise
    return result, attempts
