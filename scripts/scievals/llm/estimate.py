"""Estimates before sending: a run's requests and cost from its prompts, nothing sent.

Inside :func:`estimating`, :func:`scievals.llm.runner.run_batch` looks every request up in
the response cache (a hit costs nothing more), sends nothing, writes nothing, and answers
every other request with an empty reply; what each batch would send goes to the
:class:`Estimate`. A benchmark's own prediction code then builds exactly the requests a run
would (every condition, sample and model), so the estimate needs no second copy of its
loops. Replies are empty, so a turn that depends on a reply is estimated as the benchmark
treats an empty one.

Tokens in are the prompts' characters / 4 (scievals.llm.spend.prompt_tokens); the cost is a
range: input only (replies of no length) to input plus ``max_tokens`` of output per request
(the ceiling's reservation), at the model's prices (None: unpriced); a model whose requests
go through its provider's batch API (scievals.llm.batch) at ``batch_price_factor`` of them,
its ``route`` saying so.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from scievals.llm import spend
from scievals.llm.batch import uses_batch
from scievals.llm.base import LLMResponse, ModelSpec, Usage


@dataclass
class BatchEstimate:
    model: str
    label: str
    requests: int  # every sample of the batch
    cached: int  # answered from the response cache (or shared with an identical request)
    to_send: int
    tokens_in: int  # estimated, of the requests to send
    cost_low_usd: float | None  # input only
    cost_high_usd: float | None  # input plus max_tokens of output each
    route: str = "realtime"  # or "batch" (priced at the model's batch_price_factor)


@dataclass
class Estimate:
    batches: list[BatchEstimate] = field(default_factory=list)

    def answer(self, spec: ModelSpec, batch, label: str) -> list[LLMResponse]:
        """Record what ``batch`` (a runner ``_Batch``) would send and answer it emptily."""
        priced = spec.price_in_per_mtok is not None and spec.price_out_per_mtok is not None
        route = ("batch" if not batch.realtime and uses_batch(spec, batch.settings)
                 else "realtime")
        factor = spec.batch_price_factor if route == "batch" else 1.0
        tokens = low = high = 0.0
        for job in batch.pending:
            n = spend.prompt_tokens(job.request)
            tokens += n
            if priced:
                low += n * spec.price_in_per_mtok / 1e6 * factor
                high += spend.request_estimate(spec, job.request, job.params) * factor
            batch.settle(job.index, LLMResponse(
                case_id=job.request.case_id, sample_index=job.request.sample_index, text="",
                usage=Usage(tokens_in=n), cache_key=job.key))
        sent = len(batch.pending)
        self.batches.append(BatchEstimate(
            spec.name, label, len(batch.samples), len(batch.samples) - sent, sent,
            int(tokens), low if priced else None, high if priced else None, route))
        return [r for r in batch.responses if r is not None]


_ACTIVE: ContextVar[Estimate | None] = ContextVar("scievals_llm_estimate", default=None)


def active() -> Estimate | None:
    """The estimate being collected, or None (a real run)."""
    return _ACTIVE.get()


@contextmanager
def estimating() -> Iterator[Estimate]:
    """Within the block, LLM batches are estimated instead of sent (see the module)."""
    collected = Estimate()
    token = _ACTIVE.set(collected)
    try:
        yield collected
    finally:
        _ACTIVE.reset(token)
