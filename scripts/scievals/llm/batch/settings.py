"""Run-wide settings of the batch route (config ``llm.batch``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

# What the providers publish (docs/specs: OpenAI 50,000 requests / 200 MB per input file;
# Anthropic 100,000 requests / 256 MB per batch): the defaults of the size limits.
PROVIDER_LIMITS = {"openai": (50_000, 200 * 1024 * 1024),
                   "anthropic": (100_000, 256 * 1024 * 1024)}


class BatchSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    every_model: bool = Field(default=False, description="Send every openai/anthropic model's "
                              "requests through the batch API, whatever its own batch: says "
                              "(what `python -m scievals run --batch` sets).")
    max_requests: int | None = Field(default=None, ge=1, description="Most requests in one "
                                     "batch; more make several batches (default: the "
                                     "provider's limit, 50,000 OpenAI, 100,000 Anthropic).")
    max_bytes: int | None = Field(default=None, ge=1024, description="Most bytes of requests "
                                  "in one batch (default: the provider's limit, 200 MB "
                                  "OpenAI, 256 MB Anthropic).")
    poll_interval_s: float = Field(default=30.0, gt=0, description="Seconds between the first "
                                   "polls of a batch's status.")
    poll_backoff: float = Field(default=1.5, ge=1, description="Each wait is this many times "
                                "the one before, up to max_poll_interval_s.")
    max_poll_interval_s: float = Field(default=600.0, gt=0, description="Longest wait between "
                                       "two polls, in seconds.")
    deadline_s: float = Field(default=86_400.0, gt=0, description="Seconds a job waits for its "
                              "batches; then it stops (exit non-zero) and a re-run picks the "
                              "same batches up.")
    max_rounds: int = Field(default=3, ge=1, description="Batches a request may go through: one "
                          "the batch reports failed or expired goes again in a new batch until "
                          "then, and then counts as a failed request.")
    retry_realtime: bool = Field(default=False, description="Send the requests a batch reports "
                                 "failed or expired again as realtime requests (full price) "
                                 "instead of in a new batch.")

    def limits(self, provider: str) -> tuple[int, int]:
        """(requests, bytes) per batch for ``provider``."""
        requests, size = PROVIDER_LIMITS[provider]
        return self.max_requests or requests, self.max_bytes or size
