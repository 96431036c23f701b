"""Token, cost, latency and cache accounting for one prediction job.

Totals (``tokens_in``, ``tokens_out``, ``cost_usd``) cover every response of the
batch, whether it came from the cache or the provider, so they describe the
predictions and do not change when a run is repeated from cache. The ``new_*``
fields count only what this run actually asked the provider for (what it paid).
Latency statistics use each successful response's recorded latency (a cache hit
keeps the latency it had when it was fetched); ``wall_s`` is this run's time.
"""

from __future__ import annotations

import os
import statistics

from pydantic import BaseModel, Field

from scievals.common.io import write_json
from scievals.llm.base import LLMResponse, ModelSpec


class LatencyStats(BaseModel):
    mean_s: float | None = None
    p50_s: float | None = None
    p95_s: float | None = None
    wall_s: float = 0.0


class UsageSummary(BaseModel):
    model: str = ""
    provider: str = ""
    model_id: str | None = None
    requests: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    errors: int = 0
    retries: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    # parts of tokens_out / tokens_in (scievals.llm.base.Usage)
    reasoning_tokens: int = 0
    cached_in: int = 0
    cache_write_in: int = 0
    cost_usd: float | None = None
    new_tokens_in: int = 0
    new_tokens_out: int = 0
    new_cost_usd: float | None = None
    price_in_per_mtok: float | None = None
    price_out_per_mtok: float | None = None
    price_cached_in_per_mtok: float | None = None
    price_cache_write_per_mtok: float | None = None
    latency: LatencyStats = Field(default_factory=LatencyStats)
    # Distinct model ids and system fingerprints the provider returned (the run record's).
    response_models: list[str] = Field(default_factory=list)
    system_fingerprints: list[str] = Field(default_factory=list)
    # The batch route (scievals.llm.batch): answers that came through it (priced at the model's
    # batch_price_factor, cost_usd included), and how often this run's batches reported a
    # request failed or expired (each then sent again, or counted in errors).
    batch_answers: int = 0
    batch_failures: int = 0


def cost_usd(spec: ModelSpec, tokens_in: int, tokens_out: int, cached_in: int = 0,
             cache_write_in: int = 0) -> float | None:
    """USD from the registry's prices per million tokens; None when the model is unpriced.

    ``cached_in`` and ``cache_write_in`` are parts of ``tokens_in`` priced at the cached
    rates (each the input price when unset); reasoning tokens are part of ``tokens_out``."""
    price_in, price_out = spec.price_in_per_mtok, spec.price_out_per_mtok
    if price_in is None or price_out is None:
        return None
    cached = price_in if spec.price_cached_in_per_mtok is None else spec.price_cached_in_per_mtok
    write = (price_in if spec.price_cache_write_per_mtok is None
             else spec.price_cache_write_per_mtok)
    plain = tokens_in - cached_in - cache_write_in
    return (plain * price_in + cached_in * cached + cache_write_in * write
            + tokens_out * price_out) / 1e6


def response_cost(spec: ModelSpec, response: LLMResponse) -> float | None:
    """USD of one answered response (None: unpriced), a batch answer at
    ``batch_price_factor``."""
    usage = response.usage
    cost = cost_usd(spec, usage.tokens_in, usage.tokens_out, usage.cached_in,
                    usage.cache_write_in)
    if cost is None or response.route == "realtime":
        return cost
    return cost * spec.batch_price_factor


def responses_cost(spec: ModelSpec, responses: list[LLMResponse]) -> float | None:
    """USD of ``responses`` (answered ones), each at its route's price (None: unpriced)."""
    if spec.price_in_per_mtok is None or spec.price_out_per_mtok is None:
        return None
    return sum(response_cost(spec, r) for r in responses)


def _percentile(values: list[float], q: int) -> float:
    """numpy's default (linear) percentile, without importing numpy for two numbers."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def usage_line(usage: UsageSummary) -> str:
    """One batch's or suite's accounting in a line: replies, failures, retries, tokens, cost."""
    new = usage.cache_misses - usage.errors
    cost = "" if usage.cost_usd is None else f", ${usage.cost_usd:.4f}"
    return (f"{usage.requests} replies ({usage.cache_hits} cached, {new} new), "
            f"{usage.errors} failed, {usage.retries} retries; "
            f"tokens {usage.tokens_in} in, {usage.tokens_out} out{cost}")


def summarize_usage(
    spec: ModelSpec,
    responses: list[LLMResponse],
    wall_s: float = 0.0,
) -> UsageSummary:
    """Account for ``responses`` (callers may concatenate several batches of one model)."""
    ok = [r for r in responses if r.error is None]
    fresh = [r for r in ok if not r.cache_hit]
    tokens = {name: sum(getattr(r.usage, name) for r in ok)
              for name in ("tokens_in", "tokens_out", "reasoning_tokens", "cached_in",
                           "cache_write_in")}
    new = {name: sum(getattr(r.usage, name) for r in fresh)
           for name in ("tokens_in", "tokens_out")}
    latencies = [float(r.latency_s) for r in ok]
    if latencies:
        latency = LatencyStats(
            mean_s=statistics.fmean(latencies), p50_s=_percentile(latencies, 50),
            p95_s=_percentile(latencies, 95), wall_s=wall_s
        )
    else:
        latency = LatencyStats(wall_s=wall_s)
    hits = sum(1 for r in responses if r.cache_hit)
    return UsageSummary(
        model=spec.name,
        provider=spec.provider,
        model_id=spec.model,
        requests=len(responses),
        cache_hits=hits,
        cache_misses=len(responses) - hits,
        errors=len(responses) - len(ok),
        retries=sum(max(r.attempts - 1, 0) for r in responses if not r.cache_hit),
        **tokens,
        cost_usd=responses_cost(spec, ok),
        new_tokens_in=new["tokens_in"],
        new_tokens_out=new["tokens_out"],
        new_cost_usd=responses_cost(spec, fresh),
        price_in_per_mtok=spec.price_in_per_mtok,
        price_out_per_mtok=spec.price_out_per_mtok,
        price_cached_in_per_mtok=spec.price_cached_in_per_mtok,
        price_cache_write_per_mtok=spec.price_cache_write_per_mtok,
        latency=latency,
        response_models=sorted({r.response_model for r in ok if r.response_model}),
        system_fingerprints=sorted({r.system_fingerprint for r in ok if r.system_fingerprint}),
        batch_answers=sum(1 for r in ok if r.route == "batch"),
        batch_failures=sum(r.batch_failures for r in responses),
    )


def write_usage(path: str | os.PathLike, summary: UsageSummary) -> None:
    """``usage.json`` beside the predictions (atomic)."""
    write_json(path, summary.model_dump(mode="json"))
