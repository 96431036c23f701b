"""The batch route under the realtime rules (issue 44): the cost ceiling reserves and settles
batch requests at the batch price, and a sampling parameter or structured output refused
inside a batch goes again without it in the next batch. Against the fake batch server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from llm_helpers import FAKE_KEY, KEY_VAR, anthropic_spec, make_requests, openai_spec
from scievals.common import notices
from scievals.common.errors import ScievalsError
from scievals.llm import spend
from scievals.llm.base import GenerateParams, LLMRequest, Message
from scievals.llm.estimate import estimating
from scievals.llm.runner import run_batch
from support.fake_batch_server import FakeBatchServer
from support.fake_server import _last_user_text

SPECS = {"openai": openai_spec, "anthropic": anthropic_spec}
# $3 / $15 per Mtok; max_tokens 1000 makes a request's upper bound
# (1 token in x 3 + 1000 out x 15) / 1e6 = 0.015003 USD, 0.0075015 at the batch factor 0.5.
PRICED = {"price_in_per_mtok": 3.0, "price_out_per_mtok": 15.0,
          "params": GenerateParams(max_tokens=1000)}
# What the fake server bills "qI" -> "reply: qI": 1 token in, 2 out:
# (1 x 3 + 2 x 15) / 1e6 = 33e-6 USD, half of it through a batch.
BATCH_ANSWER_USD = 16.5e-6


@pytest.fixture
def batch_server():
    with FakeBatchServer(max_lifetime_s=120) as srv:
        yield srv


def fast(settings, **llm):
    """Polls every few ms (the policy is the same) and the given llm settings."""
    batch = settings.batch.model_copy(update={"poll_interval_s": 0.005,
                                              "max_poll_interval_s": 0.02})
    return settings.model_copy(update={"batch": batch, **llm})


def ceiling_child(server, tmp_path: Path, ceiling: float, n: int,
                  batch: bool) -> subprocess.CompletedProcess:
    """The realtime ceiling test's child process (a workflow job's entry point)."""
    script = Path(__file__).with_name("llm_ceiling_child.py")
    env = {**os.environ, KEY_VAR: FAKE_KEY,
           "PYTHONPATH": os.pathsep.join([str(Path(spend.__file__).parents[2]),
                                          str(script.parents[1])])}
    return subprocess.run(
        [sys.executable, str(script), server.openai_base_url, str(tmp_path / "cache"),
         str(tmp_path / "spend.json"), str(ceiling), str(n), *(["batch"] if batch else [])],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=False)


def sent_lines(server, index: int) -> list[dict]:
    """The request bodies of the ``index``-th batch created, in either provider's shape."""
    batch = server.batches[server.created()[index]]
    return [line.get("body") or line.get("params") for line in batch["requests"]]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_ceiling_submits_only_what_fits_at_the_batch_price_and_resumes(
        batch_server, settings, fake_key, tmp_path, provider):
    spec = SPECS[provider](batch_server, batch=True, **PRICED)
    ledger = tmp_path / "spend.json"
    low = fast(settings, max_cost_usd=0.025, spend_ledger=ledger)
    with pytest.raises(ScievalsError) as stop:
        run_batch(spec, make_requests(6), low, scope="t/v1")
    # 3 x 0.0075015 = 0.0225045 <= 0.025 < 4 x 0.0075015 = 0.030006: 3 go, 3 stay unsent
    message = str(stop.value)
    assert "\n" not in message and "llm.max_cost_usd (0.025 USD) reached" in message
    assert "(3 request(s) of this batch unsent)" in message
    assert batch_server.batch_sizes() == [3] and batch_server.count == 0
    state = spend.read_ledger(ledger)
    assert state["spent_usd"] == pytest.approx(3 * BATCH_ANSWER_USD, abs=1e-12)
    assert state["requests"] == 3 and state["reserved"] == {}

    result = run_batch(spec, make_requests(6), fast(settings, max_cost_usd=1.0,
                                                    spend_ledger=ledger), scope="t/v1")
    assert batch_server.batch_sizes() == [3, 3]  # only the 3 unanswered went
    assert [_last_user_text(b) for b in sent_lines(batch_server, 1)] == ["q3", "q4", "q5"]
    assert {r.text for r in result.responses} == {f"reply: q{i}" for i in range(6)}
    assert [r.cache_hit for r in result.responses] == [True] * 3 + [False] * 3
    state = spend.read_ledger(ledger)
    assert state["spent_usd"] == pytest.approx(6 * BATCH_ANSWER_USD, abs=1e-12)
    assert state["requests"] == 6 and batch_server.count == 0


