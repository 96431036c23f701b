"""Run a batch of prompts against one model: cache, retries, concurrency, accounting.

``run_batch`` expands every request into ``spec.n_samples`` samples (sample_index
0..n-1, request-major order), answers what it can from the cache, sends the rest
concurrently (at most ``spec.max_connections`` in flight), stores each reply the
moment it arrives, and returns one :class:`LLMResponse` per sample in input
order. A request that keeps failing after its retries comes back with ``error``
set and the batch goes on; a rejected request (bad key, 400, unknown model)
stops the batch with a :class:`ScievalsError`. Replies already stored stay
stored either way, so a re-run asks only for what is missing; failures are
never stored.

``timeout_s`` of a model is a deadline for each whole attempt (connect, headers and the
complete body), not only for each read: a server trickling a body byte by byte fails the
attempt when it passes. A cache that cannot be written (read-only folder, full disk)
costs only the cache: one warning, a run notice, and the replies still reach the caller.

A total outage must not look like a bad model: when every request of a batch
failed, or more than ``llm.max_failure_rate`` of them, the batch raises a
:class:`ScievalsError` naming the model and the first error. Fewer failures
are returned (they score as failed cases) and recorded as a run notice.

A model with ``batch: true`` (or a run with ``llm.batch.every_model``) sends what missed the
cache through its provider's batch API instead (:mod:`scievals.llm.batch`); everything else,
the cache key included, is the same.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from scievals.common import notices
from scievals.common.errors import ScievalsError
from scievals.common.io import canonical_json, read_jsonl, sha256_text, write_text
from scievals.llm import estimate, spend
from scievals.llm.base import (
    GenerateParams,
    LLMRequest,
    LLMResponse,
    ModelSpec,
    ProviderReply,
    RequestRejected,
    TransientError,
)
from scievals.llm.batch import uses_batch
from scievals.llm.cache import ResponseCache, cache_key, key_material
from scievals.llm.parsing import is_truncated
from scievals.llm.progress import Progress
from scievals.llm.providers import create_api, provider_class
from scievals.llm.providers._sdk_errors import redact, server_text
from scievals.llm.registry import api_key, key_env
from scievals.llm.retry import call_with_retries
from scievals.llm.settings import LLMSettings
from scievals.llm.usage import UsageSummary, response_cost, summarize_usage, usage_line

log = logging.getLogger("scievals.llm")


class BatchResult(BaseModel):
    responses: list[LLMResponse]
    usage: UsageSummary


def expand_samples(spec: ModelSpec, requests: list[LLMRequest]) -> list[LLMRequest]:
    """Each request ``spec.n_samples`` times with sample_index 0..n-1 (request-major).

    With ``n_samples == 1`` requests pass unchanged, so callers that expand
    themselves keep their own sample indices.
    """
    if spec.n_samples == 1:
        return list(requests)
    expanded = []
    for request in requests:
        if request.sample_index != 0:
            raise ValueError(
                f"case {request.case_id!r} has sample_index {request.sample_index}, but "
                f"model {spec.name!r} has n_samples={spec.n_samples}: run_batch expands "
                "samples itself; pass requests with sample_index 0"
            )
        expanded += [request.model_copy(update={"sample_index": k}) for k in range(spec.n_samples)]
    return expanded


def sample_params(spec: ModelSpec, sample_index: int) -> GenerateParams:
    """Sampling parameters of one sample: with a seed, sample k sends seed + k, so repeats
    differ from each other yet are reproducible."""
    params = spec.params
    if params.seed is not None and sample_index:
        return params.model_copy(update={"seed": params.seed + sample_index})
    return params


def _where(spec: ModelSpec) -> str:
    return (
        f"model {spec.name!r} ({spec.provider}"
        + (f" at {spec.shown_url}" if spec.base_url else "")
        + ")"
    )


def _rejected(spec: ModelSpec, exc: RequestRejected, secret: str | None) -> ScievalsError:
    where = _where(spec)
    message = server_text(redact(str(exc), secret))
    var = key_env(spec)
    if exc.status in (401, 403):
        fix = (
            f"set a valid API key in the environment variable {var}"
            if var
            else f"the server wants a key: set models.{spec.name}.api_key_env to the variable holding it"
        )
        return ScievalsError(where, f"credentials refused ({message})", fix)
    if exc.status == 404:
        return ScievalsError(
            where,
            f"not found ({message})",
            f"check models.{spec.name}.model ({spec.model!r}) and base_url",
        )
    if exc.schema_sent:  # the server may not take the benchmark's JSON schema
        return ScievalsError(
            where, f"request with a JSON schema rejected ({message})",
            f'set models.{spec.name}.structured_output: "off" if the server does not take '
            f"one (docs/llm.md); else check models.{spec.name}.model and params")
    return ScievalsError(
        where, f"request rejected ({message})", f"check models.{spec.name}.model and params"
    )


@dataclass
class _Job:
    index: int
    request: LLMRequest
    params: GenerateParams
    material: dict
    key: str


def _response(request: LLMRequest, key: str, **fields) -> LLMResponse:
    return LLMResponse(
        case_id=request.case_id, sample_index=request.sample_index, cache_key=key, **fields
    )


class _Batch:
    """State of one batch: the responses so far and who shares whose reply."""

    def __init__(
        self,
        spec: ModelSpec,
        samples: list[LLMRequest],
        settings: LLMSettings,
        scope: str,
        label: str,
    ) -> None:
        self.spec = spec
        self.samples = samples
        self.settings = settings
        self.cache = ResponseCache.for_mode(settings.cache_dir, settings.cache_mode)
        self.responses: list[LLMResponse | None] = [None] * len(samples)
        self.followers: dict[int, list[int]] = defaultdict(list)  # identical requests: asked once
        self.pending: list[_Job] = []
        self.label = label
        self.scope = scope
        self.realtime = False  # True: never through a batch API (the caller waits on each)
        self.secret: str | None = None
        self.aborted = False
        self.progress: Progress | None = None
        self.cache_failures: list[str] = []  # replies answered but not cached (OSError)
        self.ledger: spend.Ledger | None = None  # the cost ceiling's, when one is set
        cls = provider_class(spec)  # ScievalsError for baselines
        leaders: dict[str, int] = {}
        for i, request in enumerate(samples):
            params = sample_params(spec, request.sample_index)
            material = key_material(spec, request, params, scope, cls.cache_extra(spec, request))
            key = cache_key(material)
            if key in leaders:
                self.followers[leaders[key]].append(i)
                continue
            leaders[key] = i
            hit = self.cache.get(spec, key, request)
            if hit is None:
                self.pending.append(_Job(i, request, params, material, key))
            else:
                self.settle(i, hit.model_copy(update={"cache_key": key}))

    def settle(self, index: int, response: LLMResponse) -> None:
        """Store a response and hand the same reply to identical requests."""
        self.responses[index] = response
        shared = {"cache_hit": True, "attempts": 0} if response.error is None else {"attempts": 0}
        for j in self.followers.get(index, []):
            self.responses[j] = response.model_copy(
                update={
                    "case_id": self.samples[j].case_id,
                    "sample_index": self.samples[j].sample_index,
                    **shared,
                }
            )
        if self.progress is not None:
            self.progress.update(1 + len(self.followers.get(index, [])))

    async def send_all(self) -> None:
        self.secret = api_key(self.spec)
        self.ledger = spend.ledger_for(self.spec, self.settings.max_cost_usd,
                                       self.settings.spend_ledger)
        api = create_api(self.spec, self.secret)
        try:
            if not self.realtime and uses_batch(self.spec, self.settings):  # batch API
                from scievals.llm.batch.driver import send_batched

                try:
                    await send_batched(self, api)
                except RequestRejected as exc:
                    raise _rejected(self.spec, exc, self.secret) from None
            else:
                await self.send_realtime(api, self.pending)
        finally:
            await api.aclose()
        if self.ledger is not None and self.ledger.refused:
            raise self.ledger.stop_error(self.spec)  # what arrived is cached already

    async def send_realtime(self, api, jobs: list[_Job]) -> None:
        gate = asyncio.Semaphore(self.spec.max_connections)
        try:
            async with asyncio.TaskGroup() as group:
                for job in jobs:
                    group.create_task(self.send(api, gate, job))
        except BaseExceptionGroup as failures:
            rejected = [e for e in failures.exceptions if isinstance(e, RequestRejected)]
            if rejected:
                raise _rejected(self.spec, rejected[0], self.secret) from None
            raise failures.exceptions[0] from failures

    def cache_write_failed(self, exc: OSError) -> None:
        """Keep the reply; the failures are said once, at the end of the batch."""
        reason = os.strerror(exc.errno) if exc.errno else type(exc).__name__
        self.cache_failures.append(f"{reason}: {exc.filename or self.settings.cache_dir}")

    def notice_cache_failures(self, scope: str) -> None:
        """One warning (and run notice) for every reply that could not be cached."""
        if not self.cache_failures:
            return
        message = (
            f"{self.spec.name}: {len(self.cache_failures)} answered request(s) could not be "
            f"stored in the LLM cache ({self.cache_failures[0]}); the predictions have them, "
            "a re-run asks for them again (make llm.cache_dir writable or free space)"
        )
        try:
            notices.record("cache_not_written", scope.split("/")[0], message,
                           details={"model": self.spec.name, "label": self.label,
                                    "not_cached": len(self.cache_failures)})
        except OSError:
            pass  # the notice folder is on the same full disk: the warning is logged already

    async def send(self, api, gate: asyncio.Semaphore, job: _Job) -> None:
        latency = 0.0

        async def attempt() -> ProviderReply:
            nonlocal latency
            t0 = time.perf_counter()
            try:
                # The SDKs' timeout bounds each read, so a trickling body never ends it.
                async with asyncio.timeout(self.spec.timeout_s):
                    reply = await api.generate(job.request, job.params)
            except TimeoutError:
                raise TransientError(
                    f"no complete reply within timeout_s={self.spec.timeout_s:g} s"
                ) from None
            latency = time.perf_counter() - t0
            return reply

        where = f"{self.spec.name} {job.request.case_id}#{job.request.sample_index}"
        async with gate:
            if self.aborted:  # another request was rejected: send nothing more
                return
            reserved = 0.0
            if self.ledger is not None:  # the cost ceiling (scievals.llm.spend)
                reserved = spend.request_estimate(self.spec, job.request, job.params)
                if not self.ledger.reserve(reserved):
                    return
            try:
                reply, attempts = await call_with_retries(
                    attempt, self.settings.max_attempts, self.settings.max_wait_s, label=where
                )
            except RequestRejected:
                self.aborted = True  # set before the gate opens for the next request
                if self.ledger is not None:
                    self.ledger.settle(reserved, 0.0)
                raise
            except TransientError as exc:
                if self.ledger is not None:
                    self.ledger.settle(reserved, 0.0)
                error = server_text(redact(str(exc), self.secret))
                attempts = getattr(exc, "attempts", self.settings.max_attempts)
                log.warning("%s failed after %d attempts: %s", where, attempts, error)
                self.settle(
                    job.index, _response(job.request, job.key, error=error, attempts=attempts)
                )
                return
            if self.ledger is not None:
                self.ledger.settle(reserved, response_cost(self.spec, reply))
        # Stored before anything else happens, so a kill from here on loses nothing.
        # In a worker thread: file system calls release the GIL, the event loop goes on.
        # Another run may have stored this request first: its reply is the one kept.
        try:
            reply, latency = await asyncio.to_thread(
                self.cache.put, self.spec, job.key, job.material, reply, latency
            )
        except OSError as exc:
            self.cache_write_failed(exc)
        self.settle(job.index, reply.response(job.request, latency, cache_key=job.key,
                                              attempts=attempts))


async def run_batch_async(
    spec: ModelSpec,
    requests: list[LLMRequest],
    settings: LLMSettings,
    scope: str,
    records_path: Path | None = None,
    label: str = "",
    announce: bool = True,
    realtime: bool = False,
) -> BatchResult:
    """The coroutine behind :func:`run_batch` (for callers already inside an event loop)."""
    if not scope:
        raise ValueError(
            "scope must name the benchmark and prompt version, e.g. 'gating/prompt-v1'"
        )
    label = label or f"{spec.name} [{scope}]"
    started = time.perf_counter()
    samples = expand_samples(spec, requests)
    batch = _Batch(spec, samples, settings, scope, label)
    batch.realtime = realtime
    collector = estimate.active()
    if collector is not None:  # an estimate (scievals.llm.estimate): nothing sent or written
        final = collector.answer(spec, batch, label)
        return BatchResult(responses=final, usage=summarize_usage(spec, final))
    done = sum(r is not None for r in batch.responses)
    log.info(
        "%s: %d responses, %d from cache, %d to request (cache %s at %s)",
        label,
        len(samples),
        done,
        len(batch.pending),
        settings.cache_mode,
        settings.cache_dir,
    )
    batch.progress = Progress(len(samples), label, done=done, tty=None if announce else False)
    try:
        if batch.pending:
            await batch.send_all()
    finally:
        batch.progress.close()
        batch.notice_cache_failures(scope)

    final = [r for r in batch.responses if r is not None]
    assert len(final) == len(samples), "every sample gets a response"
    usage = summarize_usage(spec, final, wall_s=time.perf_counter() - started)
    # the job's log file has the whole line; the terminal a short one per announced batch
    log.info("%s: done in %.2f s: %s", label, usage.latency.wall_s, usage_line(usage),
             extra={"terminal": False})
    if announce:
        name = label if label.startswith(spec.name) else f"{spec.name} {label}"
        log.info("%s: %s", name, usage_line(usage), extra={"terminal": True})
    if records_path is not None:
        append_records(Path(records_path), spec, scope, label, samples, final)
    check_failures(spec, final, settings, scope, label)
    check_truncated(spec, final, scope, label)
    check_structured(spec, final, scope, label)
    check_dropped(spec, final, scope, label)
    return BatchResult(responses=final, usage=usage)


def check_failures(
    spec: ModelSpec, responses: list[LLMResponse], settings: LLMSettings, scope: str, label: str
) -> None:
    """Fail the batch on a (near) total outage; record a notice for fewer failures.

    The notice belongs to the prediction job (:mod:`scievals.common.notices`): its next run
    withdraws it, and :func:`scievals.common.workflow.retry_failed` makes that next run
    happen."""
    failed = [r for r in responses if r.error is not None]
    if not failed:
        return
    share = len(failed) / len(responses)
    counts = f"{len(failed)} of {len(responses)} requests failed after their retries ({label})"
    first = f"first error, case {failed[0].case_id}: {failed[0].error}"
    if len(failed) == len(responses) or share > settings.max_failure_rate:
        raise ScievalsError(
            _where(spec),
            f"{counts}; {first}",
            "check the network, the API key and the provider's status, then re-run: answered "
            f"requests come from the cache; llm.max_failure_rate ({settings.max_failure_rate:g}) "
            "is the share of failed requests tolerated",
        )
    notices.record(
        "failed_request",
        scope.split("/")[0],
        f"{spec.name}: {counts}, counted as failed cases in the tables; {first}. Failures are "
        "not cached: the next run asks for them again",
        details={"model": spec.name, "label": label, "failed": len(failed),
                 "requests": len(responses), "retry": True},
    )


def check_truncated(spec: ModelSpec, responses: list[LLMResponse], scope: str,
                    label: str) -> None:
    """A notice when replies were cut at max_tokens: what they hold is not the model's whole
    answer (a parser that repairs the cut JSON counts them as failed, llm.parsing)."""
    cut = [r for r in responses if r.error is None and is_truncated(r.stop_reason)]
    if not cut:
        return
    answered = sum(1 for r in responses if r.error is None)
    message = (f"{spec.name}: {len(cut)} of {answered} replies were truncated at max_tokens "
               f"({spec.params.max_tokens}) ({label}): raise models.{spec.name}.params."
               "max_tokens")
    notices.record("truncated_replies", scope.split("/")[0], message,
                   details={"model": spec.name, "label": label, "truncated": len(cut),
                            "replies": answered, "max_tokens": spec.params.max_tokens})


def check_structured(spec: ModelSpec, responses: list[LLMResponse], scope: str,
                     label: str) -> None:
    """A notice when the server rejected structured output and was asked again without it
    (``structured_output: auto``): those replies were not held to the schema."""
    refused = [r for r in responses if r.structured_output == "refused"]
    if not refused:
        return
    message = (f"{spec.name}: the server rejected structured output, so {len(refused)} of "
               f"{len(responses)} requests went without the JSON schema ({label}); their "
               f"replies were parsed as before. Set models.{spec.name}.structured_output: off "
               "to skip the rejected attempt (docs/llm.md)")
    notices.record("structured_output_refused", scope.split("/")[0], message,
                   details={"model": spec.name, "label": label, "refused": len(refused),
                            "requests": len(responses)})


def check_dropped(spec: ModelSpec, responses: list[LLMResponse], scope: str,
                  label: str) -> None:
    """One notice when the server refused sampling parameters (a reasoning model) and the
    requests went without them (scievals.llm.reasoning)."""
    dropped = [r for r in responses if r.dropped_params]
    if not dropped:
        return
    names = sorted({name for r in dropped for name in r.dropped_params})
    message = (f"{spec.name}: the server refused {', '.join(names)}, so {len(dropped)} of "
               f"{len(responses)} requests went without it ({label}); their replies are "
               f"cached under the request as configured. Remove it from models.{spec.name}."
               "params to send it no more (docs/llm.md#reasoning-models)")
    notices.record("sampling_refused", scope.split("/")[0], message,
                   details={"model": spec.name, "label": label, "dropped": names,
                            "requests": len(dropped)})


def run_batch(
    spec: ModelSpec,
    requests: list[LLMRequest],
    settings: LLMSettings,
    scope: str,
    records_path: Path | None = None,
    label: str = "",
    announce: bool = True,
    realtime: bool = False,
) -> BatchResult:
    """Answer ``requests`` with ``spec`` (see the module docstring). Blocks until done.
    ``announce``: a line on the terminal when the batch is done (off for the one-request
    batches of an agent's turns and a judge's verdicts: their caller sums them up).
    ``realtime``: never through the provider's batch API, whatever the model says (for
    callers that wait on each answer: an agent's next turn needs this one)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run_batch_async(spec, requests, settings, scope, records_path, label,
                                           announce, realtime))
    raise RuntimeError("run_batch called inside an event loop; await run_batch_async instead")


