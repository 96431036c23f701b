"""Anthropic Messages API through the official SDK.

Anthropic takes the system prompt as a separate field and has no ``seed``;
``stop`` becomes ``stop_sequences``. ``base_url`` overrides the endpoint (tests
point it at the local fake server; a proxy works the same way).

Sampling parameters follow the API version the installed SDK speaks. Up to
``2023-06-01`` (SDK < 2.0) ``temperature`` and ``top_p`` are sent (as keyword
arguments, or through ``extra_body`` in SDK 1.x, which dropped the keywords).
API version ``2026-10-21`` (SDK >= 2.0) rejects any sampling parameter, even at
its default, so none is sent and the model samples its own way.
"""

from __future__ import annotations

import importlib
import inspect
import logging
from types import ModuleType

from scievals.llm import structured
from scievals.llm.base import (
    GenerateParams,
    LLMRequest,
    ModelSpec,
    ProviderReply,
    TransientError,
    Usage,
)
from scievals.llm.providers import SdkClientAPI, http_client, require_sdk
from scievals.llm.providers._sdk_errors import translate

OFFICIAL_BASE_URL = "https://api.anthropic.com"
# The last API version that accepts temperature / top_p.
LAST_SAMPLING_API_VERSION = "2023-06-01"
# Key-less Anthropic-compatible proxies still need some key for the SDK.
PLACEHOLDER_KEY = "no-key-needed"

log = logging.getLogger("scievals.llm")


def sampling_mode(sdk: ModuleType) -> str:
    """``kwargs``, ``extra_body`` or ``none``: how (whether) to send temperature and top_p."""
    try:
        version = importlib.import_module(f"{sdk.__name__}._constants").ANTHROPIC_API_VERSION
    except (ImportError, AttributeError):
        version = LAST_SAMPLING_API_VERSION
    if version > LAST_SAMPLING_API_VERSION:  # ISO dates compare as strings
        return "none"
    try:
        create = sdk.resources.messages.AsyncMessages.create
    except AttributeError:
        return "extra_body"  # unknown layout: extra_body works with every SDK version
    return "kwargs" if "temperature" in inspect.signature(create).parameters else "extra_body"


def usage_of(usage) -> Usage:
    """Tokens of a Message. Anthropic counts input in three parts (uncached, written to the
    prompt cache, read from it); ``tokens_in`` is their sum, as OpenAI's prompt_tokens is.
    Thinking tokens are in ``output_tokens``; ``output_tokens_details.thinking_tokens`` says
    how many (SDKs that know the field)."""
    if usage is None:
        return Usage()
    written = getattr(usage, "cache_creation_input_tokens", None) or 0
    read = getattr(usage, "cache_read_input_tokens", None) or 0
    details = getattr(usage, "output_tokens_details", None)
    if isinstance(details, dict):  # an SDK without the type keeps the field as a dict
        thinking = details.get("thinking_tokens") or 0
    else:
        thinking = getattr(details, "thinking_tokens", None) or 0
    return Usage(tokens_in=(usage.input_tokens or 0) + written + read,
                 tokens_out=usage.output_tokens or 0, cached_in=read, cache_write_in=written,
                 reasoning_tokens=thinking)


class AnthropicAPI(SdkClientAPI):
    def __init__(self, spec: ModelSpec, api_key: str | None) -> None:
        self._sdk = require_sdk("anthropic", spec)
        self.spec = spec
        self._secret = api_key
        self.sampling = sampling_mode(self._sdk)
        if self.sampling == "none":
            log.info(
                "%s: anthropic SDK %s speaks an API version without sampling parameters; "
                "temperature/top_p are not sent",
                spec.name,
                getattr(self._sdk, "__version__", "?"),
            )
        self.client = self._sdk.AsyncAnthropic(
            api_key=api_key or PLACEHOLDER_KEY,
            base_url=spec.base_url or OFFICIAL_BASE_URL,  # never ANTHROPIC_BASE_URL implicitly
            max_retries=0,  # the runner retries, once
            timeout=spec.timeout_s,
            http_client=http_client(self._sdk, spec),
        )

    def request_kwargs(self, request: LLMRequest, params: GenerateParams) -> dict:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        kwargs: dict = {
            "model": self.spec.model,
            "max_tokens": params.max_tokens,
            "messages": [
                {"role": m.role, "content": m.content}
                for m in request.messages
                if m.role != "system"
            ],
        }
        if system:
            # the instruction every case shares: marked for Anthropic's prompt cache (repeats
            # billed at the cache-read rate; a prefix below the model's minimum is not cached)
            kwargs["system"] = (system if self.spec.prompt_cache is False else
                                [{"type": "text", "text": system,
                                  "cache_control": {"type": "ephemeral"}}])
        sampling = {"temperature": params.temperature}
        if params.top_p is not None:
            sampling["top_p"] = params.top_p
        if self.sampling == "kwargs":
            kwargs.update(sampling)
        elif self.sampling == "extra_body":
            kwargs["extra_body"] = sampling
        if params.stop:
            kwargs["stop_sequences"] = params.stop
        if params.thinking_budget is not None:
            # through extra_body: SDKs older than extended thinking refuse the keyword
            kwargs["extra_body"] = {**kwargs.get("extra_body", {}), "thinking": {
                "type": "enabled", "budget_tokens": params.thinking_budget}}
        return kwargs

    def with_schema(self, kwargs: dict, json_schema: dict) -> dict:
        # through extra_body (beside the sampling fields, if any): SDKs older than the
        # parameter refuse an unknown keyword
        extra = {**kwargs.get("extra_body", {}),
                 "output_config": structured.anthropic_parameter(json_schema)}
        return {**kwargs, "extra_body": extra}

    async def call(self, kwargs: dict) -> ProviderReply:
        try:
            response = await self.client.messages.create(**kwargs)
        except Exception as exc:  # translated below; unknown kinds propagate unchanged
            raise translate(exc, self._sdk, self._secret) from exc
        return self.reply(response)

    def reply(self, response) -> ProviderReply:
        """A Message as a reply (realtime, or a batch's succeeded result)."""
        content = getattr(response, "content", None)
        if content is None:
            raise TransientError("reply has no content")
        text = "".join(block.text for block in content if getattr(block, "type", "") == "text")
        thinking = "".join(block.thinking for block in content
                           if getattr(block, "type", "") == "thinking")
        return ProviderReply(
            text=text,
            thinking=thinking or None,
            usage=usage_of(getattr(response, "usage", None)),
            stop_reason=response.stop_reason,
            request_id=getattr(response, "_request_id", None) or response.id,
            response_model=getattr(response, "model", None),  # Anthropic has no fingerprint
        )
