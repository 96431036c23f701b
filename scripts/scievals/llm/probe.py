"""Reach a model's provider for real (``python -m scievals llm check``).

The preflight before a run only checks that a key is set and a local server's
port is open. A check the user asks for goes further: it makes one
authenticated models-list call through the provider's SDK, so a wrong key, a
proxy in the way or no network at all shows up before a run, not as a
benchmark full of failed cases.
"""

from __future__ import annotations

import asyncio

from scievals.common.errors import ScievalsError
from scievals.llm.base import ModelSpec, RequestRejected, TransientError
from scievals.llm.providers import create_api
from scievals.llm.providers._sdk_errors import redact
from scievals.llm.registry import api_key, preflight

PROBE_TIMEOUT_S = 15.0


def describe(spec: ModelSpec) -> str:
    return f"{spec.provider} {spec.model}" + (f" at {spec.shown_url}" if spec.base_url else "")


def probe(spec: ModelSpec, timeout_s: float = PROBE_TIMEOUT_S) -> str:
    """One line saying what was reached; ScievalsError if the provider cannot be reached."""
    if spec.provider == "baseline":
        return "baseline, runs locally"
    if spec.provider == "mock":
        return "mock, offline"
    preflight([spec])
    secret = api_key(spec)
    quick = spec.model_copy(update={"timeout_s": min(spec.timeout_s, timeout_s)})

    async def listed() -> list[str]:
        api = create_api(quick, secret)
        try:
            async with asyncio.timeout(quick.timeout_s):  # whole call, as for requests
                return await api.list_models()
        except TimeoutError:
            raise TransientError(f"no complete reply within {quick.timeout_s:g} s") from None
        finally:
            await api.aclose()

    try:
        ids = asyncio.run(listed())
    except (TransientError, RequestRejected) as exc:
        status = getattr(exc, "status", None)
        fix = (
            "check the API key"
            if status in (401, 403)
            else "check the network, base_url and the provider's status"
        )
        raise ScievalsError(
            f"model {spec.name!r} ({describe(spec)})",
            f"provider not reached ({redact(str(exc), secret)})",
            fix,
        ) from None
    # The first page only, and providers accept aliases they do not list: a note, not a failure.
    found = "including this one" if spec.model in ids else f"not {spec.model!r} (check the id)"
    return f"{describe(spec)}: reached, it lists {len(ids)} model(s), {found}"
