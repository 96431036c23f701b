"""Shared and broken caches, and slow servers (issue 19, items 12, 14 and 15).

- Two runs sharing one ``llm.cache_dir``: the first stored reply wins, atomically, and
  both runs (and every cached re-run) read that one.
- ``timeout_s`` is a deadline for the whole request: a body trickling in byte by byte
  fails when it passes, not when the SDK's per-read timeout would.
- A cache folder that cannot be written costs the cache, not the answered replies.
"""

from __future__ import annotations

import asyncio
import errno
import itertools
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler

import pytest
from llm_helpers import make_requests, openai_spec
from scievals.common.errors import ScievalsError
from scievals.llm import cache as cache_module
from scievals.llm.base import LLMRequest, Message, ModelSpec, ProviderReply, Usage
from scievals.llm.cache import ResponseCache
from scievals.llm.providers.mock import MockAPI
from scievals.llm.runner import run_batch, run_batch_async
from support.quiet_http import QuietThreadingHTTPServer

SPEC = ModelSpec(name="m", provider="mock", model="mock-1")
REQUEST = LLMRequest(case_id="c1", messages=[Message(role="user", content="hello")])


def _reply(text: str) -> ProviderReply:
    return ProviderReply(text=text, usage=Usage(tokens_in=1, tokens_out=1), stop_reason="stop")


# --- item 12: first writer wins --------------------------------------------------------


def test_second_writer_keeps_the_first_entry_and_gets_its_reply(tmp_path):
    first, second = ResponseCache(tmp_path), ResponseCache(tmp_path)
    assert first.put(SPEC, "ab" * 32, {}, _reply("first"), 1.5) == (_reply("first"), 1.5)
    # The second writer is told what is stored, and the entry is unchanged.
    assert second.put(SPEC, "ab" * 32, {}, _reply("second"), 0.1) == (_reply("first"), 1.5)
    entry = json.loads(first.path(SPEC, "ab" * 32).read_text())
    assert entry["reply"]["text"] == "first" and entry["latency_s"] == 1.5
    assert not list(tmp_path.rglob("*.tmp"))


def test_racing_writers_agree_on_one_winner(tmp_path):
    # Twelve threads store different replies for one key at the same moment: exactly one
    # text is on disk, and every writer was handed that text back.
    n = 12
    barrier = threading.Barrier(n)
    got: list[str] = [""] * n

    def write(i: int) -> None:
        store = ResponseCache(tmp_path)
        barrier.wait()
        got[i] = store.put(SPEC, "cd" * 32, {}, _reply(f"writer {i}"), 0.0)[0].text

    threads = [threading.Thread(target=write, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    stored = json.loads(ResponseCache(tmp_path).path(SPEC, "cd" * 32).read_text())
    assert stored["reply"]["text"].startswith("writer ")
    assert got == [stored["reply"]["text"]] * n
    assert not list(tmp_path.rglob("*.tmp"))


def test_refresh_mode_still_replaces(tmp_path):
    ResponseCache(tmp_path).put(SPEC, "ef" * 32, {}, _reply("old"), 0.0)
    refresh = ResponseCache.for_mode(tmp_path, "refresh")
    assert refresh.put(SPEC, "ef" * 32, {}, _reply("new"), 0.0)[0].text == "new"
    assert ResponseCache(tmp_path).get(SPEC, "ef" * 32, REQUEST).text == "new"


@pytest.fixture
def changing_mock(monkeypatch):
    """The mock provider answering differently on every call, after a short wait (so two
    batches started together both miss the cache before either stores a reply)."""
    counter = itertools.count(1)

    async def generate(self, request, params):
        await asyncio.sleep(0.05)
        return _reply(f"answer {next(counter)} to {request.messages[-1].content}")

    monkeypatch.setattr(MockAPI, "generate", generate)


def test_two_runs_sharing_a_cache_both_reproduce_on_a_cached_rerun(changing_mock, settings):
    requests = make_requests(5)

    async def two_runs():
        return await asyncio.gather(
            run_batch_async(SPEC, requests, settings, scope="t/v1"),
            run_batch_async(SPEC, requests, settings, scope="t/v1"),
        )

    first, second = asyncio.run(two_runs())
    first_texts = [r.text for r in first.responses]
    # Both runs asked (10 different answers were given), yet both recorded the same five.
    assert first.usage.cache_misses == second.usage.cache_misses == 5
    assert [r.text for r in second.responses] == first_texts
    assert len(set(first_texts)) == 5
    rerun = run_batch(SPEC, requests, settings, scope="t/v1")
    assert [r.cache_hit for r in rerun.responses] == [True] * 5
    assert [r.text for r in rerun.responses] == first_texts


# --- item 14: a deadline for the whole request -----------------------------------------


class _TrickleHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    interval_s = 0.5

    def log_message(self, format, *args):  # silence stderr
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = json.dumps({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "x" * 200}}],
        }).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        give_up = time.monotonic() + 30  # bounded even if the client never hangs up
        try:
            for i in range(len(body)):  # a valid body, one byte per interval
                if self.server.stopping.is_set() or time.monotonic() > give_up:
                    return
                self.wfile.write(body[i:i + 1])
                self.wfile.flush()
                time.sleep(self.interval_s)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up: that is the point