def test_a_submitted_batch_is_settled_once_by_the_run_that_picks_it_up(
        batch_server, settings, fake_key, tmp_path):
    spec = openai_spec(batch_server, batch=True, **PRICED)
    ledger = tmp_path / "spend.json"
    batch_server.polls_to_end = 0  # never ends, until told
    stuck = fast(settings, max_cost_usd=1.0, spend_ledger=ledger)
    stuck = stuck.model_copy(update={"batch": stuck.batch.model_copy(
        update={"deadline_s": 0.05})})
    with pytest.raises(ScievalsError, match="not ended after llm.batch.deadline_s"):
        run_batch(spec, make_requests(3), stuck, scope="t/v1")
    # the stop releases the reservation; nothing is spent until the answers arrive
    assert spend.read_ledger(ledger) == {"spent_usd": 0.0, "requests": 0, "reserved": {}}

    batch_server.polls_to_end = 1
    # a ceiling below one request's upper bound (0.0075015) but above what the submitted
    # batch costs (3 x 16.5e-6): picking it up reserves nothing, so nothing is refused
    result = run_batch(spec, make_requests(3), fast(settings, max_cost_usd=0.001,
                                                    spend_ledger=ledger), scope="t/v1")
    assert len(batch_server.created()) == 1  # never submitted twice
    assert [r.error for r in result.responses] == [None] * 3
    state = spend.read_ledger(ledger)
    assert state["spent_usd"] == pytest.approx(3 * BATCH_ANSWER_USD, abs=1e-12)
    assert state["requests"] == 3 and state["reserved"] == {}


def test_the_ceiling_settles_batch_answers_at_the_cached_rate_too(
        batch_server, settings, fake_key, tmp_path):
    spec = openai_spec(batch_server, batch=True, price_cached_in_per_mtok=0.3, **PRICED)
    batch_server.prompt_cache = True
    ledger = tmp_path / "spend.json"
    result = run_batch(spec, make_requests(3, system="be brief now"),
                       fast(settings, max_cost_usd=1.0, spend_ledger=ledger), scope="t/v1")
    # each prompt: 3 system words + 1 = 4 tokens in, 2 out. q0 meets the system prompt first:
    # (4 x 3 + 2 x 15) = 42; q1, q2 read its 3 tokens from the cache: (1 x 3 + 3 x 0.3 +
    # 2 x 15) = 33.9 each; (42 + 2 x 33.9) / 1e6 x 0.5 = 54.9e-6 USD
    assert [r.usage.cached_in for r in result.responses] == [0, 3, 3]
    assert spend.read_ledger(ledger)["spent_usd"] == pytest.approx(54.9e-6, abs=1e-12)
    assert result.usage.cost_usd == pytest.approx(54.9e-6, abs=1e-12)


