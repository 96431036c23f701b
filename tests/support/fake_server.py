"""A small OpenAI- and Anthropic-shaped HTTP server for offline tests and benchmarks.

It listens on 127.0.0.1 (a free port), answers ``POST /v1/chat/completions``
(OpenAI) and ``POST /v1/messages`` (Anthropic) with a deterministic reply
(``reply_prefix`` + the last user message), and can inject faults. Faults are
scripted per prompt: ``server.script["prompt text"] = ["429:0.1", "500"]`` makes
the first request with that last user message get a 429 with ``Retry-After:
0.1``, the second a 500, and later ones a normal reply. Every request is logged
(path, JSON body, headers, arrival time) and the most requests in flight at once
is kept, so tests can count what reached the server.

Fault codes: ``429[:retry_after]``, ``500``, ``503``, ``401``, ``403``, ``400``,
``404``, ``slow:<seconds>`` (sleep, then reply), ``malformed`` (200 with a body
that is not JSON), ``cut`` (headers promise more bytes than are sent, then the
connection closes), ``drop`` (close without any response), ``length`` (a reply
cut short: finish_reason ``length`` / stop_reason ``max_tokens``), and for the OpenAI
shape ``parts`` (the reply's ``content`` as a list of two text parts) and ``error200``
(a 200 whose body has an ``error`` object beside the choices, as some proxies send).
``responder``, when set, writes the reply from the request body (a model whose answer
depends on its temperature and seed).

The server shuts itself down after ``max_lifetime_s`` even if nobody stops it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from collections.abc import Callable
from typing import Any, Self

from support.quiet_http import QuietThreadingHTTPServer

# The system_fingerprint every OpenAI-shaped reply carries (what a real server's would be).
FINGERPRINT = "fp_fake_0001"


class _Server(QuietThreadingHTTPServer):
    daemon_threads = True  # a slow:<seconds> reply may outlive stop(); it only sleeps
    request_queue_size = 256  # many clients connect at once; a short backlog drops SYNs
    owner: FakeLLMServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; with Nagle's algorithm the body
    # would wait for the client's delayed ACK (~40 ms on Linux).
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr
        pass

    def do_GET(self) -> None:
        if self.path == "/_stats":  # for a server in another process (see FakeServerProcess)
            owner = self.server.owner
            self._send_json(200, {"count": owner.count, "max_in_flight": owner.max_in_flight})
        elif self.path.rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
        else:
            self._send_json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        if self.path == "/_reset":
            self.server.owner.reset_log()
            self._send_json(200, {"ok": True})
            return
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send_json(400, {"error": {"message": "request body is not JSON"}})
            return
        owner = self.server.owner
        anthropic = self.path.rstrip("/").endswith("/messages")
        prompt = _last_user_text(body)
        fault = owner._record_and_next_fault(self.path, body, dict(self.headers.items()), prompt)
        refused = sorted(set(body) & owner.rejected_params) if isinstance(body, dict) else []
        if refused and not fault:  # a server that does not know the parameter (HTTP 400)
            fault = "400"
            owner.error_messages.setdefault(
                400, f"Unrecognized request argument supplied: {refused[0]}")
        sampling = [p for p in owner.refused_sampling if isinstance(body, dict) and p in body]
        if sampling and not fault:  # a reasoning model (scievals.llm.reasoning)
            self._send_sampling_refusal(sampling[0], anthropic)
            owner._done()
            return
        try:
            if owner.latency_s:
                time.sleep(owner.latency_s)
            self._reply(owner, anthropic, body, prompt, fault)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout); nothing to tell it
        finally:
            owner._done()

    def _reply(self, owner, anthropic: bool, body: dict, prompt: str, fault: str | None) -> None:
        kind, _, arg = (fault or "").partition(":")
        if kind == "slow":
            time.sleep(float(arg or 1.0))
            kind = ""
        if kind in ("400", "401", "403", "404", "500", "503"):
            status = int(kind)
            message = owner.error_messages.get(status, f"scripted HTTP {status}")
            self._send_error(status, message, anthropic)
            return
        if kind == "429":
            headers = {"retry-after": arg} if arg else {}
            self._send_error(429, "rate limited (scripted)", anthropic, headers)
            return
        if kind == "malformed":
            self._send_raw(200, b'{"id": "oops", "choices": [', "application/json")
            return
        if kind == "drop":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        text = owner.reply_text(prompt)
        if owner.responder is not None:  # a scripted model: reads the request (the
            # conversation, temperature, seed) and the prompt
            text = owner.responder(body, prompt)
        elif owner.enforced_reply is not None:  # a model whose replies the schema holds to form
            asked = "response_format" in body or "output_config" in body
            text = owner.enforced_reply if asked else owner.free_reply
        truncated = kind == "length"
        if truncated:
            text = text[: max(1, len(text) // 2)]
        payload = (
            _anthropic_reply(body, text, prompt, truncated, owner._next_id())
            if anthropic
            else _openai_reply(body, text, prompt, truncated, owner._next_id())
        )
        if kind == "parts" and not anthropic:
            half = len(text) // 2
            payload["choices"][0]["message"]["content"] = [
                {"type": "text", "text": text[:half]}, {"type": "text", "text": text[half:]}]
        owner._reasoning_and_cache(payload, body, anthropic)
        if kind == "error200" and not anthropic:
            payload["error"] = {"message": "upstream overloaded (scripted)", "type": "server_error"}
        data = json.dumps(payload).encode()
        if kind == "cut":
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data) + 100))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        request_id = payload["id"] + "-req"
        self._send_raw(
            200, data, "application/json", {"x-request-id": request_id, "request-id": request_id}
        )

    def _send_sampling_refusal(self, param: str, anthropic: bool) -> None:
        """The 400 a reasoning model answers a sampling parameter with (each provider's)."""
        if anthropic:
            payload = {"type": "error", "error": {"type": "invalid_request_error", "message":
                       f"`{param}` may only be set to 1 when thinking is enabled."}}
        else:
            payload = {"error": {"message": f"Unsupported parameter: '{param}' is not "
                                 "supported with this model.", "type": "invalid_request_error",
                                 "param": param, "code": "unsupported_parameter"}}
        self._send_raw(400, json.dumps(payload).encode(), "application/json")

    def _send_error(self, status: int, message: str, anthropic: bool, headers=None) -> None:
        if anthropic:
            kind = {429: "rate_limit_error", 401: "authentication_error"}.get(status, "api_error")
            payload = {"type": "error", "error": {"type": kind, "message": message}}
        else:
            payload = {"error": {"message": message, "type": "scripted", "code": status}}
        self._send_raw(status, json.dumps(payload).encode(), "application/json", headers)

    def _send_json(self, status: int, payload: dict) -> None:
        self._send_raw(status, json.dumps(payload).encode(), "application/json")

    def _send_raw(self, status: int, data: bytes, ctype: str, headers=None) -> None:
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _last_user_text(body: dict) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):  # Anthropic content blocks
                return "".join(b.get("text", "") for b in content if isinstance(b, dict))
            return str(content)
    return ""


