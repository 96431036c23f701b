"""The cost ceiling (``llm.max_cost_usd``): a small ledger on disk that every job adds to.

Before a request is sent, its cost is estimated from above (input: the prompt's characters
/ :data:`CHARS_PER_TOKEN`, at the input price; output: ``max_tokens`` at the output price)
and reserved in the ledger; when the reply arrives the reservation is replaced by what the
reply cost (scievals.llm.usage.cost_usd). A request whose reservation would take the spent
cost plus every reservation in flight past the ceiling is not sent, nor is any later one of
the job, and the job stops with one line naming the ceiling and what was spent. Replies
already received are in the response cache, so raising the ceiling and re-running resumes
without paying for them again. Cache hits cost nothing and are not entered.

The ledger (``llm.spend_ledger``, default ``logs/llm_spend.json``) keeps what the workflow
folder has spent since it was started, across runs: the ceiling caps that total, so raising
it from 20 to 30 allows 10 more. ``python -m scievals llm spend`` shows it and ``llm spend
--reset`` starts it again (docs/llm.md#cost-ceiling).

Every update holds an exclusive ``flock`` on ``<ledger>.lock``, so the jobs of ``--cores 8``
(processes on one machine) see each other's spending and reservations at once. Under SLURM
the jobs on different nodes share the file through the cluster file system: the ceiling holds
where that file system honours locks (NFSv4, Lustre and GPFS with locking on); where it does
not, each node's jobs may pass it by their own requests in flight. A reservation left by a
killed job is dropped when its process is gone (same host) or after :data:`STALE_S`.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import socket
import time
from contextlib import contextmanager
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.common.io import write_text
from scievals.llm.base import GenerateParams, LLMRequest, ModelSpec

DEFAULT_LEDGER = Path("logs/llm_spend.json")
# English prose and JSON average about 4 characters a token with the GPT and Claude tokenizers
# (OpenAI's own rule of thumb); the input estimate is small beside max_tokens' upper bound.
CHARS_PER_TOKEN = 4
# A reservation older than a day belongs to a job that died on another node.
STALE_S = 24 * 3600


def estimate_tokens(text: str) -> int:
    """Tokens of ``text`` by the characters-per-token rule (no tokenizer needed)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def prompt_tokens(request: LLMRequest) -> int:
    """Estimated input tokens of a request (its messages and any JSON schema it sends)."""
    chars = sum(len(m.content) for m in request.messages)
    if request.json_schema is not None:
        chars += len(json.dumps(request.json_schema))
    return math.ceil(chars / CHARS_PER_TOKEN)


def request_estimate(spec: ModelSpec, request: LLMRequest, params: GenerateParams) -> float:
    """USD a request may cost at most (input estimated, output at ``max_tokens``); 0 when the
    model is unpriced."""
    if spec.price_in_per_mtok is None or spec.price_out_per_mtok is None:
        return 0.0
    return (prompt_tokens(request) * spec.price_in_per_mtok
            + params.max_tokens * spec.price_out_per_mtok) / 1e6


def _alive(owner: str, now: float, since: float) -> bool:
    host, _, pid = owner.partition(":")
    if now - since > STALE_S:
        return False
    if host != socket.gethostname():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, ValueError):
        return True
    return True


