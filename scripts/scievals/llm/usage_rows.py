"""The result-table rows of an LLM job's usage (tokens, cost, cache hits, failed requests,
latency) and which of them are bookkeeping rather than results. Apart from
:mod:`scievals.llm.usage` (pydantic), so code that only needs the metric names stays light."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scievals.llm.usage import UsageSummary

# Table metric -> usage field: the rows every LLM model gets per condition, with n = requests.
# failed_requests makes a partial outage visible in the tables (the failed cases also score
# as failures); the next run retries them.
USAGE_METRICS = {
    "tokens_in": "tokens_in",
    "tokens_out": "tokens_out",
    "cost_usd": "cost_usd",
    "cache_hits": "cache_hits",
    "failed_requests": "errors",
    # Mean seconds per answered request (a cache hit keeps its recorded latency, so a re-run
    # from cache gives the same value); bookkeeping, like cache_hits, not a result.
    "latency_mean_s": "latency.mean_s",
}

# Rows only for a model that used them (a reasoning model, a provider's prompt cache), so the
# tables of every other model keep their rows. Reasoning tokens are part of tokens_out and
# of the cost; cached and cache-written input tokens are parts of tokens_in, priced at their
# own rates (docs/llm.md).
USAGE_METRICS_IF_ANY = {
    "reasoning_tokens": "reasoning_tokens",
    "cached_tokens_in": "cached_in",
    "cache_write_tokens_in": "cache_write_in",
}


# Rows that say how this run got its replies, not what the replies were: a re-run served
# from the cache changes them and nothing else, so they are no result (``compare`` lists them
# apart and never fails on them; the history records no entry for them alone). Latency is
# the provider's speed on the day, not the model's answers: bookkeeping as well.
# The provider's prompt cache likewise: whether a prefix was still cached is the day's state.
BOOKKEEPING_METRICS = frozenset({"cache_hits", "latency_mean_s", "cached_tokens_in",
                                 "cache_write_tokens_in", "batch_answers", "batch_failures"})

# Rows of a job that used the batch route (scievals.llm.batch), and only of such a job: how
# many answers came through a batch (at the batch price), and how often a batch reported a
# request failed or expired (sent again; failed_requests counts those that stayed failed).
BATCH_METRICS = {"batch_answers": "batch_answers", "batch_failures": "batch_failures"}


def usage_metric_rows(summary: UsageSummary | dict) -> list[dict]:
    """Rows for :func:`scievals.common.tables.result_rows` (cost is NaN when unpriced);
    ``summary`` may be a ``usage.json`` object as read back (checked by the model)."""
    # pydantic only here: a score job of a baseline (no usage) and the summary, which reads
    # BOOKKEEPING_METRICS, skip it
    from scievals.llm.usage import UsageSummary

    if isinstance(summary, dict):
        summary = UsageSummary.model_validate(summary)
    n = summary.requests
    metrics = dict(USAGE_METRICS)
    if summary.batch_answers or summary.batch_failures:
        metrics.update(BATCH_METRICS)
    rows = [{"metric": metric, "value": _field(summary, field), "n": n}
            for metric, field in metrics.items()]
    return rows + [{"metric": metric, "value": value, "n": n}
                   for metric, field in USAGE_METRICS_IF_ANY.items()
                   if (value := _field(summary, field))]


def _field(summary: UsageSummary, dotted: str):
    value = summary
    for part in dotted.split("."):
        value = getattr(value, part)
    return value
