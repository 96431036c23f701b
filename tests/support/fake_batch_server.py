"""The fake server with both providers' batch routes, in the shapes the official SDKs send.

OpenAI: ``POST /v1/files`` (multipart, ``purpose=batch``), ``POST /v1/batches``, ``GET
/v1/batches/{id}``, ``GET /v1/files/{id}/content``. Anthropic: ``POST /v1/messages/batches``,
``GET /v1/messages/batches/{id}``, ``GET /v1/messages/batches/{id}/results``. The realtime
routes stay as :class:`FakeLLMServer` has them (and are logged in ``requests``); the batch
routes are logged in ``batch_calls`` and never in ``requests``.

A batch ends on its ``polls_to_end``-th status request (0: never, until the attribute is
changed); then each of its requests is answered as the realtime route would answer it,
unless ``batch_faults[prompt]`` holds a queue of ``"failed"`` (an error line / an
``errored`` result) or ``"expired"`` (no line, batch ``expired`` / an ``expired`` result),
one taken per batch that carries the prompt. ``fail_batches = n``: the next n OpenAI
batches fail as a whole (status ``failed``, no output file). A request line carrying a field
of ``refused_sampling`` (a reasoning model) or ``rejected_params`` (no structured output) is
answered with that line's 400, in the provider's shape, as the realtime route answers it;
answers carry the realtime route's thinking and prompt-cache usage.
"""

from __future__ import annotations

import json
from email.parser import BytesParser
from email.policy import default as email_policy
from typing import Any

from support.fake_server import (
    FakeLLMServer,
    _anthropic_reply,
    _Handler,
    _last_user_text,
    _openai_reply,
)


class _BatchHandler(_Handler):
    def do_GET(self) -> None:
        owner: FakeBatchServer = self.server.owner
        parts = self.path.strip("/").split("/")
        if self.path == "/_stats":  # for a server in another process (benchmarks)
            self._send_json(200, {"count": owner.count, "max_in_flight": owner.max_in_flight,
                                  "batch_calls": len(owner.batch_calls)})
        elif parts[:2] == ["v1", "batches"] and len(parts) == 3:
            owner._log("GET", self.path)
            self._send_json(*owner.openai_poll(parts[2]))
        elif parts[:2] == ["v1", "files"] and len(parts) == 4 and parts[3] == "content":
            owner._log("GET", self.path)
            data = owner.files.get(parts[2])
            if data is None:
                self._send_json(404, {"error": {"message": "no such file"}})
            else:
                self._send_raw(200, data, "application/octet-stream")
        elif parts[:3] == ["v1", "messages", "batches"] and len(parts) == 4:
            owner._log("GET", self.path)
            self._send_json(*owner.anthropic_poll(parts[3]))
        elif parts[:3] == ["v1", "messages", "batches"] and len(parts) == 5:
            owner._log("GET", self.path)
            data = owner.anthropic_results(parts[3])
            self._send_raw(200, data, "application/binary")
        else:
            super().do_GET()

    def do_POST(self) -> None:
        owner: FakeBatchServer = self.server.owner
        path = self.path.rstrip("/")
        if path not in ("/v1/files", "/v1/batches", "/v1/messages/batches"):
            super().do_POST()
            return
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        owner._log("POST", path)
        if path == "/v1/files":
            self._send_json(200, owner.openai_upload(self.headers["content-type"], raw))
        elif path == "/v1/batches":
            self._send_json(*owner.openai_create(json.loads(raw)))
        else:
            self._send_json(200, owner.anthropic_create(json.loads(raw)))


