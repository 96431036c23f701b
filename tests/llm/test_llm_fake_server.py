"""The fake server itself: replies, fault script, counters, and its own-process mode."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from support.fake_server import FakeServerProcess


def post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


CHAT = {"model": "m", "messages": [{"role": "user", "content": "two words"}]}


def test_openai_and_anthropic_shapes_and_script(server):
    status, body = post(server.openai_base_url + "/chat/completions", CHAT)
    assert status == 200
    assert body["choices"][0]["message"]["content"] == "reply: two words"
    assert body["usage"] == {"prompt_tokens": 2, "completion_tokens": 3, "total_tokens": 5}
    status, body = post(server.anthropic_base_url + "/v1/messages", {**CHAT, "system": "be nice"})
    assert status == 200 and body["content"][0]["text"] == "reply: two words"
    assert body["usage"] == {"input_tokens": 4, "output_tokens": 3}
    server.script["two words"] = ["429:7", "500"]
    assert post(server.openai_base_url + "/chat/completions", CHAT)[0] == 429
    assert post(server.openai_base_url + "/chat/completions", CHAT)[0] == 500
    assert post(server.openai_base_url + "/chat/completions", CHAT)[0] == 200
    assert server.count == 5 and server.prompts() == ["two words"] * 5


@pytest.mark.slow
def test_server_in_its_own_process_counts_and_stops():
    with FakeServerProcess(latency_s=0.0) as proc:
        assert post(proc.openai_base_url + "/chat/completions", CHAT)[0] == 200
        assert proc.stats() == {"count": 1, "max_in_flight": 1}
        proc.reset()
        assert proc.stats()["count"] == 0
        child = proc._proc
    assert child.poll() is not None  # stopped on exit
