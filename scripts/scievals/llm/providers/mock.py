"""Offline, deterministic replies for workflow tests (provider ``mock``, no network).

The registry entry may script replies: ``responses: {case_id: text, "*": default}``.
Without a match the reply is ``mock reply <12 hex digits of the prompt's hash>``.
Token usage is word counts (prompt words in, reply words out).
"""

from __future__ import annotations

from scievals.common.io import canonical_json, sha256_text
from scievals.llm.base import GenerateParams, LLMRequest, ModelSpec, ProviderReply, Usage


def scripted_reply(spec: ModelSpec, request: LLMRequest) -> str | None:
    responses = spec.responses or {}
    if request.case_id in responses:
        return responses[request.case_id]
    return responses.get("*")


def reply_text(spec: ModelSpec, request: LLMRequest) -> str:
    scripted = scripted_reply(spec, request)
    if scripted is not None:
        return scripted
    digest = sha256_text(canonical_json([m.model_dump() for m in request.messages]))
    return f"mock reply {digest[:12]}"


class MockAPI:
    def __init__(self, spec: ModelSpec, api_key: str | None = None) -> None:
        self.spec = spec

    async def generate(self, request: LLMRequest, params: GenerateParams) -> ProviderReply:
        text = reply_text(self.spec, request)
        return ProviderReply(
            text=text,
            usage=Usage(
                tokens_in=sum(len(m.content.split()) for m in request.messages),
                tokens_out=len(text.split()),
            ),
            stop_reason="stop",
            request_id=None,
        )

    async def list_models(self) -> list[str]:
        return [self.spec.model or "mock"]

    @staticmethod
    def cache_extra(spec: ModelSpec, request: LLMRequest) -> dict | None:
        # A scripted reply depends on the case and the script, so both join the key.
        return {"case_id": request.case_id, "scripted": scripted_reply(spec, request)}

    async def aclose(self) -> None:
        return None
