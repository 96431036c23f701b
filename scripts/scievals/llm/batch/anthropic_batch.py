"""Anthropic Message Batches through the official SDK: create, poll ``retrieve`` until
``processing_status`` is ``ended``, then stream ``results``.

Any server implementing these routes works (``base_url``). A succeeded result holds a
Message, read by the realtime provider's own parser.
"""

from __future__ import annotations

import json
from typing import Any

from scievals.common.errors import ScievalsError
from scievals.llm.base import TransientError
from scievals.llm.batch.routes import BatchResults, BatchState, jsonl_line, sdk_call


class AnthropicBatchRoute:
    provider = "anthropic"

    def __init__(self, api: Any) -> None:
        self.api = api
        batches = getattr(api.client.messages, "batches", None)
        if batches is None:
            raise ScievalsError(f"model {api.spec.name!r}", "the installed anthropic SDK has no "
                                "Message Batches (client.messages.batches)",
                                "pip install 'anthropic>=0.40', or remove batch: true")
        self.batches = batches

    def line(self, custom_id: str, body: dict) -> bytes:
        return jsonl_line({"custom_id": custom_id, "params": body})

    async def create(self, lines: list[bytes]) -> str:
        requests = [json.loads(line) for line in lines]
        batch = await sdk_call(self.api, self.batches.create(requests=requests))
        return batch.id

    async def state(self, batch_id: str) -> BatchState:
        batch = await sdk_call(self.api, self.batches.retrieve(batch_id))
        counts = batch.request_counts
        failed = sum(getattr(counts, kind, 0) or 0 for kind in ("errored", "canceled", "expired"))
        completed = getattr(counts, "succeeded", 0) or 0
        total = completed + failed + (getattr(counts, "processing", 0) or 0)
        return BatchState(status=batch.processing_status,
                          ended=batch.processing_status == "ended",
                          total=total, completed=completed, failed=failed)

    async def results(self, batch_id: str) -> BatchResults:
        out = BatchResults({}, {}, "the batch ended without answering it")
        stream = await sdk_call(self.api, self.batches.results(batch_id))
        async for item in stream:
            result = item.result
            if result.type == "succeeded":
                try:
                    out.replies[item.custom_id] = self.api.reply(result.message)
                except TransientError as exc:
                    out.errors[item.custom_id] = str(exc)
                continue
            error = getattr(getattr(result, "error", None), "error", None)
            message = getattr(error, "message", None)
            out.errors[item.custom_id] = result.type + (f": {message}" if message else "")
            if getattr(error, "type", None) == "invalid_request_error":  # Anthropic's 400
                out.refusals[item.custom_id] = (400, None)
        return out