@pytest.fixture
def trickle_server():
    """A server on 127.0.0.1 sending a 300-byte body at 2 bytes/s (2.5 min per reply);
    it stops itself after 60 s whatever happens."""
    httpd = QuietThreadingHTTPServer(("127.0.0.1", 0), _TrickleHandler)
    httpd.daemon_threads = True
    httpd.stopping = threading.Event()
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    timer = threading.Timer(60, httpd.shutdown)
    timer.daemon = True
    timer.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.stopping.set()
    timer.cancel()
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.slow
def test_timeout_is_a_deadline_for_the_whole_request(trickle_server, fake_key, settings):
    # Every read gets a byte within 0.5 s, far inside the SDK's per-read timeout of 1.5 s,
    # so only a deadline on the whole request ends it: 1 attempt x 1.5 s.
    class Server:
        openai_base_url = trickle_server

    spec = openai_spec(Server, timeout_s=1.5)
    one_try = settings.model_copy(update={"max_attempts": 1})
    started = time.monotonic()
    with pytest.raises(ScievalsError, match=r"no complete reply within timeout_s=1\.5 s"):
        run_batch(spec, make_requests(1), one_try, scope="t/v1")
    elapsed = time.monotonic() - started
    assert 1.4 < elapsed < 6, elapsed


# --- item 15: a cache that cannot be written --------------------------------------------


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_unwritable_cache_keeps_every_answered_reply(changing_mock, settings, monkeypatch,
                                                     notice_dir, caplog, code):
    def refuse(path, text):
        raise OSError(code, os.strerror(code), str(path))

    monkeypatch.setattr(cache_module, "_publish_once", refuse)
    result = run_batch(SPEC, make_requests(8), settings, scope="gating/v1")
    # All eight answers reach the caller, in order, none as an error.
    assert [r.error for r in result.responses] == [None] * 8
    assert [r.text.split(" to ")[1] for r in result.responses] == [f"q{i}" for i in range(8)]
    # One warning for the batch, naming the cause and the count.
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1, warnings
    assert "8 answered request(s) could not be stored" in warnings[0]
    assert os.strerror(code) in warnings[0]
    (notice_file,) = notice_dir.glob("*.jsonl")
    assert json.loads(notice_file.read_text())["details"]["not_cached"] == 8


def test_cache_folder_blocked_by_a_file_keeps_the_replies(changing_mock, settings, caplog):
    # A real OSError (ENOTDIR), as for a folder that cannot be created: not a traceback,
    # and one warning for the batch (not one per lookup and one per write).
    settings.cache_dir.parent.mkdir(parents=True, exist_ok=True)
    settings.cache_dir.write_text("not a folder")
    result = run_batch(SPEC, make_requests(3), settings, scope="gating/v1")
    assert [r.text.split(" to ")[1] for r in result.responses] == ["q0", "q1", "q2"]
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "3 answered request(s) could not be stored" in warnings[0]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_cache_folder_keeps_the_replies(changing_mock, settings):
    settings.cache_dir.mkdir(parents=True)
    settings.cache_dir.chmod(0o500)
    try:
        result = run_batch(SPEC, make_requests(3), settings, scope="gating/v1")
    finally:
        settings.cache_dir.chmod(0o700)
    assert [r.error for r in result.responses] == [None] * 3
