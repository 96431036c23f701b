"""The providers' batch APIs: a job's requests as one or a few batches at a discount.

``settings`` (the config keys), ``ledger`` (batch ids on disk until their answers are
cached), ``openai_batch`` and ``anthropic_batch`` (one provider's routes through its SDK
each) and ``driver`` (submit, poll, collect and retry, the same for both). The runner
(:mod:`scievals.llm.runner`) hands its requests that missed the cache to the driver when
:func:`uses_batch` says so; the answers go into the cache under the realtime key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scievals.llm.base import ModelSpec
    from scievals.llm.settings import LLMSettings

# Providers with a batch route (the mock answers in-process: nothing to batch).
BATCH_PROVIDERS = ("openai", "anthropic")


def uses_batch(spec: ModelSpec, settings: LLMSettings) -> bool:
    """Whether ``spec``'s requests go through its provider's batch API: the model's
    ``batch: true``, or the run-wide ``llm.batch.every_model`` (``run --batch``)."""
    return spec.provider in BATCH_PROVIDERS and (spec.batch or settings.batch.every_model)
