"""Request/response types shared by every provider (the LLM layer's contract)."""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from scievals.common.redaction import redact_text

Provider = Literal["anthropic", "openai", "baseline", "mock"]
Route = Literal["realtime", "batch"]
# OpenAI's reasoning_effort values (the SDK's ReasoningEffort).
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh"]
# Parameters added after the cache-key recipe was fixed: left out of the key while unset, so
# every request configured as before keeps its key (scievals.llm.cache.key_material).
KEY_IF_SET = ("reasoning_effort", "thinking_budget")
# Anthropic's smallest thinking budget.
MIN_THINKING_BUDGET = 1024


class GenerateParams(BaseModel):
    """Sampling parameters; part of the cache key."""

    model_config = ConfigDict(extra="forbid")

    temperature: float = Field(default=0.0, ge=0)
    max_tokens: int = Field(default=4096, ge=1)
    top_p: float | None = Field(default=None, ge=0, le=1)
    seed: int | None = None
    stop: list[str] | None = None
    reasoning_effort: ReasoningEffort | None = Field(
        default=None, description="OpenAI reasoning models: how much to think (sent as "
        "reasoning_effort; other providers ignore it). docs/llm.md#reasoning-models")
    thinking_budget: int | None = Field(
        default=None, ge=MIN_THINKING_BUDGET, description="Anthropic: extended thinking with "
        "this many tokens at most (sent as thinking: {type: enabled, budget_tokens}); must be "
        "below max_tokens, which counts them. docs/llm.md#reasoning-models")

    @model_validator(mode="after")
    def _budget_below_max_tokens(self) -> GenerateParams:
        if self.thinking_budget is not None and self.thinking_budget >= self.max_tokens:
            raise ValueError(f"thinking_budget ({self.thinking_budget}) must be below "
                             f"max_tokens ({self.max_tokens}), which counts the thinking")
        return self

    def key_dump(self) -> dict:
        """The parameters as they enter the cache key (:data:`KEY_IF_SET` only when set)."""
        unset = {name for name in KEY_IF_SET if getattr(self, name) is None}
        return self.model_dump(exclude=unset)