def record(
    spec: ModelSpec, scope: str, label: str, request: LLMRequest, response: LLMResponse
) -> dict:
    """One JSONL line per sample: what was asked (as a hash), what came back, and its cost."""
    return {
        "model": spec.name,
        "provider": spec.provider,
        "model_id": spec.model,
        "scope": scope,
        "label": label,
        "case_id": response.case_id,
        "sample_index": response.sample_index,
        "cache_key": response.cache_key,
        "prompt_sha256": sha256_text(canonical_json([m.model_dump() for m in request.messages])),
        "text": response.text,
        "tokens_in": response.usage.tokens_in,
        "tokens_out": response.usage.tokens_out,
        "latency_s": response.latency_s,
        "stop_reason": response.stop_reason,
        "request_id": response.request_id,
        "response_model": response.response_model,
        "system_fingerprint": response.system_fingerprint,
        "cache_hit": response.cache_hit,
        "attempts": response.attempts,
        "error": response.error,
        "route": response.route,
        # only where there is something to say, so other models' records stay as they were
        **{name: value for name, value in (
            ("thinking", response.thinking), ("dropped_params", response.dropped_params),
            ("reasoning_tokens", response.usage.reasoning_tokens),
            ("cached_tokens_in", response.usage.cached_in),
            ("cache_write_tokens_in", response.usage.cache_write_in)) if value},
    }


def append_records(
    path: Path,
    spec: ModelSpec,
    scope: str,
    label: str,
    samples: list[LLMRequest],
    responses: list[LLMResponse],
) -> None:
    """Add this batch's records after any already in ``path``, replacing the file in one step."""
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    if existing:
        read_jsonl(path)  # refuse to extend a corrupt file
        if not existing.endswith("\n"):
            existing += "\n"
    lines = "".join(
        json.dumps(record(spec, scope, label, q, r), sort_keys=True, ensure_ascii=False) + "\n"
        for q, r in zip(samples, responses)
    )
    write_text(path, existing + lines)