def _words(text: str) -> int:
    return len(text.split())


def _prompt_words(body: dict) -> int:
    system = body.get("system") or ""
    if isinstance(system, list):  # Anthropic content blocks (cache_control marks)
        system = " ".join(b.get("text", "") for b in system if isinstance(b, dict))
    total = _words(str(system))
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):
            content = " ".join(b.get("text", "") for b in content if isinstance(b, dict))
        total += _words(str(content))
    return total


def _openai_reply(body: dict, text: str, prompt: str, truncated: bool, serial: int) -> dict:
    return {
        "id": f"chatcmpl-{serial}",
        "object": "chat.completion",
        "created": 1700000000,
        "model": body.get("model", "fake"),
        "system_fingerprint": FINGERPRINT,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "length" if truncated else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": _prompt_words(body),
            "completion_tokens": _words(text),
            "total_tokens": _prompt_words(body) + _words(text),
        },
    }


def _anthropic_reply(body: dict, text: str, prompt: str, truncated: bool, serial: int) -> dict:
    return {
        "id": f"msg_{serial}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "fake"),
        "content": [{"type": "text", "text": text}],
        "stop_reason": "max_tokens" if truncated else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": _prompt_words(body), "output_tokens": _words(text)},
    }


class FakeLLMServer:
    """Start with ``with FakeLLMServer(latency_s=0.2) as server: ...``."""

    def __init__(
        self,
        latency_s: float = 0.0,
        reply_prefix: str = "reply: ",
        max_lifetime_s: float = 600.0,
    ) -> None:
        self.latency_s = latency_s
        self.reply_prefix = reply_prefix
        self.max_lifetime_s = max_lifetime_s
        self.script: dict[str, list[str]] = {}
        self.error_messages: dict[int, str] = {}
        # request fields the server refuses with a 400 naming them (structured output)
        self.rejected_params: set[str] = set()
        # when set: the reply to a request that asks for structured output, and free_reply the
        # reply to one that does not (None: the usual echo of the prompt for both)
        self.enforced_reply: str | None = None
        self.free_reply = ""
        # when set: responder(request body, prompt) -> the reply text (a model that answers by
        # temperature and seed, or a follow-up turn differently: the body holds the conversation)
        self.responder: Callable[[dict, str], str] | None = None
        # a reasoning model: refuses these sampling fields (400 in the provider's shape) and
        # thinks thinking_tokens tokens ("thought " repeated) before each answer
        self.refused_sampling: set[str] = set()
        self.thinking_tokens = 0
        # a provider prompt cache: a system prompt seen before is read from it (OpenAI:
        # automatically; Anthropic: when marked with cache_control), counted in words
        self.prompt_cache = False
        self._cached_systems: set[str] = set()
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._serial = 0
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    handler_class: type[BaseHTTPRequestHandler] = _Handler  # subclasses add routes

    def reply_text(self, prompt: str) -> str:
        """The answer to a prompt (subclasses answer in a benchmark's format)."""
        return self.reply_prefix + prompt

    # --- lifecycle ---------------------------------------------------------
    def start(self) -> FakeLLMServer:
        self._httpd = _Server(("127.0.0.1", 0), self.handler_class)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        self._timer = threading.Timer(self.max_lifetime_s, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- addresses ---------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_base_url(self) -> str:
        return self.url + "/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    # --- bookkeeping -------------------------------------------------------
    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def prompts(self) -> list[str]:
        with self._lock:
            return [r["prompt"] for r in self.requests]

    def reset_log(self) -> None:
        with self._lock:
            self.requests.clear()
            self.max_in_flight = self.in_flight

    def _record_and_next_fault(self, path, body, headers, prompt) -> str | None:
        with self._lock:
            self.requests.append(
                {
                    "path": path,
                    "body": body,
                    "headers": headers,
                    "prompt": prompt,
                    "t": time.monotonic(),
                }
            )
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            queue = self.script.get(prompt)
            return queue.pop(0) if queue else None

    def _reasoning_and_cache(self, payload: dict, body: dict, anthropic: bool) -> None:
        """Add thinking and prompt-cache usage to a reply, in each provider's shape."""
        usage = payload["usage"]
        if self.thinking_tokens:
            n = self.thinking_tokens
            if anthropic:
                payload["content"].insert(0, {"type": "thinking", "thinking": "thought " * n,
                                              "signature": "sig"})
                usage["output_tokens"] += n
                usage["output_tokens_details"] = {"thinking_tokens": n}
            else:  # the thinking text as vLLM and DeepSeek return it
                payload["choices"][0]["message"]["reasoning_content"] = "thought " * n
                usage["completion_tokens"] += n
                usage["total_tokens"] += n
                usage["completion_tokens_details"] = {"reasoning_tokens": n}
        if not self.prompt_cache:
            return
        system = body.get("system") if anthropic else next(
            (m.get("content") for m in body.get("messages", []) if m.get("role") == "system"),
            None)
        marked = anthropic and isinstance(system, list) and any(
            isinstance(b, dict) and "cache_control" in b for b in system)
        if isinstance(system, list):
            system = " ".join(b.get("text", "") for b in system if isinstance(b, dict))
        if not system or (anthropic and not marked):
            return
        words = _words(system)
        with self._lock:
            seen = system in self._cached_systems
            self._cached_systems.add(system)
        if anthropic:  # input_tokens then counts only what is neither written nor read
            usage["input_tokens"] -= words
            usage["cache_read_input_tokens" if seen else "cache_creation_input_tokens"] = words
        elif seen:
            usage["prompt_tokens_details"] = {"cached_tokens": words}

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _next_id(self) -> int:
        with self._lock:
            self._serial += 1
            return self._serial


class FakeServerProcess:
    """The same server in its own process, so its CPU time does not compete with the
    client for one interpreter (as a real server would not): for benchmarks.

    ``stats()`` returns ``{"count", "max_in_flight"}``; ``reset()`` clears them.
    """

    def __init__(self, latency_s: float = 0.0, max_lifetime_s: float = 600.0,
                 module: str = "support.fake_server") -> None:
        self.latency_s = latency_s
        self.max_lifetime_s = max_lifetime_s
        self.module = module  # support.fake_batch_server: with the batch routes
        self._proc: subprocess.Popen | None = None
        self.url = ""

    def __enter__(self) -> Self:
        self._proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                self.module,
                "--latency",
                str(self.latency_s),
                "--max-lifetime",
                str(self.max_lifetime_s),
            ],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": _tests_dir()},
        )
        line = self._proc.stdout.readline().strip()  # "listening on http://127.0.0.1:PORT"
        if not line.startswith("listening on "):
            self._proc.kill()
            raise RuntimeError(f"fake server did not start: {line!r}")
        self.url = line.removeprefix("listening on ")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait(timeout=10)
            self._proc = None

    @property
    def openai_base_url(self) -> str:
        return self.url + "/v1"

    def stats(self) -> dict:
        with urllib.request.urlopen(self.url + "/_stats", timeout=5) as reply:
            return json.loads(reply.read())

    def reset(self) -> None:
        request = urllib.request.Request(self.url + "/_reset", data=b"{}", method="POST")
        urllib.request.urlopen(request, timeout=5).close()


def _tests_dir() -> str:
    """The folder holding ``support/`` (what ``python -m support.fake_server`` needs)."""
    return str(Path(__file__).resolve().parents[1])


def main(argv: list[str] | None = None, server_class: type | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fake OpenAI/Anthropic server for offline runs")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    parser.add_argument("--prefix", default="reply: ", help="reply = prefix + last user message")
    parser.add_argument("--max-lifetime", type=float, default=600.0, help="stop after seconds")
    args = parser.parse_args(argv)
    server = (server_class or FakeLLMServer)(
        latency_s=args.latency, reply_prefix=args.prefix, max_lifetime_s=args.max_lifetime).start()
    print(f"listening on {server.url}", flush=True)
    try:
        server._thread.join()  # returns when the lifetime timer stops the server
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