def test_a_refused_temperature_goes_again_without_it_in_the_next_batch(
        batch_server, settings, fake_key, notice_dir):
    spec = openai_spec(batch_server, batch=True, params=GenerateParams(temperature=0.7))
    batch_server.refused_sampling = {"temperature"}
    result = run_batch(spec, make_requests(3), fast(settings), scope="gating/v1")

    assert [r.text for r in result.responses] == [f"reply: q{i}" for i in range(3)]
    assert batch_server.batch_sizes() == [3, 3] and batch_server.count == 0
    assert all(body["temperature"] == 0.7 for body in sent_lines(batch_server, 0))
    assert not any("temperature" in body for body in sent_lines(batch_server, 1))
    assert [r.dropped_params for r in result.responses] == [["temperature"]] * 3
    assert result.usage.batch_failures == 0  # a refusal met, not a failure of the batch
    [notice] = notices.collect(notice_dir)  # said once, as realtime does
    assert notice.kind == "sampling_refused"
    assert notice.details["requests"] == 3 and notice.details["dropped"] == ["temperature"]

    batch_server.reset_log()  # cached under the request as configured: nothing goes again
    again = run_batch(spec, make_requests(3), fast(settings), scope="gating/v1")
    assert all(r.cache_hit for r in again.responses) and batch_server.batch_calls == []


SCHEMA = {"name": "answer", "schema": {"type": "object", "properties": {
    "a": {"type": "string"}}, "required": ["a"], "additionalProperties": False}}


@pytest.mark.parametrize(("provider", "parameter"), [("openai", "response_format"),
                                                     ("anthropic", "output_config")])
def test_structured_output_refused_in_a_batch_goes_again_without_the_schema(
        batch_server, settings, fake_key, notice_dir, provider, parameter):
    spec = SPECS[provider](batch_server, batch=True)  # structured_output: auto
    batch_server.rejected_params = {parameter}
    requests = [LLMRequest(case_id=f"case{i}", json_schema=SCHEMA,
                           messages=[Message(role="user", content=f"q{i}")]) for i in range(2)]
    result = run_batch(spec, requests, fast(settings), scope="gating/v1")

    assert [r.text for r in result.responses] == ["reply: q0", "reply: q1"]
    assert batch_server.batch_sizes() == [2, 2] and batch_server.count == 0
    assert all(parameter in body for body in sent_lines(batch_server, 0))
    assert not any(parameter in body for body in sent_lines(batch_server, 1))
    assert [r.structured_output for r in result.responses] == ["refused", "refused"]
    [notice] = notices.collect(notice_dir)
    assert notice.kind == "structured_output_refused" and notice.details["refused"] == 2


def test_structured_output_on_keeps_a_refusal_a_failure(batch_server, settings, fake_key,
                                                         notice_dir):
    spec = openai_spec(batch_server, batch=True, structured_output="on")
    batch_server.rejected_params = {"response_format"}
    requests = [LLMRequest(case_id=f"case{i}", json_schema=SCHEMA,
                           messages=[Message(role="user", content=f"q{i}")]) for i in range(2)]
    with pytest.raises(ScievalsError, match="2 of 2 requests failed"):
        run_batch(spec, requests, fast(settings), scope="gating/v1")
    # max_rounds (3) batches, each with the schema
    assert batch_server.batch_sizes() == [2, 2, 2]
    assert all("response_format" in body for i in range(3)
               for body in sent_lines(batch_server, i))


def test_an_estimate_prices_a_batch_model_at_its_factor_and_names_the_route(
        batch_server, settings):
    spec = openai_spec(batch_server, batch=True, **PRICED)
    with estimating() as collected:
        run_batch(spec, make_requests(2), settings, scope="est/v1", label="b")
        run_batch(spec, make_requests(2), settings, scope="est/v1", label="agent",
                  realtime=True)
    batched, realtime = collected.batches
    # 2 requests of 1 token: low 2 x 3 / 1e6 = 6e-6, high 2 x 0.015003 = 0.030006; x 0.5
    assert (batched.route, realtime.route) == ("batch", "realtime")
    assert batched.cost_low_usd == pytest.approx(3e-6, abs=1e-15)
    assert batched.cost_high_usd == pytest.approx(0.015003, abs=1e-12)
    assert realtime.cost_high_usd == pytest.approx(0.030006, abs=1e-12)
    assert batch_server.batch_calls == [] and batch_server.count == 0


