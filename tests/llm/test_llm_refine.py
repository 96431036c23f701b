"""The LLM layer's refinement turns (scievals.llm.refine) against the fake server: who is asked
again, what the conversation holds, per-turn usage, samples, and resuming mid-refinement."""

from __future__ import annotations

from llm_helpers import make_requests, openai_spec
from scievals.llm.refine import REVISED, STOOD, refine
from scievals.llm.runner import run_batch


def answer_of(body: dict, prompt: str = "") -> str:
    """The fake model: its answer counts the follow-ups it got ("v0", "v1", ...)."""
    return f"v{sum(1 for m in body['messages'] if m['role'] == 'assistant')}"


def until_v(limit: int):
    """Feedback until the reply reaches v<limit>; cases 'case0' never get any."""
    def follow_up(request, response):
        if request.case_id == "case0" or response.text == f"v{limit}":
            return None
        return f"not yet ({response.text})"
    return follow_up


def first_turn(spec, settings, n=3):
    requests = make_requests(n)
    result = run_batch(spec, requests, settings, scope="t")
    by_id = {q.case_id: q for q in requests}
    return [(by_id[r.case_id].model_copy(update={"sample_index": r.sample_index}), r)
            for r in result.responses]


def test_feedback_turns_conversation_and_usage(server, fake_key, settings):
    server.responder = answer_of
    spec = openai_spec(server)
    first = first_turn(spec, settings)
    server.requests.clear()
    later, usages = refine(spec, first, 3, until_v(2), settings, scope="t", label="x")
    # case0: no feedback, stands at every turn; case1, case2: asked at turns 1 and 2 (v0 -> v1
    # -> v2), then v2 draws nothing, so turn 3 stands: 2 + 2 + 0 requests
    assert [[t.status for t in turn] for turn in later] == [
        [STOOD, REVISED, REVISED], [STOOD, REVISED, REVISED], [STOOD, STOOD, STOOD]]
    assert [[t.response.text for t in turn] for turn in later] == [
        ["v0", "v1", "v1"], ["v0", "v2", "v2"], ["v0", "v2", "v2"]]
    assert server.count == 4
    assert [u.requests for u in usages] == [2, 2, 0]
    turn2 = later[1][1]
    assert [(m["role"], m["content"]) for m in turn2.conversation] == [
        ("assistant", "v0"), ("user", "not yet (v0)"), ("assistant", "v1"),
        ("user", "not yet (v1)")]
    assert turn2.feedback == "not yet (v1)"


def test_samples_are_refined_one_by_one(server, fake_key, settings):
    server.responder = answer_of
    spec = openai_spec(server, n_samples=2, params={"seed": 7})
    first = first_turn(spec, settings, n=2)
    assert [(q.case_id, r.sample_index) for q, r in first] == [
        ("case0", 0), ("case0", 1), ("case1", 0), ("case1", 1)]
    server.requests.clear()
    later, _ = refine(spec, first, 1, until_v(1), settings, scope="t", label="x")
    # case1's two samples are two conversations, each sent once with its own seed (7, 8)
    assert sorted(r["body"]["seed"] for r in server.requests) == [7, 8]
    assert [t.response.sample_index for t in later[0]] == [0, 1, 0, 1]


def test_resumes_mid_refinement_and_a_rerun_sends_nothing(server, fake_key, settings):
    server.responder = answer_of
    spec = openai_spec(server)
    first = first_turn(spec, settings)
    # the run that stopped: one turn done
    refine(spec, first, 1, until_v(3), settings, scope="t", label="x")
    server.requests.clear()
    # the next run asks for two turns: turn 1 comes from the cache, only turn 2 is sent
    later, usages = refine(spec, first, 2, until_v(3), settings, scope="t", label="x")
    assert server.count == 2
    assert [u.cache_hits for u in usages] == [2, 0]
    assert [t.response.text for t in later[1]] == ["v0", "v2", "v2"]
    server.requests.clear()
    refine(spec, first, 2, until_v(3), settings, scope="t", label="x")
    assert server.count == 0
