"""Send a job's uncached requests through the provider's batch API (either provider).

1. Pick up: open batches in the ledger that hold requests of this job (a run killed while
   it waited) are waited for again, not submitted again.
2. Submit the rest, split by ``llm.batch.max_requests`` / ``max_bytes``; each batch's id and
   its ``custom_id`` -> cache key map go to the ledger before the first poll. The custom_id
   is the request's cache key (64 hex digits: both providers' limit and alphabet).
3. Poll every batch until it ends (``poll_interval_s``, times ``poll_backoff`` up to
   ``max_poll_interval_s``), a progress line each poll; past ``deadline_s`` the job stops
   with one line saying how to resume, the batch ids kept.
4. Store each answer in the cache under the key a realtime answer has (its ``route`` is
   ``batch``), then drop the batch from the ledger.
5. Requests the batch reports failed or expired go again: in a new batch until they have
   been through ``max_rounds`` batches (then they are failed requests, as in realtime), or
   realtime with ``retry_realtime``. How many is said at the end of the run.

As realtime: a request the provider refuses with a 400 naming a sampling parameter (a
reasoning model, scievals.llm.reasoning) or, under ``structured_output: auto``, the
structured-output parameter goes again in the next batch without it, as do the model's later
requests; the replies say so (``dropped_params``, ``structured_output: refused``), so the run
ends with the realtime notices. With ``llm.max_cost_usd`` each request reserves its upper
bound at ``batch_price_factor`` before its batch is submitted, only those that fit are
submitted, and each batch settles at what its answers cost (scievals.llm.spend). A batch
picked up from an earlier run was submitted already: it is not reserved again, only settled.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from scievals.common import notices
from scievals.common.errors import ScievalsError
from scievals.llm import reasoning, spend, structured
from scievals.llm.base import LLMResponse, RequestRejected, TransientError
from scievals.llm.batch.anthropic_batch import AnthropicBatchRoute
from scievals.llm.batch.ledger import BatchEntry, Ledger
from scievals.llm.batch.openai_batch import OpenAIBatchRoute
from scievals.llm.batch.routes import BatchRoute, request_body
from scievals.llm.retry import call_with_retries
from scievals.llm.usage import response_cost

log = logging.getLogger("scievals.llm")


@dataclass
class Sent:
    """How a request went in its latest batch (what a refusal is read against)."""

    kwargs: dict
    dropped: list[str]  # sampling parameters left out (the server refused them before)
    schema: bool  # the JSON schema went with it


async def send_batched(batch: Any, api: Any) -> None:
    """Answer ``batch.pending`` (the runner's ``_Batch``) through ``api``'s batch route."""
    await Driver(batch, api).run()


def route_for(api: Any) -> BatchRoute:
    """The batch route of a realtime provider object (it keeps its client and parser)."""
    return (OpenAIBatchRoute if api.spec.provider == "openai" else AnthropicBatchRoute)(api)


class Driver:
    def __init__(self, batch: Any, api: Any) -> None:
        self.batch = batch
        self.api = api
        self.spec = batch.spec
        self.llm = batch.settings
        self.settings = batch.settings.batch
        self.route = route_for(api)
        self.ledger = Ledger(batch.settings.cache_dir, self.spec)
        self.jobs = {job.key: job for job in batch.pending}
        self.rounds = dict.fromkeys(self.jobs, 0)  # batches each request went through
        self.failures = dict.fromkeys(self.jobs, 0)  # times a batch reported it failed
        self.mine: dict[str, dict[str, str]] = {}  # batch id -> this job's custom_id -> key
        self.ceiling: spend.Ledger | None = batch.ledger  # llm.max_cost_usd, when set
        self.reserved: dict[str, float] = {}  # key -> USD reserved for it in the ceiling
        self.sent: dict[str, Sent] = {}  # key -> how its latest batch carried it
        self.started = time.monotonic()

    # --- submitting -------------------------------------------------------------------------
    def body(self, job: Any) -> dict:
        """The request as this client's next realtime attempt sends it (same cache key):
        without what the server refused before."""
        sent = self.sent[job.key] = self.as_built(job, self.api.refused_sampling,
                                                  self.api.structured_refused)
        return request_body(self.api, sent.kwargs)

    def as_built(self, job: Any, refused_sampling, structured_refused: str | None) -> Sent:
        """The request as a client that learned these refusals sends it."""
        kwargs = self.api.request_kwargs(job.request, job.params)
        schema = structured.sends(self.spec, job.request) and structured_refused is None
        if schema:
            kwargs = self.api.with_schema(kwargs, job.request.json_schema)
        dropped = [name for name in reasoning.sent_sampling(kwargs) if name in refused_sampling]
        return Sent(reasoning.without(kwargs, dropped), dropped, schema)

    def affordable(self, keys: list[str]) -> list[str]:
        """``keys`` whose upper-bound cost at the batch price the ceiling lets through
        (reserved now); after the first refusal none is (the ledger stops the job)."""
        if self.ceiling is None:
            return keys
        usds = [spend.request_estimate(self.spec, self.jobs[key].request,
                                       self.jobs[key].params) * self.spec.batch_price_factor
                for key in keys]
        kept = keys[:self.ceiling.reserve_first(*usds)]  # one lock for the whole submission
        self.reserved.update(zip(kept, usds))
        return kept

    def release(self) -> None:
        """Drop what is still reserved (a stop before the results): a later run that picks
        the batches up settles what they cost."""
        if self.ceiling is not None and self.reserved:
            self.ceiling.settle(sum(self.reserved.values()), 0.0, requests=0)
            self.reserved.clear()

    def chunks(self, keys: list[str]) -> list[list[tuple[str, bytes]]]:
        """``keys``' request lines in batches within the size limits, in order."""
        max_requests, max_bytes = self.settings.limits(self.spec.provider)
        chunks: list[list[tuple[str, bytes]]] = []
        size = 0
        for key in keys:
            line = self.route.line(key, self.body(self.jobs[key]))
            if len(line) > max_bytes:
                job = self.jobs[key]
                raise ScievalsError(
                    f"model {self.spec.name!r}, case {job.request.case_id}",
                    f"one request is {len(line)} bytes, above llm.batch.max_bytes ({max_bytes})",
                    "raise llm.batch.max_bytes (the provider's limit is the default) or run "
                    "this model without batch")
            if not chunks or len(chunks[-1]) >= max_requests or size + len(line) > max_bytes:
                chunks.append([])
                size = 0
            chunks[-1].append((key, line))
            size += len(line)
        return chunks

    async def submit(self, keys: list[str]) -> list[BatchEntry]:
        entries = []
        for chunk in self.chunks(self.affordable(keys)):
            lines = [line for _, line in chunk]
            batch_id = await self.call(lambda lines=lines: self.route.create(lines),
                                       "submitting a batch")
            custom_ids = {key: key for key, _ in chunk}  # custom_id = cache key
            # on disk before the first poll: a killed run picks this batch up again
            entry = self.ledger.add(batch_id, custom_ids, self.batch.label,
                                    sorted(self.api.refused_sampling),
                                    self.api.structured_refused)
            self.mine[batch_id] = custom_ids
            for key in custom_ids:
                self.rounds[key] += 1
            log.info("%s: batch %s submitted: %d requests, %d bytes", self.batch.label,
                     batch_id, len(chunk), sum(len(line) for line in lines))
            entries.append(entry)
        return entries

    def picked_up(self) -> list[BatchEntry]:
        """Open batches of the ledger that hold requests of this job (for a request in
        several, the newest)."""
        owner: dict[str, BatchEntry] = {}
        for entry in self.ledger.open_batches():  # oldest first: newer ones win
            keys = set(entry.custom_ids.values())
            for key in keys & self.jobs.keys():
                owner[key] = entry
            if not keys & self.jobs.keys() and self.answered(keys):
                self.ledger.remove(entry)  # a run killed after caching its answers left it
        entries: dict[str, BatchEntry] = {}
        for key, entry in owner.items():
            entries[entry.batch_id] = entry
            self.mine.setdefault(entry.batch_id, {})[key] = key
            self.rounds[key] = 1
            # as the earlier run sent it, and what it had learned holds for this run too
            self.sent[key] = self.as_built(self.jobs[key], set(entry.refused_sampling),
                                           entry.structured_refused)
            self.api.refused_sampling |= set(entry.refused_sampling)
            if self.api.structured_refused is None:
                self.api.structured_refused = entry.structured_refused
        if entries:
            log.info("%s: picking up %d open batch(es) of an earlier run for %d requests: %s",
                     self.batch.label, len(entries), len(owner), ", ".join(entries))
        return list(entries.values())

    def answered(self, keys: set[str]) -> bool:
        """Whether every one of ``keys`` has its answer in the cache."""
        return all(self.batch.cache.path(self.spec, key).exists() for key in keys)

    # --- waiting ----------------------------------------------------------------------------
    async def call(self, make: Callable[[], Awaitable[Any]], doing: str) -> Any:
        """One batch-API call with the realtime retry budget; a call that keeps failing stops
        the job in one line (the batches stay on file for the next run)."""
        try:
            result, _ = await call_with_retries(make, self.llm.max_attempts,
                                                self.llm.max_wait_s,
                                                label=f"{self.spec.name} {doing}")
        except TransientError as exc:
            raise ScievalsError(f"model {self.spec.name!r}", f"{doing} failed after its "
                                f"retries ({exc})", self.resume_hint()) from None
        return result

    def resume_hint(self) -> str:
        return ("re-run the same command to resume: the open batches' ids are kept in "
                f"{self.ledger.folder}, so they are picked up and not paid for again")

    async def wait(self, entries: list[BatchEntry]) -> None:
        waiting = {entry.batch_id for entry in entries}
        states = {}
        interval = self.settings.poll_interval_s
        while True:
            for batch_id in sorted(waiting):
                state = await self.call(lambda b=batch_id: self.route.state(b),
                                        f"polling batch {batch_id}")
                states[batch_id] = state
                if state.ended:
                    waiting.discard(batch_id)
            elapsed = time.monotonic() - self.started
            log.info("%s: batches: %d submitted, %d completed, %d failed; %d of %d ended, "
                     "%.0f s elapsed", self.batch.label,
                     sum(s.total for s in states.values()),
                     sum(s.completed for s in states.values()),
                     sum(s.failed for s in states.values()),
                     len(states) - len(waiting), len(states), elapsed)
            if not waiting:
                return
            remaining = self.settings.deadline_s - elapsed
            if remaining <= 0:
                raise ScievalsError(
                    f"model {self.spec.name!r}",
                    f"{len(waiting)} batch(es) not ended after llm.batch.deadline_s="
                    f"{self.settings.deadline_s:g} s ({', '.join(sorted(waiting))})",
                    self.resume_hint())
            await asyncio.sleep(min(interval, remaining))
            interval = min(interval * self.settings.poll_backoff,
                           self.settings.max_poll_interval_s)

    # --- collecting -------------------------------------------------------------------------
    async def collect(self, entry: BatchEntry, refused: list[str]) -> dict[str, str]:
        """Cache and hand over the batch's answers; the failed requests' keys -> why. Keys
        refused for a parameter that the next batch leaves out go to ``refused``."""
        results = await self.call(lambda: self.route.results(entry.batch_id),
                                  f"reading the results of batch {entry.batch_id}")
        latency = max(time.time() - entry.created_unix, 0.0)  # submission to results
        failed = {}
        released = spent = 0.0
        answered = 0
        for custom_id, key in self.mine.get(entry.batch_id, {}).items():
            released += self.reserved.pop(key, 0.0)
            reply = results.replies.get(custom_id)
            if reply is None:
                if self.parameter_refused(key, results.errors.get(custom_id, ""),
                                          results.refusals.get(custom_id)):
                    refused.append(key)
                else:
                    failed[key] = results.errors.get(custom_id, results.missing)
                continue
            reply = reply.model_copy(update={"route": "batch", **self.as_sent(key)})
            spent += response_cost(self.spec, reply) or 0.0
            answered += 1
            await self.store(key, reply, latency)
        if self.ceiling is not None:  # after the answers are cached: a kill never counts twice
            self.ceiling.settle(released, spent, requests=answered)
        self.ledger.remove(entry)  # its answers are cached; the failed ones go again below
        return failed

    def as_sent(self, key: str) -> dict:
        """The reply fields saying how its request went (the runner's notices read them)."""
        fields: dict = {"structured_output": (
            "sent" if structured.sends(self.spec, self.jobs[key].request) else None)}
        sent = self.sent[key]
        if fields["structured_output"] and not sent.schema:
            fields["structured_output"] = "refused"
        if sent.dropped:
            fields["dropped_params"] = list(sent.dropped)
        return fields

    def parameter_refused(self, key: str, message: str,
                          refusal: tuple[int, str | None] | None) -> bool:
        """Whether the batch refused ``key`` for a sampling parameter or (``auto``) the
        schema; if so the model's next requests go without it, as realtime ones do."""
        sent = self.sent[key]
        if refusal is None or refusal[0] != 400:
            return False
        exc = RequestRejected(message, status=400, param=refusal[1])
        names = reasoning.refused_parameters(exc, sent.kwargs)
        if names:
            if not set(names) <= self.api.refused_sampling:
                log.warning("%s: the batch refused %s (%s); its requests go again without",
                            self.spec.name, ", ".join(names), message)
                self.api.refused_sampling |= set(names)
            return True
        if (sent.schema and self.spec.structured_output == "auto"
                and structured.rejects_parameter(exc)):
            if self.api.structured_refused is None:
                log.warning("%s: the batch rejected structured output (%s); its requests go "
                            "again without it", self.spec.name, message)
                self.api.structured_refused = message
            return True
        return False

    async def store(self, key: str, reply: Any, latency: float) -> None:
        job = self.jobs[key]
        try:
            reply, latency = await asyncio.to_thread(self.batch.cache.put, self.spec, key,
                                                     job.material, reply, latency)
        except OSError as exc:
            self.batch.cache_write_failed(exc)
        self.batch.settle(job.index, reply.response(
            job.request, latency, cache_key=key, attempts=self.rounds[key],
            batch_failures=self.failures[key]))

    def give_up(self, key: str, reason: str) -> None:
        job = self.jobs[key]
        self.batch.settle(job.index, LLMResponse(
            case_id=job.request.case_id, sample_index=job.request.sample_index, cache_key=key,
            error=f"batch: {reason}", attempts=self.rounds[key], route="batch",
            batch_failures=self.failures[key]))

    # --- the whole job ----------------------------------------------------------------------
    async def run(self) -> None:
        try:
            await self.rounds_until_done()
        finally:
            self.release()

    async def rounds_until_done(self) -> None:
        active = self.picked_up()
        claimed = {key for keys in self.mine.values() for key in keys}
        active += await self.submit([key for key in self.jobs if key not in claimed])
        resent: list[str] = []
        realtime: list[str] = []
        given_up: dict[str, str] = {}
        while active:
            await self.wait(active)
            failed: dict[str, str] = {}
            refused: list[str] = []  # go again without the refused parameter, whatever the round
            for entry in active:
                failed.update(await self.collect(entry, refused))
            for key in failed:
                self.failures[key] += 1
            if self.settings.retry_realtime:
                realtime += list(failed)
                again = []
            else:
                again = [key for key in failed if self.rounds[key] < self.settings.max_rounds]
                for key in failed.keys() - set(again):
                    given_up[key] = failed[key]
                    self.give_up(key, failed[key])
            resent += again
            again += refused
            active = await self.submit(again) if again else []
        if realtime:
            await self.batch.send_realtime(self.api, [self.jobs[key] for key in realtime])
        self.notice(len(resent), len(realtime), given_up)

    def notice(self, resent: int, realtime: int, given_up: dict[str, str]) -> None:
        """Said at the end of the run: requests a batch failed (the failed_requests row and
        the runner's own notice count those that stayed failed)."""
        reported = sum(1 for n in self.failures.values() if n)
        if not reported:
            return
        again = (f"{realtime} sent again realtime (full price)" if realtime
                 else f"{resent} sent again in a new batch")
        message = (f"{self.spec.name}: the batch API reported {reported} request(s) failed or "
                   f"expired ({self.batch.label}); {again}")
        if given_up:
            message += (f"; {len(given_up)} still failed after {self.settings.max_rounds} "
                        f"batch(es) and count as failed requests (first: "
                        f"{next(iter(given_up.values()))})")
        notices.record("batch_retried", self.batch.scope.split("/")[0], message,
                       details={"model": self.spec.name, "label": self.batch.label,
                                "reported_failed": reported, "resent_batch": resent,
                                "resent_realtime": realtime, "given_up": len(given_up)})
