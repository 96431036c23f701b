"""Refinement turns: a conversation continued with feedback that never saw the truth.

After turn 0 (the batch a benchmark sends as always), each later turn k asks every item whose
last reply drew feedback again, with the conversation so far plus that feedback as a new user
message: ``messages + [assistant: reply, user: feedback]``. The feedback comes from the
caller's ``follow_up(request, response)``, which is built from the benchmark's
``experiments.feedback`` and the item's *inputs* only (DESIGN, round 6).

- One :func:`~scievals.llm.runner.run_batch` per turn, so caching, retries, failure notices
  and usage work as for any batch. The messages are part of the cache key, so each turn has
  its own key: a killed run resumes mid-refinement and a re-run sends nothing.
- A reply whose checks find nothing is not sent again: it *stands* for every later turn (no
  request, status ``stood``, counted in the tables). So does a failed request (there is no
  reply to give feedback on); the next run asks for it again, as for any failure.
- Repeated samples (``n_samples``) are refined one by one: each sample is its own
  conversation, sent with its own ``sample_index`` (and seed), never expanded again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scievals.llm.base import LLMRequest, LLMResponse, Message, ModelSpec
from scievals.llm.settings import LLMSettings
from scievals.llm.usage import UsageSummary, summarize_usage

log = logging.getLogger("scievals.llm")

ANSWERED = "answered"  # turn 0: the first answer
REVISED = "revised"  # a follow-up was sent and this is the model's new reply
STOOD = "stood"  # nothing to say (or no reply to say it on): the previous reply, no request

FollowUp = Callable[[LLMRequest, LLMResponse], "str | None"]


@dataclass(frozen=True)
class TurnReply:
    """One item's (and sample's) reply at one turn."""

    turn: int
    request: LLMRequest  # the conversation that produced ``response``
    response: LLMResponse
    status: str  # ANSWERED, REVISED or STOOD
    feedback: str | None = None  # the follow-up that asked for this reply (REVISED only)

    @property
    def conversation(self) -> list[dict]:
        """The messages after the first prompt (earlier replies and feedback), for records."""
        first_user = next((i for i, m in enumerate(self.request.messages) if m.role == "user"),
                          len(self.request.messages))
        return [m.model_dump() for m in self.request.messages[first_user + 1:]]


def continued(request: LLMRequest, response: LLMResponse, feedback: str) -> LLMRequest:
    """The request of the next turn: the conversation, the reply and the feedback."""
    # An empty reply still takes its turn in the conversation (APIs refuse empty messages)
    reply = Message(role="assistant", content=response.text or "(empty reply)")
    return request.model_copy(update={
        "messages": [*request.messages, reply, Message(role="user", content=feedback)],
        "sample_index": response.sample_index})


def refine(spec: ModelSpec, first: Sequence[tuple[LLMRequest, LLMResponse]], turns: int,
           follow_up: FollowUp, settings: LLMSettings, scope: str, label: str,
           ) -> tuple[list[list[TurnReply]], list[UsageSummary]]:
    """Turns 1..``turns`` after the answers ``first`` (each sample's request and response of
    turn 0). Returns, per later turn, one :class:`TurnReply` per entry of ``first`` (same
    order), and each turn's usage (only the requests that turn sent)."""
    from scievals.llm.runner import run_batch  # the 'llm' extra (SDKs, tenacity)

    one_each = spec.model_copy(update={"n_samples": 1})  # samples are already expanded
    current = [TurnReply(0, q, r, ANSWERED) for q, r in first]
    out: list[list[TurnReply]] = []
    usages: list[UsageSummary] = []
    for turn in range(1, turns + 1):
        nxt: list[TurnReply | None] = [None] * len(current)
        todo: list[tuple[int, LLMRequest, str]] = []
        for i, prev in enumerate(current):
            said = (None if prev.status == STOOD or prev.response.error is not None
                    else follow_up(prev.request, prev.response))
            if said:
                todo.append((i, continued(prev.request, prev.response, said), said))
            else:
                nxt[i] = TurnReply(turn, prev.request, prev.response, STOOD)
        # said on the terminal: a turn that sends nothing has no batch line of its own
        log.info("%s#turn%d: %d follow-up(s) to send, %d reply(ies) stood",
                 label, turn, len(todo), len(current) - len(todo), extra={"terminal": True})
        if todo:
            result = run_batch(one_each, [q for _, q, _ in todo], settings, scope=scope,
                               label=f"{label}#turn{turn}")
            for (i, request, said), response in zip(todo, result.responses):
                nxt[i] = TurnReply(turn, request, response, REVISED, said)
            usages.append(result.usage)
        else:
            usages.append(summarize_usage(spec, []))
        current = [t for t in nxt if t is not None]
        assert len(current) == len(first), "every sample has a reply at every turn"
        out.append(current)
    return out, usages


REFINE_KEYS = ("turn", "refine_status", "feedback", "next_feedback", "conversation")


def turn_fields(reply: TurnReply, next_feedback: str | None) -> dict:
    """The refinement keys of a prediction record (written only when refine_turns > 0):
    the turn, how the reply came about, the feedback that asked for it, the feedback the
    checks found on it (what the next turn sends; None: nothing found), the conversation;
    a reply that stood carries no tokens (no request was made for it)."""
    fields = dict(zip(REFINE_KEYS, (reply.turn, reply.status, reply.feedback, next_feedback,
                                    reply.conversation)))
    if reply.status == STOOD:  # no request this turn: its cost was counted where it was made
        fields.update(tokens_in=0, tokens_out=0, latency_s=0.0, cache_hit=False, attempts=0)
    return fields


def refined_records(spec: ModelSpec, first: Sequence[tuple[LLMRequest, LLMResponse]],
                    turns: int, record: Callable[[LLMRequest, LLMResponse, int], dict],
                    said: Callable[[dict, LLMResponse], str | None], settings: LLMSettings,
                    scope: str, label: str) -> tuple[list[dict], list, list[TurnReply]]:
    """Every turn's prediction records (turn 0's replies, then ``turns`` refinement turns),
    each turn's usage and the later turns' replies. ``record(request, response, turn)`` makes
    a benchmark's record; ``said(record, response)`` is its feedback on it (None: nothing),
    which is both what the next turn sends and what the record keeps."""
    later, usages = refine(spec, first, turns, lambda q, r: said(record(q, r, 0), r), settings,
                           scope=scope, label=label)
    out = []
    for turn, replies in enumerate([[TurnReply(0, q, r, ANSWERED) for q, r in first], *later]):
        for reply in replies:
            rec = record(reply.request, reply.response, turn)
            rec.update(turn_fields(reply, said(rec, reply.response)))
            out.append(rec)
    return out, usages, [t for replies in later for t in replies]
