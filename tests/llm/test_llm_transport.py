"""The HTTP transport under the SDKs: their own aiohttp one when aiohttp is installed (about
half the client CPU per request, docs/performance.md), else their default httpx one; both
answer the same requests the same way."""

from __future__ import annotations

import importlib.util

import pytest
from llm_helpers import anthropic_spec, make_requests, openai_spec
from scievals.llm import providers
from scievals.llm.runner import run_batch


@pytest.mark.parametrize("make_spec", [openai_spec, anthropic_spec])
def test_the_aiohttp_transport_and_the_default_answer_alike(server, settings, fake_key,
                                                             monkeypatch, make_spec):
    spec = make_spec(server)
    sdk = providers.require_sdk(spec.provider, spec)
    if importlib.util.find_spec("aiohttp") is not None:
        client = providers.http_client(sdk, spec)
        assert isinstance(client, sdk.DefaultAioHttpClient)
    with_default = run_batch(spec, make_requests(3), settings, scope="transport/a")
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "aiohttp" else real_find_spec(name, *a))
    assert providers.http_client(sdk, spec) is None  # without aiohttp: the SDK's default
    without = run_batch(spec, make_requests(3), settings, scope="transport/b")
    assert [r.text for r in with_default.responses] == [r.text for r in without.responses] == [
        "reply: q0", "reply: q1", "reply: q2"]
    assert server.count == 6


def test_a_base_url_with_credentials_keeps_httpx(server):
    # aiohttp refuses credentials in the URL beside the SDK's Authorization header ("Cannot
    # combine AUTHORIZATION header with ... credentials encoded in URL"): such a base URL
    # (a gateway's basic auth) is sent by the SDK's default httpx transport
    import openai

    pytest.importorskip("aiohttp")
    url = server.openai_base_url.replace("http://", "http://user:secret@")
    assert providers.http_client(openai, openai_spec(server).model_copy(
        update={"base_url": url})) is None
    assert providers.http_client(openai, openai_spec(server)) is not None
