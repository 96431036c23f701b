"""The batch route (issue 44): a model's requests through the providers' batch APIs, against
the fake server's batch routes, through the official SDKs (tests/support/fake_batch_server.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llm_helpers import FAKE_KEY, KEY_VAR, anthropic_spec, make_requests, openai_spec
from scievals.common import notices
from scievals.common.errors import ScievalsError
from scievals.llm.batch.ledger import ledger_root
from scievals.llm.runner import run_batch
from scievals.llm.usage import responses_cost
from scievals.llm.base import LLMResponse, Usage
from support.fake_batch_server import FakeBatchServer

SPECS = {"openai": openai_spec, "anthropic": anthropic_spec}


@pytest.fixture
def batch_server():
    with FakeBatchServer(max_lifetime_s=120) as srv:
        yield srv


def fast(settings, **batch):
    """The fixture's settings with polls every few ms (the policy is the same)."""
    return settings.model_copy(update={"batch": settings.batch.model_copy(update={
        "poll_interval_s": 0.005, "max_poll_interval_s": 0.02, **batch})})


def open_ledger(settings) -> list[Path]:
    return sorted(ledger_root(settings.cache_dir).rglob("*.json"))


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_batch_answers_equal_realtime_under_the_same_cache_key_at_half_price(
        batch_server, settings, fake_key, provider):
    prices = {"price_in_per_mtok": 3.0, "price_out_per_mtok": 15.0}
    realtime = SPECS[provider](batch_server, **prices)
    batched = SPECS[provider](batch_server, batch=True, **prices)
    requests = make_requests(4, system="be brief")
    rt = run_batch(realtime, requests, settings.model_copy(
        update={"cache_dir": settings.cache_dir.parent / "rt-cache"}), scope="t/v1")
    assert batch_server.count == 4 and batch_server.created() == []
    batch_server.reset_log()

    result = run_batch(batched, requests, fast(settings), scope="t/v1")

    assert batch_server.count == 0  # no realtime request
    assert len(batch_server.created(provider)) == 1
    if provider == "openai":
        assert batch_server.uploads == [{"purpose": "batch", "filename": "scievals-batch.jsonl"}]
    assert [r.text for r in result.responses] == [r.text for r in rt.responses]
    assert [r.text for r in result.responses] == [f"reply: q{i}" for i in range(4)]
    # the route is not in the key: the same entry path in both caches
    assert [r.cache_key for r in result.responses] == [r.cache_key for r in rt.responses]
    assert {r.route for r in result.responses} == {"batch"}
    # word counts of the fake: "be brief" + "qI" = 3 in, "reply: qI" = 2 out, per request
    assert (result.usage.tokens_in, result.usage.tokens_out) == (12, 8)
    # realtime 12*3/1e6 + 8*15/1e6 = 0.000156; the batch half of it
    assert rt.usage.cost_usd == pytest.approx(0.000156)
    assert result.usage.cost_usd == pytest.approx(0.000078)
    assert result.usage.batch_answers == 4
    assert open_ledger(settings) == []  # answers cached: the ledger is empty again

    calls = len(batch_server.batch_calls)
    again = run_batch(batched, requests, fast(settings), scope="t/v1")
    assert len(batch_server.batch_calls) == calls and batch_server.count == 0  # nothing sent
    assert all(r.cache_hit and r.route == "batch" for r in again.responses)
    assert again.usage.cost_usd == pytest.approx(0.000078)  # priced by the stored route


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_size_limits_split_a_job_into_several_batches(batch_server, settings, fake_key,
                                                      provider):
    spec = SPECS[provider](batch_server, batch=True)
    requests = make_requests(5)
    run_batch(spec, requests, fast(settings, max_requests=2), scope="t/v1")
    assert batch_server.batch_sizes() == [2, 2, 1]

    # bytes: prompts of 250 characters make request lines of 342-512 bytes (checked below:
    # 1024 / 3 < size <= 1024 / 2), so two fit in 1,024 bytes and three do not
    batch_server.batches.clear()
    long = make_requests(5, prefix="x" * 248)
    run_batch(spec, long, fast(settings, max_bytes=1024), scope="t/v2")
    assert batch_server.batch_sizes() == [2, 2, 1]
    for batch in batch_server.batches.values():
        # the line as sent: compact JSON and its newline
        sizes = [len(json.dumps(line, separators=(",", ":"), ensure_ascii=False)) + 1
                 for line in batch["requests"]]
        assert all(1024 / 3 < size <= 1024 / 2 for size in sizes), sizes


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_failed_and_expired_requests_go_again_in_a_new_batch_and_are_counted(
        batch_server, settings, fake_key, notice_dir, provider):
    spec = SPECS[provider](batch_server, batch=True)
    batch_server.batch_faults = {"q1": ["failed"], "q2": ["expired"]}
    result = run_batch(spec, make_requests(4), fast(settings), scope="gating/v1")

    assert [r.error for r in result.responses] == [None] * 4
    assert [r.text for r in result.responses] == [f"reply: q{i}" for i in range(4)]
    assert batch_server.batch_sizes() == [4, 2]  # the two sent again, alone
    assert batch_server.count == 0
    assert [r.attempts for r in result.responses] == [1, 2, 2, 1]
    assert result.usage.batch_failures == 2 and result.usage.errors == 0
    [notice] = notices.collect(notice_dir)
    assert notice.kind == "batch_retried"
    assert notice.details == {"model": spec.name, "label": f"{spec.name} [gating/v1]",
                              "reported_failed": 2, "resent_batch": 2, "resent_realtime": 0,
                              "given_up": 0}
    assert "reported 2 request(s) failed or expired" in notice.message


