"""The cost ceiling (llm.max_cost_usd, scievals.llm.spend) against the local fake server.

Prices of 1e4 USD per million tokens make each token cost 0.01 USD. With max_tokens=10 a
prompt "qN" (2 characters: 1 estimated token) is reserved at (1 + 10) x 0.01 = 0.11 USD; its
reply costs 3 tokens (1 prompt word + "reply: qN", 2 words) = 0.03 USD. With one connection
and a ceiling of 0.25 the k-th request is sent while 0.03 (k - 1) + 0.11 <= 0.25, so k <= 5:
five requests, 0.15 USD spent, whereas all ten would cost 0.30.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from llm_helpers import FAKE_KEY, KEY_VAR, make_requests, openai_spec
from scievals.common.errors import ScievalsError
from scievals.llm import spend
from scievals.llm.base import GenerateParams
from scievals.llm.runner import run_batch

CHILD = Path(__file__).with_name("llm_ceiling_child.py")
PRICED = {"price_in_per_mtok": 1e4, "price_out_per_mtok": 1e4,
          "params": GenerateParams(max_tokens=10)}


def child(server, tmp_path: Path, ceiling: float, n: int = 10) -> subprocess.CompletedProcess:
    env = {**os.environ, KEY_VAR: FAKE_KEY,
           "PYTHONPATH": os.pathsep.join([str(Path(spend.__file__).parents[2]),
                                          str(CHILD.parents[1])])}
    return subprocess.run(
        [sys.executable, str(CHILD), server.openai_base_url, str(tmp_path / "cache"),
         str(tmp_path / "spend.json"), str(ceiling), str(n)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=False)


def test_the_ceiling_stops_the_job_in_one_line_and_raising_it_resumes(server, tmp_path):
    stopped = child(server, tmp_path, 0.25)
    assert stopped.returncode == 1
    [line] = stopped.stderr.strip().splitlines()  # one line, no traceback
    assert line.endswith(
        f"ERROR scievals: model 'fake-gpt': llm.max_cost_usd (0.25 USD) reached: 0.1500 USD "
        f"spent (ledger {tmp_path / 'spend.json'}); the job sent nothing more (5 request(s) "
        "of this batch unsent) (answered requests are cached and not paid again: raise "
        "llm.max_cost_usd and re-run to resume)")
    assert server.prompts() == [f"q{i}" for i in range(5)]
    assert json.loads((tmp_path / "spend.json").read_text())["spent_usd"] == pytest.approx(0.15)

    resumed = child(server, tmp_path, 1.0)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip() == "finished"
    # the five answered before come from the cache: only the other five are sent
    assert server.prompts() == [f"q{i}" for i in range(10)]
    ledger = json.loads((tmp_path / "spend.json").read_text())
    assert ledger["spent_usd"] == pytest.approx(0.30) and ledger["reserved"] == {}


def test_requests_in_flight_count_against_the_ceiling(server, settings, fake_key, tmp_path):
    # Four connections: the reservations of the requests in flight hold the others back, so
    # the spend never passes the ceiling (at most one request's estimate could, by the rule).
    server.latency_s = 0.05
    ceiling = settings.model_copy(update={"max_cost_usd": 0.25,
                                          "spend_ledger": tmp_path / "spend.json"})
    with pytest.raises(ScievalsError, match=r"llm.max_cost_usd \(0.25 USD\) reached"):
        run_batch(openai_spec(server, max_connections=4, **PRICED), make_requests(10),
                  ceiling, scope="ceiling/v1")
    spent = json.loads((tmp_path / "spend.json").read_text())["spent_usd"]
    assert server.count <= 5 and spent == pytest.approx(0.03 * server.count)
    assert spent <= 0.25


def test_jobs_share_one_ledger(server, settings, fake_key, tmp_path):
    # Two jobs (two batches) under one ceiling: the second starts from the first one's spend.
    ceiling = settings.model_copy(update={"max_cost_usd": 0.25,
                                          "spend_ledger": tmp_path / "spend.json"})
    spec = openai_spec(server, max_connections=1, **PRICED)
    run_batch(spec, make_requests(3, prefix="a"), ceiling, scope="ceiling/a")  # 0.09 spent
    with pytest.raises(ScievalsError, match="0.1500 USD spent"):
        run_batch(spec, make_requests(5, prefix="b"), ceiling, scope="ceiling/b")
    assert server.prompts() == ["a0", "a1", "a2", "b0", "b1"]


def test_cache_hits_cost_nothing_and_an_unpriced_model_is_refused(server, settings, fake_key,
                                                                     tmp_path):
    ledger = tmp_path / "spend.json"
    spec = openai_spec(server, max_connections=1, **PRICED)
    run_batch(spec, make_requests(3), settings, scope="ceiling/v1")  # cached, no ceiling
    ceiling = settings.model_copy(update={"max_cost_usd": 0.01, "spend_ledger": ledger})
    run_batch(spec, make_requests(3), ceiling, scope="ceiling/v1")  # all from the cache
    assert spend.read_ledger(ledger)["spent_usd"] == 0
    with pytest.raises(ScievalsError, match="the model has no prices"):
        run_batch(openai_spec(server), make_requests(1, prefix="new"), ceiling,
                  scope="ceiling/v1")


def test_a_dead_jobs_reservation_is_dropped_and_a_bad_ledger_is_one_line(tmp_path):
    path = tmp_path / "spend.json"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    import socket
    import time
    path.write_text(json.dumps({"spent_usd": 0.1, "requests": 1, "reserved": {
        f"{socket.gethostname()}:{dead}": {"usd": 5.0, "at": time.time()}}}))
    ledger = spend.Ledger(path, ceiling=0.5)
    assert ledger.reserve(0.3)  # 0.1 + 0.3 <= 0.5 once the dead job's 5.0 is dropped
    assert not ledger.reserve(0.2)  # 0.1 + 0.3 + 0.2 > 0.5
    path.write_text("{not json")
    with pytest.raises(ScievalsError, match="spend.json: the cost ledger is unreadable"):
        spend.read_ledger(path)


def test_estimates_follow_the_documented_rule():
    # 9 characters -> ceil(9 / 4) = 3 tokens
    assert spend.estimate_tokens("abcdefghi") == 3
    [request] = make_requests(1, prefix="x" * 7)  # "xxxxxxx0": 8 characters, 2 tokens
    assert spend.prompt_tokens(request) == 2


def test_the_spend_command_shows_and_resets_the_ledger(tmp_path, capsys, monkeypatch):
    from scievals.cli import main

    ledger = tmp_path / "spend.json"
    config = tmp_path / "config.yaml"
    config.write_text(f"llm: {{max_cost_usd: 2.5, spend_ledger: {ledger}}}\n")
    spend.Ledger(ledger, ceiling=2.5).settle(0.0, 0.125)  # one request of 0.125 USD spent
    assert main(["llm", "spend", "--config", str(config)]) == 0
    assert capsys.readouterr().out.strip() == (
        f"ledger {ledger}: 0.1250 USD spent on 1 request(s), 0.0000 USD reserved in flight; "
        "ceiling 2.5 USD")
    ledger.write_text("{broken")  # an unreadable ledger can still be reset
    assert main(["llm", "spend", "--reset", "--config", str(config)]) == 0
    assert spend.read_ledger(ledger) == {"spent_usd": 0.0, "requests": 0, "reserved": {}}


def test_a_bad_ceiling_is_refused_by_the_config_check():
    from scievals.llm.settings import LLMSettings

    with pytest.raises(ScievalsError, match=r"config: llm\.max_cost_usd") as info:
        LLMSettings.from_config({"max_cost_usd": -1})
    assert "\n" not in str(info.value)