class Ledger:
    """Spent cost and reservations in flight, shared by every job through one JSON file."""

    def __init__(self, path: str | os.PathLike, ceiling: float) -> None:
        self.path = Path(path)
        self.ceiling = ceiling
        self.owner = f"{socket.gethostname()}:{os.getpid()}"
        self.stopped = False  # a reservation was refused: this job sends nothing more
        self.refused = 0  # requests not sent

    @contextmanager
    def _state(self):
        """The ledger's state under its lock, written back when the block ends."""
        with _locked(self.path):
            state = read_ledger(self.path)
            yield state
            _write(self.path, state)

    def reserve(self, usd: float) -> bool:
        """Reserve ``usd`` for a request about to be sent; False (and nothing more from this
        job) when spent + reservations + ``usd`` would pass the ceiling."""
        return self.reserve_first(usd) == 1

    def reserve_first(self, *usds: float) -> int:
        """Reserve the requests ``usds`` in order under one lock (a batch about to be
        submitted) up to the first that would pass the ceiling; how many were reserved.
        From that one on, nothing more of this job is (each counted as refused)."""
        if self.stopped:
            self.refused += len(usds)
            return 0
        with self._state() as state:
            now = time.time()
            flights = {owner: entry for owner, entry in state["reserved"].items()
                       if _alive(owner, now, entry["at"])}
            committed = state["spent_usd"] + sum(entry["usd"] for entry in flights.values())
            taken = 0.0
            fitted = 0
            for usd in usds:
                if committed + taken + usd > self.ceiling:
                    self.stopped = True
                    self.refused += len(usds) - fitted
                    break
                taken += usd
                fitted += 1
            if fitted:
                mine = flights.get(self.owner, {"usd": 0.0})
                flights[self.owner] = {"usd": mine["usd"] + taken, "at": now}
            state["reserved"] = flights
        return fitted

    def settle(self, reserved: float, spent: float | None, requests: int | None = None) -> None:
        """Replace a reservation by what the request cost (0 for a failed request); a batch
        settles its answers at once, ``requests`` of them (scievals.llm.batch.driver)."""
        with self._state() as state:
            mine = state["reserved"].get(self.owner)
            if mine is not None:
                left = mine["usd"] - reserved
                if left > 1e-12:
                    state["reserved"][self.owner] = {"usd": left, "at": mine["at"]}
                else:
                    del state["reserved"][self.owner]
            state["spent_usd"] += spent or 0.0
            state["requests"] += (1 if spent else 0) if requests is None else requests

    def spent(self) -> float:
        return read_ledger(self.path)["spent_usd"]

    def stop_error(self, spec: ModelSpec) -> ScievalsError:
        """The one line a job ends with when the ceiling stopped it."""
        return ScievalsError(
            f"model {spec.name!r}",
            f"llm.max_cost_usd ({self.ceiling:g} USD) reached: {self.spent():.4f} USD spent "
            f"(ledger {self.path}); the job sent nothing more ({self.refused} request(s) of "
            "this batch unsent)",
            "answered requests are cached and not paid again: raise llm.max_cost_usd and "
            "re-run to resume",
        )


@contextmanager
def _locked(path: Path):
    """An exclusive flock on ``<ledger>.lock`` for the block (every job takes the same)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _write(path: Path, state: dict) -> None:
    write_text(path, json.dumps(state, indent=1, sort_keys=True) + "\n")


def reset_ledger(path: str | os.PathLike) -> float:
    """Start the ledger again from 0 (under its lock, an unreadable one too); what it held."""
    path = Path(path)
    with _locked(path):
        try:
            spent = read_ledger(path)["spent_usd"]
        except ScievalsError:
            spent = 0.0
        _write(path, {"spent_usd": 0.0, "requests": 0, "reserved": {}})
    return spent


def read_ledger(path: str | os.PathLike) -> dict:
    """The ledger's state (an empty one when the file is missing)."""
    path = Path(path)
    empty = {"spent_usd": 0.0, "requests": 0, "reserved": {}}
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return empty
    except (OSError, ValueError) as exc:
        raise ScievalsError(str(path), f"the cost ledger is unreadable ({exc})",
                            "delete it or run: python -m scievals llm spend --reset") from None
    if not isinstance(state, dict) or not isinstance(state.get("spent_usd"), (int, float)):
        raise ScievalsError(str(path), "the cost ledger is not a scievals ledger",
                            "delete it or run: python -m scievals llm spend --reset")
    return {**empty, **state}


def ledger_for(spec: ModelSpec, max_cost_usd: float | None,
               path: str | os.PathLike | None) -> Ledger | None:
    """The ledger a batch of ``spec`` reserves in, or None without a ceiling. A network model
    without prices cannot be held to one: one line saying so."""
    if max_cost_usd is None:
        return None
    unpriced = spec.price_in_per_mtok is None or spec.price_out_per_mtok is None
    if unpriced and spec.provider in ("openai", "anthropic"):
        raise ScievalsError(
            f"config: models.{spec.name}",
            f"llm.max_cost_usd ({max_cost_usd:g}) is set but the model has no prices",
            "set price_in_per_mtok and price_out_per_mtok (USD per million tokens), or "
            "remove llm.max_cost_usd")
    return Ledger(path or DEFAULT_LEDGER, max_cost_usd)