def test_a_request_failing_in_every_batch_is_a_failed_request(batch_server, settings,
                                                               fake_key, notice_dir):
    spec = openai_spec(batch_server, batch=True)
    batch_server.batch_faults = {"q1": ["failed", "failed"]}
    result = run_batch(spec, make_requests(3), fast(settings, max_rounds=2), scope="gating/v1")
    assert batch_server.batch_sizes() == [3, 1]
    assert result.responses[1].error.startswith("batch: HTTP 500: scripted batch failure")
    assert result.usage.errors == 1 and result.usage.batch_failures == 2
    kinds = {n.kind: n for n in notices.collect(notice_dir)}
    assert sorted(kinds) == ["batch_retried", "failed_request"]
    assert kinds["batch_retried"].details["given_up"] == 1


def test_a_batch_that_fails_as_a_whole_goes_again(batch_server, settings, fake_key,
                                                  notice_dir):
    spec = openai_spec(batch_server, batch=True)
    batch_server.fail_batches = 1
    result = run_batch(spec, make_requests(2), fast(settings), scope="gating/v1")
    assert batch_server.batch_sizes() == [2, 2]
    assert [r.text for r in result.responses] == ["reply: q0", "reply: q1"]
    assert result.usage.batch_failures == 2
    [notice] = notices.collect(notice_dir)
    assert notice.details["resent_batch"] == 2


def test_retry_realtime_sends_the_failed_ones_as_single_requests(batch_server, settings,
                                                                  fake_key):
    spec = anthropic_spec(batch_server, batch=True, price_in_per_mtok=1.0,
                          price_out_per_mtok=1.0)
    batch_server.batch_faults = {"q0": ["expired"]}
    records = settings.cache_dir.parent / "records.jsonl"
    result = run_batch(spec, make_requests(3), fast(settings, retry_realtime=True),
                       scope="t/v1", records_path=records)
    assert batch_server.prompts() == ["q0"] and batch_server.batch_sizes() == [3]
    assert [r.route for r in result.responses] == ["realtime", "batch", "batch"]
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    assert [line["route"] for line in lines] == ["realtime", "batch", "batch"]
    # 1 in ("qI") + 2 out ("reply: qI") tokens each at $1/Mtok: q0 at full price (3e-6),
    # the two batch answers at half (2 * 1.5e-6)
    assert result.usage.cost_usd == pytest.approx(6e-6)


