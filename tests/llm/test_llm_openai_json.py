"""The OpenAI provider reads a chat completion from its JSON (no SDK models are built): each
field lands where the SDK-model reading put it, and a body without an answer is an error
the runner retries, never an empty answer."""

from __future__ import annotations

import pytest
from scievals.llm.base import ModelSpec, TransientError
from scievals.llm.providers.openai_compat import OpenAICompatAPI

COMPLETION = {
    "id": "chatcmpl-7", "object": "chat.completion", "model": "m-2026", "created": 1,
    "system_fingerprint": "fp_1",
    "choices": [{"index": 0, "finish_reason": "length",
                 "message": {"role": "assistant", "content": "B",
                             "reasoning_content": "thought about it"}}],
    "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150,
              "prompt_tokens_details": {"cached_tokens": 100},
              "completion_tokens_details": {"reasoning_tokens": 25}},
}


@pytest.fixture
def api():
    spec = ModelSpec(name="m", provider="openai", model="m", base_url="http://127.0.0.1:9/v1")
    return OpenAICompatAPI(spec, "k")


def test_every_field_of_a_completion_is_read(api):
    reply = api.reply(COMPLETION, "req-1")
    assert (reply.text, reply.thinking, reply.stop_reason) == ("B", "thought about it", "length")
    assert (reply.request_id, reply.response_model, reply.system_fingerprint) == (
        "req-1", "m-2026", "fp_1")
    usage = reply.usage
    assert (usage.tokens_in, usage.tokens_out, usage.cached_in, usage.reasoning_tokens) == (
        120, 30, 100, 25)


def test_without_a_request_id_header_the_completion_id_names_the_reply(api):
    # a batch output line has no header: its completion id is kept, as before
    assert api.reply(COMPLETION).request_id == "chatcmpl-7"


def test_missing_usage_and_details_count_zero(api):
    bare = {"id": "x", "choices": [{"message": {"content": None}, "finish_reason": "stop"}]}
    reply = api.reply(bare)
    assert reply.text == "" and reply.thinking is None
    assert (reply.usage.tokens_in, reply.usage.tokens_out, reply.usage.cached_in) == (0, 0, 0)


@pytest.mark.parametrize("body", [
    {"id": "x", "choices": []},  # no choice
    {"id": "x"},
    {"id": "x", "choices": ["text"]},  # a choice that is not an object
    ["not", "an", "object"],
    {"error": {"message": "overloaded"}, "choices": [{"message": {"content": "A"}}]},
])
def test_a_body_without_an_answer_is_a_transient_error(api, body):
    with pytest.raises(TransientError):
        api.reply(body)
