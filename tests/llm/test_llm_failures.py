"""A total outage must not look like a bad model (issue 14, item 3).

Every request of a batch failing, or more than ``llm.max_failure_rate`` of them,
fails the batch naming the model and the first error. Fewer failures come back
as failed responses plus a run notice, and are asked again on the next run
because failures are never cached.
"""

from __future__ import annotations

import pytest
from llm_helpers import anthropic_spec, free_port, make_requests, openai_spec
from scievals.common import notices
from scievals.common.errors import ScievalsError
from scievals.llm.runner import run_batch
from scievals.llm.settings import LLMSettings


def test_default_tolerates_a_quarter_of_failed_requests():
    assert LLMSettings().max_failure_rate == 0.25
    with pytest.raises(ScievalsError, match=r"llm\.max_failure_rate"):
        LLMSettings.from_config({"max_failure_rate": 1.5})


@pytest.mark.parametrize("make", [openai_spec, anthropic_spec])
def test_every_request_failing_fails_the_batch_and_caches_nothing(
    server, fake_key, tmp_path, make
):
    # Even a rate of 1.0 (tolerate everything) does not turn a total outage into scores.
    settings = LLMSettings(cache_dir=tmp_path / "cache", max_attempts=2, max_wait_s=0.01,
                           max_failure_rate=1.0)
    spec = make(server)
    for i in range(3):
        server.script[f"q{i}"] = ["503"] * 2
    with pytest.raises(ScievalsError) as info:
        run_batch(spec, make_requests(3), settings, scope="gating", label="minimal_direct")
    assert info.value.where.startswith(f"model {spec.name!r} ({spec.provider} at ")
    assert info.value.problem.startswith(
        "3 of 3 requests failed after their retries (minimal_direct); first error, case case0: "
        "HTTP 503"
    )
    assert server.count == 6  # 3 requests x 2 attempts
    # The provider is back: every case is asked again (no failure was stored as an answer).
    server.reset_log()
    result = run_batch(spec, make_requests(3), settings, scope="gating", label="minimal_direct")
    assert [r.text for r in result.responses] == ["reply: q0", "reply: q1", "reply: q2"]
    assert server.count == 3


def test_failures_above_the_share_fail_the_batch(server, fake_key, tmp_path):
    settings = LLMSettings(cache_dir=tmp_path / "cache", max_attempts=1, max_failure_rate=0.25)
    server.script["q1"] = ["500"]
    server.script["q3"] = ["500"]
    # 2 of 5 = 0.4 > 0.25
    with pytest.raises(ScievalsError, match=r"2 of 5 requests failed .*llm\.max_failure_rate"):
        run_batch(openai_spec(server), make_requests(5), settings, scope="gating")
    # The three answered requests were stored the moment they arrived: only two are re-sent.
    server.reset_log()
    result = run_batch(openai_spec(server), make_requests(5), settings, scope="gating")
    assert all(r.error is None for r in result.responses)
    assert sorted(server.prompts()) == ["q1", "q3"]


def test_failures_below_the_share_are_returned_noticed_and_retried(
    server, fake_key, tmp_path, notice_dir
):
    settings = LLMSettings(cache_dir=tmp_path / "cache", max_attempts=1, max_failure_rate=0.25)
    server.script["q2"] = ["500"]
    spec = openai_spec(server)
    # 1 of 5 = 0.2 <= 0.25: the batch goes on, the failure is a failed response.
    result = run_batch(spec, make_requests(5), settings, scope="gating", label="rich_cot")
    assert [r.error is not None for r in result.responses] == [False, False, True, False, False]
    assert result.usage.errors == 1
    [notice] = notices.collect(notice_dir)
    assert (notice.kind, notice.benchmark, notice.job) == (
        "failed_request", "gating", "gating_predict_llm[model=m]"
    )
    assert notice.details == {"model": "fake-gpt", "label": "rich_cot", "failed": 1,
                              "requests": 5, "retry": True}
    assert notice.message.startswith(
        "fake-gpt: 1 of 5 requests failed after their retries (rich_cot)")
    assert "case case2: HTTP 500" in notice.message
    # The job's next run asks for them again: its param changes (see test_common_notices).
    token = notices.retry_token("gating_predict_llm", {"model": "m"}, notice_dir)
    assert token == f"failed requests recorded {notice.recorded_utc}"
    # Next run: only the failed request is sent, and the notice goes away with the failure.
    notices.start_job("gating_predict_llm", {"model": "m"}, notice.outputs, notice_dir,
                      retry=token)
    server.reset_log()
    again = run_batch(spec, make_requests(5), settings, scope="gating", label="rich_cot")
    assert server.prompts() == ["q2"]
    assert all(r.error is None for r in again.responses)
    assert notices.collect(notice_dir) == []
    # ... and the param keeps that run's value: a third run has nothing to do.
    assert notices.retry_token("gating_predict_llm", {"model": "m"}, notice_dir) == token


def test_offline_llm_gating_job_fails_instead_of_scoring_zero(fake_key, tmp_path):
    """The reproduction of item 3: an offline model used to score hierarchy_f1 = 0, exit 0."""
    from scievals.gating import predict
    from scievals.gating.curate import build_cases
    from scievals.gating.paths import OMIP_VERIFIED_DIR

    build_cases([OMIP_VERIFIED_DIR], None, tmp_path / "cases.jsonl", tmp_path / "curation.json")
    port = free_port()
    config = {
        "models": {"claude": {"provider": "anthropic", "model": "c",
                              "base_url": f"http://127.0.0.1:{port}",
                              "api_key_env": "SCIEVALS_TEST_LLM_KEY", "timeout_s": 1}},
        "llm": {"cache_dir": str(tmp_path / "cache"), "max_attempts": 1},
        "gating": {"contexts": ["minimal"], "strategies": ["direct"]},
    }
    out = tmp_path / "predictions.jsonl"
    with pytest.raises(ScievalsError) as info:
        predict.run(tmp_path / "cases.jsonl", "claude", config, out, tmp_path / "usage.json")
    assert info.value.where.startswith("model 'claude' (anthropic at ")
    assert "connection failed" in info.value.problem
    assert not out.exists()  # nothing for the score rule to turn into zeros