def test_a_deadline_stops_the_job_and_the_next_run_picks_the_batch_up(batch_server, settings,
                                                                      fake_key):
    spec = openai_spec(batch_server, batch=True)
    batch_server.polls_to_end = 0  # never ends, until told
    with pytest.raises(ScievalsError) as stop:
        run_batch(spec, make_requests(3), fast(settings, deadline_s=0.05), scope="t/v1")
    message = str(stop.value)
    assert "not ended after llm.batch.deadline_s=0.05 s" in message and "\n" not in message
    assert "re-run the same command to resume" in message
    [entry] = open_ledger(settings)
    ledger = json.loads(entry.read_text())
    assert [ledger["batch_id"]] == batch_server.created()
    assert len(ledger["custom_ids"]) == 3

    batch_server.polls_to_end = 1
    result = run_batch(spec, make_requests(3), fast(settings), scope="t/v1")
    assert len(batch_server.created()) == 1  # the same batch, not a second one
    assert [r.text for r in result.responses] == ["reply: q0", "reply: q1", "reply: q2"]
    assert open_ledger(settings) == [] and batch_server.count == 0


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_killed_run_is_resumed_without_a_second_batch(batch_server, settings, fake_key,
                                                         tmp_path, provider):
    batch_server.polls_to_end = 0
    child = Path(__file__).with_name("llm_batch_api_child.py")
    url = (batch_server.openai_base_url if provider == "openai"
           else batch_server.anthropic_base_url)
    env = {**os.environ, KEY_VAR: FAKE_KEY,
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[1]), *sys.path])}
    proc = subprocess.Popen([sys.executable, str(child), provider, url, str(settings.cache_dir),
                             "3", str(tmp_path / "child.log")], env=env)
    try:
        deadline = time.monotonic() + 60
        while not open_ledger(settings) and time.monotonic() < deadline:
            assert proc.poll() is None, "the child ended before it submitted"
            time.sleep(0.05)
        assert open_ledger(settings), "no batch on file"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    assert len(batch_server.created()) == 1

    batch_server.polls_to_end = 1
    spec = SPECS[provider](batch_server, batch=True)
    result = run_batch(spec, make_requests(3), fast(settings), scope="t/v1")
    assert len(batch_server.created()) == 1
    assert [r.text for r in result.responses] == ["reply: q0", "reply: q1", "reply: q2"]
    assert batch_server.count == 0 and open_ledger(settings) == []


def test_responses_cost_prices_each_route(settings):
    from scievals.llm.base import ModelSpec

    spec = ModelSpec(name="m", provider="openai", model="x", price_in_per_mtok=2.0,
                     price_out_per_mtok=10.0, batch_price_factor=0.25)
    answers = [LLMResponse(case_id="a", usage=Usage(tokens_in=1000, tokens_out=100)),
               LLMResponse(case_id="b", usage=Usage(tokens_in=1000, tokens_out=100),
                           route="batch")]
    # realtime 1000*2/1e6 + 100*10/1e6 = 0.003; batch a quarter of the same, 0.00075
    assert responses_cost(spec, answers) == pytest.approx(0.00375)
    assert responses_cost(spec.model_copy(update={"price_in_per_mtok": None}), answers) is None


@pytest.mark.parametrize(("config", "where", "message"), [
    ({"models": {"m": {"provider": "mock", "batch": True}}}, "config: models.m.batch",
     "provider mock has no batch API"),
    ({"models": {"m": {"provider": "openai", "model": "x", "batch_price_factor": 0}}},
     "config: models.m", "batch_price_factor"),
])
def test_bad_batch_keys_of_a_model_are_refused_in_one_line(config, where, message):
    from scievals.llm.registry import model_spec

    with pytest.raises(ScievalsError) as refused:
        model_spec("m", config)
    text = str(refused.value)
    assert text.startswith(where) and message in text and "\n" not in text


def test_bad_batch_settings_are_refused_in_one_line():
    from scievals.llm.settings import LLMSettings

    with pytest.raises(ScievalsError) as refused:
        LLMSettings.from_config({"batch": {"max_requests": 0}})
    text = str(refused.value)
    assert "batch.max_requests" in text and "\n" not in text
    # the providers' published limits are the defaults
    assert LLMSettings().batch.limits("openai") == (50_000, 200 * 1024 * 1024)
    assert LLMSettings().batch.limits("anthropic") == (100_000, 256 * 1024 * 1024)


def test_a_caller_that_waits_on_each_answer_goes_realtime(batch_server, settings, fake_key):
    """An agent's turns and a judge's verdicts (realtime=True) never wait on a batch."""
    spec = openai_spec(batch_server, batch=True)
    result = run_batch(spec, make_requests(1), fast(settings), scope="t/v1", realtime=True)
    assert batch_server.prompts() == ["q0"] and batch_server.created() == []
    assert result.responses[0].route == "realtime"


def test_a_ledger_file_whose_answers_are_all_cached_is_cleared(batch_server, settings,
                                                               fake_key):
    """A run killed between caching a batch's answers and removing its file leaves the file;
    the next job of the model removes it (and sends none of those requests)."""
    from scievals.llm.batch.ledger import Ledger

    spec = openai_spec(batch_server, batch=True)
    first = run_batch(spec, make_requests(2), fast(settings), scope="t/v1")
    keys = {r.cache_key: r.cache_key for r in first.responses}
    Ledger(settings.cache_dir, spec).add("batch_left_over", keys, "killed")
    run_batch(spec, make_requests(1, prefix="other"), fast(settings), scope="t/v1")
    assert open_ledger(settings) == []
    assert batch_server.batch_sizes() == [2, 1]