class ModelSpec(BaseModel):
    """One entry of the model registry in ``config.yaml`` (``models.<name>``).

    The one definition of a registry entry's keys, types, defaults and limits: the config
    schema's ``models`` entries are generated from it (``scievals.registry``), and the
    rules across keys live in ``scievals.llm.registry.model_spec``.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    provider: Provider = Field(description="baseline (built-in predictor), anthropic, openai "
                               "(also any OpenAI-compatible server), mock (offline tests).")
    model: str | None = Field(default=None, description="Provider's model id; dated ids keep "
                              "runs comparable.")
    base_url: str | None = Field(default=None, description="Endpoint of an OpenAI-compatible "
                                 "server (vLLM, Ollama, llama.cpp, LM Studio, OpenRouter).")
    api_key_env: str | None = Field(default=None, description="Name of the environment "
                                    "variable holding the API key (never the key itself).")
    max_connections: int = Field(default=8, ge=1, description="Requests in flight at once "
                                 "within one job.")
    n_samples: int = Field(default=1, ge=1, description="Repeats per prompt: variance, and "
                           "(gating, autogkb) best-of-k, consensus and agreement rows "
                           "(docs/experiment-dimensions.md).")
    timeout_s: float = Field(default=120.0, gt=0, description="Deadline in seconds for each whole "
                             "request attempt (connect, headers and complete body).")
    params: GenerateParams = Field(default_factory=GenerateParams,
                                   description="Sampling parameters (part of the cache key).")
    price_in_per_mtok: float | None = Field(default=None, ge=0,
                                            description="USD per million input tokens.")
    price_out_per_mtok: float | None = Field(default=None, ge=0,
                                             description="USD per million output tokens.")
    price_cached_in_per_mtok: float | None = Field(
        default=None, ge=0, description="USD per million input tokens read from the provider's "
        "prompt cache (OpenAI cached_tokens, Anthropic cache_read_input_tokens); unset: "
        "price_in_per_mtok. docs/llm.md#prompt-caching")
    price_cache_write_per_mtok: float | None = Field(
        default=None, ge=0, description="Anthropic: USD per million input tokens written to "
        "the prompt cache (cache_creation_input_tokens); unset: price_in_per_mtok.")
    # None (unset) means on: a filled-in default would change every model's job params
    prompt_cache: bool | None = Field(
        default=None, description="Anthropic: mark the system prompt (the instruction every "
        "case shares) with cache_control, so repeats are billed at the cache-read rate; "
        "unset: on. Not part of the response cache key. docs/llm.md#prompt-caching")
    responses: dict[str, str] | None = Field(
        default=None, description="mock provider only: case_id -> scripted reply, '*' -> default.")
    structured_output: Literal["auto", "on", "off"] = Field(
        default="auto", description="Send a benchmark's JSON schema for the server to enforce "
        "(OpenAI-compatible: response_format; Anthropic: output_config.format). auto: send it, "
        "and without it after a server rejects it (said at the end of the run); on: a "
        "rejection fails the request; off: never send it. docs/llm.md.")
    batch: bool = Field(
        default=False, description="Send this model's requests through the provider's batch "
        "API (OpenAI Batch, Anthropic Message Batches; provider openai or anthropic): billed at "
        "batch_price_factor of the price, answered within 24 h. The cache key is the same as a "
        "realtime answer's. docs/llm.md, Batch mode.")
    batch_price_factor: float = Field(
        default=0.5, gt=0, le=1, description="Share of the token price billed for an answer "
        "that came through the batch API (the providers' batch discount is 50 %).")

    @property
    def shown_url(self) -> str | None:
        """``base_url`` as printed and written: its credentials, if any, as ``***``."""
        return None if self.base_url is None else redact_text(self.base_url)

    @property
    def is_llm(self) -> bool:
        return self.provider not in ("baseline",)

    def at_temperature(self, temperature: float | None) -> ModelSpec:
        """This entry sampling at ``temperature`` (None: unchanged). The temperature is sent
        with every request and is part of the cache key (``params``)."""
        if temperature is None:
            return self
        return self.model_copy(update={"params": self.params.model_copy(
            update={"temperature": float(temperature)})})


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str


class LLMRequest(BaseModel):
    """One prompt for one case. ``case_id`` labels records; it is not in the cache key."""

    case_id: str
    messages: list[Message]
    sample_index: int = 0
    # {"name", "schema"}: the reply's JSON schema, in OpenAI's strict subset, for servers that
    # enforce it (scievals.llm.structured); in the cache key when it is sent
    json_schema: dict | None = None


class Usage(BaseModel):
    """Tokens of one reply. ``tokens_in`` counts every input token, cached or not (for
    Anthropic the sum of its three input counts); ``cached_in`` of them were read from the
    provider's prompt cache and ``cache_write_in`` written to it (Anthropic).
    ``reasoning_tokens`` are part of ``tokens_out`` (billed as output, never in the text)."""

    tokens_in: int = 0
    tokens_out: int = 0
    reasoning_tokens: int = 0
    cached_in: int = 0
    cache_write_in: int = 0


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
    # sha256 of the canonical request (see scievals.llm.cache); set by the runner.
    cache_key: str | None = None
    # What the provider said answered (the run record keeps them, see ProviderReply).
    response_model: str | None = None
    system_fingerprint: str | None = None
    structured_output: str | None = None  # see ProviderReply
    route: Route = "realtime"  # see ProviderReply
    batch_failures: int = 0  # times this run's batches reported the request failed or expired
    thinking: str | None = None  # see ProviderReply
    dropped_params: list[str] | None = None  # see ProviderReply


class ProviderReply(BaseModel):
    """What a provider hands back for one successful call (the runner adds the rest)."""

    text: str
    usage: Usage = Field(default_factory=Usage)
    stop_reason: str | None = None
    request_id: str | None = None
    # The model id the provider reports having used (an alias resolves to a dated id) and
    # OpenAI's system_fingerprint (its backend configuration): kept for the run record.
    response_model: str | None = None
    system_fingerprint: str | None = None
    # "sent": the schema went with the request; "refused": the server rejected it, so the
    # request went again without it; None: not asked for
    structured_output: str | None = None
    # How the answer came: one request (realtime) or through the provider's batch API (batch,
    # priced at batch_price_factor). Stored in the cache entry, not in its key.
    route: Route = "realtime"
    # A reasoning model's thinking text (Anthropic thinking blocks, a server's
    # reasoning_content): kept for the record, never in ``text``, which the parser reads.
    thinking: str | None = None
    # Sampling parameters the server refused (HTTP 400 naming them), so the request went
    # again without them (scievals.llm.reasoning); None: sent as configured.
    dropped_params: list[str] | None = None

    def response(self, request: LLMRequest, latency_s: float, **fields) -> LLMResponse:
        """The :class:`LLMResponse` to ``request`` carrying this reply; ``fields`` adds the
        runner's part (``attempts``, ``cache_hit``, ``cache_key``)."""
        return LLMResponse(case_id=request.case_id, sample_index=request.sample_index,
                           latency_s=latency_s, **fields,
                           **{name: getattr(self, name) for name in type(self).model_fields})


class TransientError(Exception):
    """A failure worth another attempt: 408/409/429/5xx, timeout, dropped connection,
    unreadable body. ``retry_after`` is the server's requested wait in seconds."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class RequestRejected(Exception):
    """A failure another attempt cannot fix (401/403, 400, 404, 422...): the batch stops."""

    def __init__(self, message: str, status: int | None = None,
                 param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.schema_sent = False  # the rejected request carried a JSON schema
        self.param = param  # the parameter the server's error names (OpenAI's error.param)


class ModelAPI(Protocol):
    """One provider: translates an :class:`LLMRequest` into one SDK call and back.

    Providers only translate. They raise :class:`TransientError` or
    :class:`RequestRejected` for failures; caching, retries, concurrency and
    accounting happen once, in :mod:`scievals.llm.runner`.
    """

    async def generate(self, request: LLMRequest, params: GenerateParams) -> ProviderReply: ...

    async def list_models(self) -> list[str]:
        """The model ids the server offers; ``llm check`` calls it to reach the provider."""
        ...

    @staticmethod
    def cache_extra(spec: ModelSpec, request: LLMRequest) -> dict | None:
        """Anything besides messages and params that decides the reply (mock: its script).

        A static method, so cache lookups need no client (and no SDK import).
        """
        ...

    async def aclose(self) -> None: ...
