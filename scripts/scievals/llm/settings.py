"""Run-wide settings of the LLM layer (config section ``llm:``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from scievals.common.errors import pydantic_error
from scievals.llm.batch.settings import BatchSettings

CacheMode = Literal["use", "refresh", "off"]


class LLMSettings(BaseModel):
    """Cache location and policy, and the retry budget per request.

    ``cache_mode``: ``use`` reads hits and writes misses; ``refresh`` ignores
    hits and overwrites them with new replies; ``off`` neither reads nor writes.
    ``max_attempts`` counts the first try; ``max_wait_s`` caps one backoff wait
    (also a server's ``Retry-After``). ``max_failure_rate`` is the share of a
    batch's requests that may still fail after their retries before the batch
    (and so the model's prediction job) fails; a batch whose every request failed
    always fails, whatever the share.
    """

    model_config = ConfigDict(extra="forbid")

    cache_dir: Path = Field(default=Path(".cache/llm"), description="Folder of the on-disk "
                            "response cache (outside results/).")
    cache_mode: CacheMode = Field(default="use", description="use: read and write; refresh: "
                                  "ignore hits, overwrite; off: no cache.")
    max_attempts: int = Field(default=6, ge=1, description="Attempts per request on "
                              "429/5xx/timeouts.")
    max_wait_s: float = Field(default=60.0, ge=0, description="Longest single backoff wait in "
                              "seconds.")
    max_failure_rate: float = Field(default=0.25, ge=0, le=1, description="Share of a batch's "
                                    "LLM requests that may fail after retries before the "
                                    "model's prediction job fails (all failing always fails).")
    batch: BatchSettings = Field(default_factory=BatchSettings, description="The providers' "
                                 "batch APIs (models' batch: true, run --batch): size limits, "
                                 "polling, deadline and retries. docs/llm.md, Batch mode.")
    max_cost_usd: float | None = Field(default=None, gt=0, description="Cost ceiling in USD "
                                       "over every job's requests (the spend ledger): a request "
                                       "that could pass it is not sent and the job stops in "
                                       "one line; raise it to resume. Needs the models' "
                                       "prices. docs/llm.md#cost-ceiling")
    spend_ledger: Path | None = Field(default=None, description="File the jobs add their "
                                      "spending to for max_cost_usd; unset: "
                                      "logs/llm_spend.json.")

    @classmethod
    def from_config(cls, section: dict | None, where: str = "config: llm") -> LLMSettings:
        """Build from the ``llm:`` config section; missing keys take the defaults."""
        try:
            return cls(**(section or {}))
        except ValidationError as exc:
            raise pydantic_error(exc, where, "see config/README.md for allowed values") from None
