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
    (also a server's ``Retry-After``).
    """

    model_config = ConfigDict(extra="forbid")

    cache_dir: Path = Path(".cache/llm")
    cache_mode: CacheMode = "use"
    max_attempts: int = Field(default=6, ge=1)
    max_wait_s: float = Field(default=60.0, ge=0)

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