def test_reserve_first_takes_a_batch_up_to_the_first_request_past_the_ceiling(tmp_path):
    ledger = spend.Ledger(tmp_path / "spend.json", ceiling=1.0)
    # 0.3 + 0.3 + 0.3 = 0.9 <= 1.0 < 1.2: three reserved; the fourth and the fifth (which
    # alone would fit) are not: the job stops at the first refusal, as realtime does
    assert ledger.reserve_first(0.3, 0.3, 0.3, 0.3, 0.05) == 3
    assert ledger.stopped and ledger.refused == 2
    assert ledger.reserve_first(0.01) == 0 and ledger.refused == 3
    [flight] = spend.read_ledger(ledger.path)["reserved"].values()
    assert flight["usd"] == pytest.approx(0.9)
    ledger.settle(0.9, 0.25, requests=3)
    assert spend.read_ledger(ledger.path)["spent_usd"] == pytest.approx(0.25)
    assert spend.read_ledger(ledger.path)["reserved"] == {}


def test_a_picked_up_batch_s_refusal_is_read_against_what_it_carried(
        batch_server, settings, fake_key, notice_dir):
    spec = openai_spec(batch_server, batch=True, params=GenerateParams(temperature=0.7))
    batch_server.refused_sampling = {"temperature"}
    batch_server.polls_to_end = 0  # the first run stops while its batch (with temperature) waits
    stuck = fast(settings)
    stuck = stuck.model_copy(update={"batch": stuck.batch.model_copy(
        update={"deadline_s": 0.05})})
    with pytest.raises(ScievalsError, match="not ended after llm.batch.deadline_s"):
        run_batch(spec, make_requests(2), stuck, scope="gating/v1")

    batch_server.polls_to_end = 1
    result = run_batch(spec, make_requests(2), fast(settings), scope="gating/v1")
    # the picked-up batch refuses temperature: one new batch without it, not max_rounds
    # batches of failures
    assert batch_server.batch_sizes() == [2, 2]
    assert not any("temperature" in body for body in sent_lines(batch_server, 1))
    assert [r.text for r in result.responses] == ["reply: q0", "reply: q1"]
    assert [r.dropped_params for r in result.responses] == [["temperature"]] * 2
    assert [n.kind for n in notices.collect(notice_dir)] == ["sampling_refused"]


def test_a_batch_job_stopped_by_the_ceiling_exits_with_one_line_and_resumes(
        batch_server, tmp_path):
    # the realtime ceiling test's prices (1e4 USD/Mtok, max_tokens 10) through a batch: each
    # request is reserved at (1 + 10) x 0.01 x 0.5 = 0.055 USD, so 4 fit 0.25 (0.22) and a
    # fifth would not (0.275); each answer costs 3 x 0.01 x 0.5 = 0.015 USD
    stopped = ceiling_child(batch_server, tmp_path, 0.25, n=10, batch=True)
    assert stopped.returncode == 1
    [line] = stopped.stderr.strip().splitlines()  # one line, no traceback
    assert line.endswith(
        f"ERROR scievals: model 'fake-gpt': llm.max_cost_usd (0.25 USD) reached: 0.0600 USD "
        f"spent (ledger {tmp_path / 'spend.json'}); the job sent nothing more (6 request(s) "
        "of this batch unsent) (answered requests are cached and not paid again: raise "
        "llm.max_cost_usd and re-run to resume)")
    assert batch_server.batch_sizes() == [4] and batch_server.count == 0

    resumed = ceiling_child(batch_server, tmp_path, 1.0, n=10, batch=True)
    assert resumed.returncode == 0, resumed.stderr
    assert batch_server.batch_sizes() == [4, 6]  # the four answered are not sent again
    state = spend.read_ledger(tmp_path / "spend.json")
    assert state["spent_usd"] == pytest.approx(0.15) and state["reserved"] == {}
