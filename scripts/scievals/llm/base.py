"""Request/response types shared by every provider (the LLM layer's contract)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Provider = Literal["anthropic", "openai", "baseline", "mock"]


class GenerateParams(BaseModel):
    """Sampling parameters; part of the cache key."""

    model_config = ConfigDict(extra="forbid")

    temperature: float = 0.0
    max_tokens: int = 4096
    top_p: float | None = None
    seed: int | None = None
    stop: list[str] | None = None


class ModelSpec(BaseModel):
    """One entry of the model registry in ``config.yaml`` (``models.<name>``)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    provider: Provider
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    max_connections: int = 8
    n_samples: int = 1
    timeout_s: float = 120.0
    params: GenerateParams = Field(default_factory=GenerateParams)
    price_in_per_mtok: float | None = None
    price_out_per_mtok: float | None = None

    @property
    def is_llm(self) -> bool:
        return self.provider not in ("baseline",)


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str


class LLMRequest(BaseModel):
    """One prompt for one case. ``case_id`` labels records; it is not in the cache key."""

    case_id: str
    messages: list[Message]
    sample_index: int = 0


class Usage(BaseModel):
    tokens_in: int = 0
    tokens_out: int = 0


class LLMResponse(BaseModel):
    case_id: str
    sample_index: int = 0
    text: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    stop_reason: str | None = None
    request_id: str | None = None
    cache_hit: bool = False
    attempts: int = 0
    error: str | None = None
