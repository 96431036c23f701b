"""Run-wide settings of the LLM layer (config section ``llm:``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from scievals.common.errors import ScievalsError

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

    cache_dir: Path = Path(".cache/llm")
    cache_mode: CacheMode = "use"
    max_attempts: int = Field(default=6, ge=1)
    max_wait_s: float = Field(default=60.0, ge=0)
    max_failure_rate: float = Field(default=0.25, ge=0, le=1)

    @classmethod
    def from_config(cls, section: dict | None, where: str = "config: llm") -> LLMSettings:
        """Build from the ``llm:`` config section; missing keys take the defaults."""
        try:
            return cls(**(section or {}))
        except ValidationError as exc:
            first = exc.errors()[0]
            key = ".".join(str(p) for p in first["loc"]) or "(section)"
            raise ScievalsError(
                f"{where}.{key}", first["msg"], "see config/schema.yaml for allowed values"
            ) from None
