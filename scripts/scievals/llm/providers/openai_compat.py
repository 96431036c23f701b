"""OpenAI chat completions, for api.openai.com and any OpenAI-compatible server.

vLLM, Ollama (``http://localhost:11434/v1``), llama.cpp server, LM Studio and
OpenRouter all speak this protocol; ``base_url`` picks the server.
"""

from __future__ import annotations

import json
from typing import Any

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
from scievals.llm.providers._sdk_errors import MAX_MESSAGE_CHARS, translate

OFFICIAL_BASE_URL = "https://api.openai.com/v1"
# Local servers accept any key, but the SDK insists on one.
PLACEHOLDER_KEY = "no-key-needed"


class OpenAICompatAPI(SdkClientAPI):
    def __init__(self, spec: ModelSpec, api_key: str | None) -> None:
        self._sdk = require_sdk("openai", spec)
        self.spec = spec
        self._secret = api_key
        # base_url is always explicit, so OPENAI_BASE_URL in the environment
        # cannot silently send requests elsewhere than the cache key says.
        self.official = not spec.base_url
        self.client = self._sdk.AsyncOpenAI(
            api_key=api_key or PLACEHOLDER_KEY,
            base_url=spec.base_url or OFFICIAL_BASE_URL,
            max_retries=0,  # the runner retries, once
            timeout=spec.timeout_s,
            http_client=http_client(self._sdk, spec),
        )
        # what `post` returns: the raw response, whose JSON the provider reads itself
        self._raw = self._sdk.AsyncAPIResponse[object]

    def request_kwargs(self, request: LLMRequest, params: GenerateParams) -> dict:
        kwargs: dict = {
            "model": self.spec.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": params.temperature,
        }
        # api.openai.com's newer models reject max_tokens; compatible servers
        # (older vLLM, Ollama, llama.cpp) know only max_tokens.
        kwargs["max_completion_tokens" if self.official else "max_tokens"] = params.max_tokens
        if params.top_p is not None:
            kwargs["top_p"] = params.top_p
        if params.seed is not None:
            kwargs["seed"] = params.seed
        if params.stop:
            kwargs["stop"] = params.stop
        if params.reasoning_effort is not None:
            kwargs["reasoning_effort"] = params.reasoning_effort
        return kwargs

    def with_schema(self, kwargs: dict, json_schema: dict) -> dict:
        return {**kwargs, "response_format": structured.openai_parameter(json_schema)}

    async def call(self, kwargs: dict) -> ProviderReply:
        try:
            # The documented low-level call, asking for the raw response (AsyncAPIResponse):
            # the body is already plain JSON, so the SDK's per-field type transform is
            # skipped, and the reply is read from its JSON here instead of being built into
            # ChatCompletion models (together about a third of the SDK's CPU per request).
            raw = await self.client.post(
                "/chat/completions",
                body=kwargs,
                cast_to=self._raw,
            )
            body = await raw.read()
        except Exception as exc:  # translated below; unknown kinds propagate unchanged
            raise translate(exc, self._sdk, self._secret) from exc
        try:
            data = json.loads(body)
        except ValueError:
            raise TransientError(f"the server answered 200 with no JSON body: "
                                 f"{body[:200]!r}") from None
        return self.reply(data, raw.headers.get("x-request-id"))

    def reply(self, data: Any, request_id: str | None = None) -> ProviderReply:
        """A chat completion's JSON as a reply (realtime, or a batch's output line)."""
        if not isinstance(data, dict):
            raise TransientError(f"reply is not a JSON object (a {type(data).__name__})")
        error = data.get("error")
        if error:
            # a 200 that says it failed (LiteLLM and some proxies put it beside the choices)
            raise TransientError(f"the server answered 200 with an error: {_error_text(error)}")
        choices = data.get("choices")
        if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
            raise TransientError("reply has no choices")
        choice = choices[0]
        message = choice.get("message")
        message = message if isinstance(message, dict) else {}
        return ProviderReply(
            text=message_text(message.get("content")),
            thinking=reasoning_text(message),
            usage=usage_of(data.get("usage")),
            stop_reason=choice.get("finish_reason"),
            request_id=request_id or data.get("id"),
            response_model=data.get("model"),
            system_fingerprint=data.get("system_fingerprint"),
        )


def usage_of(usage: Any) -> Usage:
    """Tokens of a chat completion's ``usage`` JSON: the cached part of the prompt
    (``prompt_tokens_details.cached_tokens``) and the reasoning part of the completion
    (``completion_tokens_details.reasoning_tokens``), where the server reports them."""
    if not isinstance(usage, dict):
        return Usage()
    prompt = usage.get("prompt_tokens_details")
    completion = usage.get("completion_tokens_details")
    return Usage(tokens_in=usage.get("prompt_tokens") or 0,
                 tokens_out=usage.get("completion_tokens") or 0,
                 cached_in=(prompt.get("cached_tokens") or 0) if isinstance(prompt, dict) else 0,
                 reasoning_tokens=(completion.get("reasoning_tokens") or 0)
                 if isinstance(completion, dict) else 0)


def reasoning_text(message: dict) -> str | None:
    """The thinking a server returns beside the answer (vLLM and DeepSeek:
    ``reasoning_content``; some servers: ``reasoning``), kept apart from the answer."""
    for name in ("reasoning_content", "reasoning"):
        value = message.get(name)
        if isinstance(value, str) and value:
            return value
    return None


def message_text(content: Any) -> str:
    """The text of a reply's ``content``: a string, or a list of parts (several servers send
    ``[{"type": "text", "text": ...}]``, as the API accepts in requests) whose text parts
    are joined; other parts (images, refusals' metadata) carry no answer text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif isinstance(getattr(part, "text", None), str):
                texts.append(part.text)
        return "".join(texts)
    raise TransientError(f"unreadable reply content (a {type(content).__name__})")


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        error = error.get("message") or error
    return str(error)[:MAX_MESSAGE_CHARS]