class FakeBatchServer(FakeLLMServer):
    handler_class = _BatchHandler

    def __init__(self, polls_to_end: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.polls_to_end = polls_to_end
        self.fail_batches = 0  # the next n OpenAI batches fail validation as a whole
        self.batch_faults: dict[str, list[str]] = {}
        self.batch_calls: list[tuple[str, str]] = []
        self.files: dict[str, bytes] = {}
        self.uploads: list[dict] = []  # the multipart fields of each upload (purpose, filename)
        self.batches: dict[str, dict] = {}  # id -> {"kind", "requests", "polls", "result"}

    # --- bookkeeping --------------------------------------------------------------------------
    def reset_log(self) -> None:
        super().reset_log()
        with self._lock:
            self.batch_calls.clear()

    def _log(self, method: str, path: str) -> None:
        with self._lock:
            self.batch_calls.append((method, path))

    def created(self, kind: str | None = None) -> list[str]:
        """Ids of the batches created (of one kind: ``openai`` / ``anthropic``), in order."""
        return [i for i, b in self.batches.items() if kind in (None, b["kind"])]

    def batch_sizes(self) -> list[int]:
        return [len(b["requests"]) for b in self.batches.values()]

    def _fault(self, prompt: str) -> str | None:
        with self._lock:
            queue = self.batch_faults.get(prompt)
            return queue.pop(0) if queue else None

    def _refused(self, body: dict) -> tuple[str, str] | None:
        """The parameter a request line is refused for and the 400's message, or None."""
        for param in sorted(self.refused_sampling & set(body)):
            return param, f"Unsupported parameter: '{param}' is not supported with this model."
        for param in sorted(self.rejected_params & set(body)):
            return param, f"Unrecognized request argument supplied: {param}"
        return None

    def _ended(self, batch: dict) -> bool:
        with self._lock:
            batch["polls"] += 1
            if (batch["result"] is None and self.polls_to_end
                    and batch["polls"] >= self.polls_to_end):
                batch["result"] = "pending"
                return True
            return batch["result"] is not None

    # --- OpenAI -------------------------------------------------------------------------------
    def openai_upload(self, content_type: str, raw: bytes) -> dict:
        message = BytesParser(policy=email_policy).parsebytes(
            b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw)
        fields = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            fields[name] = part.get_content() if name != "file" else part.get_payload(decode=True)
            if name == "file":
                fields["filename"] = part.get_filename()
        file_id = f"file-{self._next_id()}"
        self.files[file_id] = fields["file"]
        self.uploads.append({"purpose": fields.get("purpose"), "filename": fields.get("filename")})
        return {"id": file_id, "object": "file", "bytes": len(fields["file"]), "created_at": 1,
                "filename": fields.get("filename"), "purpose": fields.get("purpose"),
                "status": "processed"}

    def openai_create(self, body: dict) -> tuple[int, dict]:
        data = self.files.get(body.get("input_file_id"))
        if data is None or body.get("endpoint") != "/v1/chat/completions":
            return 400, {"error": {"message": "bad input_file_id or endpoint"}}
        lines = [json.loads(line) for line in data.decode().splitlines() if line.strip()]
        batch_id = f"batch_{self._next_id()}"
        self.batches[batch_id] = {"kind": "openai", "requests": lines, "polls": 0,
                                  "result": None, "status": "validating",
                                  "input_file_id": body["input_file_id"]}
        return 200, self._openai_batch(batch_id)

    def openai_poll(self, batch_id: str) -> tuple[int, dict]:
        batch = self.batches.get(batch_id)
        if batch is None or batch["kind"] != "openai":
            return 404, {"error": {"message": "no such batch"}}
        if self._ended(batch) and batch["result"] == "pending":
            self._run_openai(batch_id, batch)
        elif batch["result"] is None:
            batch["status"] = "in_progress"
        return 200, self._openai_batch(batch_id)

    def _run_openai(self, batch_id: str, batch: dict) -> None:
        with self._lock:
            failing, self.fail_batches = self.fail_batches > 0, max(self.fail_batches - 1, 0)
        if failing:  # status failed, no output: what a rejected input file gets
            batch.update(result="done", status="failed", errors={"object": "list", "data": [
                {"code": "invalid_request", "message": "scripted validation failure",
                 "line": 1}]})
            return
        out, errors, expired = [], [], False
        for line in batch["requests"]:
            body = line["body"]
            prompt = _last_user_text(body)
            fault = self._fault(prompt)
            base = {"id": f"batch_req_{self._next_id()}", "custom_id": line["custom_id"]}
            refused = self._refused(body)
            if refused:
                param, message = refused
                errors.append({**base, "response": {"status_code": 400, "request_id": "r",
                               "body": {"error": {"message": message, "param": param,
                                                  "type": "invalid_request_error"}}},
                               "error": None})
            elif fault == "expired":
                expired = True
            elif fault == "failed":
                errors.append({**base, "response": {"status_code": 500, "request_id": "r",
                               "body": {"error": {"message": "scripted batch failure",
                                                  "type": "server_error"}}}, "error": None})
            else:
                reply = _openai_reply(body, self.reply_text(prompt), prompt, False,
                                      self._next_id())
                self._reasoning_and_cache(reply, body, anthropic=False)
                out.append({**base, "response": {"status_code": 200, "request_id": "r",
                                                 "body": reply}, "error": None})
        batch["result"] = "done"
        batch["status"] = "expired" if expired else "completed"
        batch["counts"] = {"total": len(batch["requests"]), "completed": len(out),
                           "failed": len(errors)}
        for name, lines in (("output_file_id", out), ("error_file_id", errors)):
            if lines:
                file_id = f"file-{self._next_id()}"
                self.files[file_id] = "".join(json.dumps(x) + "\n" for x in lines).encode()
                batch[name] = file_id

    def _openai_batch(self, batch_id: str) -> dict:
        batch = self.batches[batch_id]
        total = len(batch["requests"])
        return {"id": batch_id, "object": "batch", "endpoint": "/v1/chat/completions",
                "errors": batch.get("errors"), "input_file_id": batch["input_file_id"],
                "completion_window": "24h", "status": batch["status"],
                "output_file_id": batch.get("output_file_id"),
                "error_file_id": batch.get("error_file_id"), "created_at": 1,
                "request_counts": batch.get("counts",
                                            {"total": total, "completed": 0, "failed": 0})}

    # --- Anthropic ----------------------------------------------------------------------------
    def anthropic_create(self, body: dict) -> dict:
        batch_id = f"msgbatch_{self._next_id()}"
        self.batches[batch_id] = {"kind": "anthropic", "requests": body["requests"],
                                  "polls": 0, "result": None}
        return self._anthropic_batch(batch_id)

    def anthropic_poll(self, batch_id: str) -> tuple[int, dict]:
        batch = self.batches.get(batch_id)
        if batch is None or batch["kind"] != "anthropic":
            return 404, {"type": "error", "error": {"type": "not_found_error",
                                                    "message": "no such batch"}}
        if self._ended(batch) and batch["result"] == "pending":
            self._run_anthropic(batch)
        return 200, self._anthropic_batch(batch_id)

    def _run_anthropic(self, batch: dict) -> None:
        results = []
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        for request in batch["requests"]:
            params = request["params"]
            prompt = _last_user_text(params)
            fault = self._fault(prompt)
            refused = self._refused(params)
            if refused:
                result = {"type": "errored", "error": {"type": "error", "error": {
                    "type": "invalid_request_error", "message": refused[1]}}}
            elif fault == "expired":
                result = {"type": "expired"}
            elif fault == "failed":
                result = {"type": "errored", "error": {"type": "error", "error": {
                    "type": "api_error", "message": "scripted batch failure"}}}
            else:
                message = _anthropic_reply(params, self.reply_text(prompt), prompt, False,
                                           self._next_id())
                self._reasoning_and_cache(message, params, anthropic=True)
                result = {"type": "succeeded", "message": message}
            counts[result["type"]] += 1
            results.append({"custom_id": request["custom_id"], "result": result})
        batch["result"] = "".join(json.dumps(r) + "\n" for r in results).encode()
        batch["counts"] = counts

    def anthropic_results(self, batch_id: str) -> bytes:
        result = self.batches[batch_id]["result"]
        return result if isinstance(result, bytes) else b""

    def _anthropic_batch(self, batch_id: str) -> dict:
        batch = self.batches[batch_id]
        ended = isinstance(batch["result"], bytes)
        counts = batch.get("counts") or {"processing": len(batch["requests"]), "succeeded": 0,
                                         "errored": 0, "canceled": 0, "expired": 0}
        return {"id": batch_id, "type": "message_batch",
                "processing_status": "ended" if ended else "in_progress",
                "request_counts": counts, "created_at": "2026-01-01T00:00:00Z",
                "expires_at": "2026-01-02T00:00:00Z", "ended_at": None,
                "cancel_initiated_at": None, "archived_at": None,
                "results_url": f"{self.url}/v1/messages/batches/{batch_id}/results"
                if ended else None}


if __name__ == "__main__":  # a process of its own, for benchmarks (FakeServerProcess)
    from support.fake_server import main

    main(server_class=FakeBatchServer)
