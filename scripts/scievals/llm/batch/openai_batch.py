"""OpenAI Batch through the official SDK: upload a JSONL file (``purpose="batch"``), create
the batch on ``/v1/chat/completions``, poll it, read its output and error files.

Any server implementing these routes works (``base_url``). The output file's bodies are
chat completions, read by the realtime provider's own parser, so a batch answer is the same
record as a realtime one.
"""

from __future__ import annotations

import json
from typing import Any

from scievals.llm.base import TransientError
from scievals.llm.batch.routes import BatchResults, BatchState, jsonl_line, sdk_call

ENDPOINT = "/v1/chat/completions"
# Batch statuses after which nothing more happens.
FINAL = frozenset({"completed", "failed", "expired", "cancelled"})


class OpenAIBatchRoute:
    provider = "openai"

    def __init__(self, api: Any) -> None:
        self.api = api
        self.client = api.client

    def line(self, custom_id: str, body: dict) -> bytes:
        return jsonl_line({"custom_id": custom_id, "method": "POST", "url": ENDPOINT,
                           "body": body})

    async def create(self, lines: list[bytes]) -> str:
        upload = await sdk_call(self.api, self.client.files.create(
            file=("scievals-batch.jsonl", b"".join(lines)), purpose="batch"))
        batch = await sdk_call(self.api, self.client.batches.create(
            input_file_id=upload.id, endpoint=ENDPOINT, completion_window="24h"))
        return batch.id

    async def state(self, batch_id: str) -> BatchState:
        batch = await sdk_call(self.api, self.client.batches.retrieve(batch_id))
        counts = batch.request_counts
        return BatchState(status=batch.status, ended=batch.status in FINAL,
                          total=getattr(counts, "total", 0) or 0,
                          completed=getattr(counts, "completed", 0) or 0,
                          failed=getattr(counts, "failed", 0) or 0)

    async def results(self, batch_id: str) -> BatchResults:
        batch = await sdk_call(self.api, self.client.batches.retrieve(batch_id))
        out = BatchResults({}, {}, _missing(batch))
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            content = await sdk_call(self.api, self.client.files.content(file_id))
            for text in content.text.splitlines():
                if text.strip():
                    self._read_line(json.loads(text), out)
        return out

    def _read_line(self, line: dict, out: BatchResults) -> None:
        custom_id = line.get("custom_id")
        response = line.get("response") or {}
        body = response.get("body")
        status = response.get("status_code")
        if status == 200 and isinstance(body, dict) and not line.get("error"):
            try:
                out.replies[custom_id] = self.api.reply(body)
            except TransientError as exc:
                out.errors[custom_id] = str(exc)
            return
        error = line.get("error") or (body or {}).get("error") or {}
        message = error.get("message") if isinstance(error, dict) else str(error)
        out.errors[custom_id] = f"HTTP {status}: {message}" if status else str(message)
        if isinstance(status, int) and 400 <= status < 500:
            out.refusals[custom_id] = (status, error.get("param") if isinstance(error, dict)
                                       else None)


def _missing(batch: Any) -> str:
    """Why a request of ``batch`` has no line in its files."""
    if batch.status == "failed":
        errors = getattr(getattr(batch, "errors", None), "data", None) or []
        reasons = "; ".join(str(getattr(e, "message", e)) for e in errors[:3])
        return f"the batch failed ({reasons or 'no reason given'})"
    return f"the batch ended {batch.status} without answering it"
