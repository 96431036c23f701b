"""Estimates before sending (scievals.llm.estimate, ``python -m scievals estimate``): the
requests a run would make are counted from the benchmark's own prediction code, cache hits
apart, nothing is sent and nothing written."""

from __future__ import annotations

import json

import pytest
from llm_helpers import free_port, make_requests, openai_spec
from scievals.autogkb.prompts import build_request
from scievals.llm import spend
from scievals.llm.base import GenerateParams
from scievals.llm.estimate import estimating
from scievals.llm.runner import run_batch

PRICES = {"price_in_per_mtok": 2.0, "price_out_per_mtok": 8.0,
          "params": GenerateParams(max_tokens=100)}


def test_an_estimate_counts_hits_apart_and_sends_and_writes_nothing(
        server, settings, fake_key, monkeypatch):
    spec = openai_spec(server, max_connections=1, **PRICES)
    run_batch(spec, make_requests(1), settings, scope="est/v1")  # q0 is cached now
    entries = sorted(settings.cache_dir.rglob("*.json"))
    monkeypatch.delenv("SCIEVALS_TEST_LLM_KEY")  # an estimate needs no key and no server
    dead = spec.model_copy(update={"base_url": f"http://127.0.0.1:{free_port()}/v1"})
    with estimating() as collected:
        result = run_batch(dead, make_requests(3), settings, scope="est/v1", label="b")
    [batch] = collected.batches
    assert (batch.requests, batch.cached, batch.to_send) == (3, 0, 3)  # another base_url
    with estimating() as collected:
        result = run_batch(spec, make_requests(3), settings, scope="est/v1", label="b")
    [batch] = collected.batches
    assert (batch.requests, batch.cached, batch.to_send) == (3, 1, 2)
    # "q1", "q2": 2 characters each -> 1 token each; low = 2 x $2/M; high adds 2 x 100 x $8/M
    assert batch.tokens_in == 2
    assert batch.cost_low_usd == pytest.approx(4e-6, abs=1e-15)
    assert batch.cost_high_usd == pytest.approx(4e-6 + 1600e-6, abs=1e-15)
    assert [r.text for r in result.responses][1:] == ["", ""] and server.count == 1
    assert sorted(settings.cache_dir.rglob("*.json")) == entries


def curated_autogkb(tmp_path):
    """Two curated autogkb articles in ``tmp_path`` and a config with one priced LLM."""
    cases = [{"case_id": f"PMC{i}", "pmid": str(i), "title": f"A study {i}",
              "text_mode": "evidence", "text": "rs1 " * (10 + i), "text_licence": "CC-BY",
              "truth": []} for i in range(2)]
    folder = tmp_path / "data" / "curated" / "autogkb"
    folder.mkdir(parents=True)
    (folder / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    config = tmp_path / "mine.yaml"
    config.write_text(
        "models:\n  fakegpt: {provider: openai, model: fake-model, base_url: "
        "'http://127.0.0.1:9/v1', price_in_per_mtok: 2.0, price_out_per_mtok: 8.0, "
        "params: {max_tokens: 100}}\n"
        "autogkb: {models: [autogkb_baseline, fakegpt]}\n"
        f"llm: {{cache_dir: '{tmp_path / 'cache'}'}}\n")
    return cases, config


def test_the_estimate_command_runs_the_benchmarks_own_prediction_code(
        tmp_path, monkeypatch, capsys):
    from scievals.cli import main

    cases, config = curated_autogkb(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["estimate", "autogkb", "waza", "--configfile", str(config)]) == 0
    out = capsys.readouterr().out.splitlines()
    tokens = sum(spend.prompt_tokens(build_request(c)) for c in cases)
    low = tokens * 2.0 / 1e6
    high = low + 2 * 100 * 8.0 / 1e6
    total = [line for line in out if line.startswith("fakegpt") and " total " in line]
    expected = (f"{'fakegpt':20s} {'total':28s} {2:8d} {0:7d} {2:8d} {tokens:10d}  "
                f"{low:.4f} .. {high:.4f}")
    assert total == [expected + "  realtime"]
    assert not (tmp_path / "cache").exists()  # nothing written


def test_a_dry_run_of_run_ends_with_the_estimate(tmp_path, monkeypatch, capsys):
    import argparse

    from scievals import run

    cases, config = curated_autogkb(tmp_path)
    monkeypatch.chdir(tmp_path)
    run.print_estimate(argparse.Namespace(benchmark=["autogkb"], configfile=[str(config)]),
                       None)
    out = capsys.readouterr().out
    assert "LLM requests of this run, estimated (nothing sent)" in out
    tokens = sum(spend.prompt_tokens(build_request(c)) for c in cases)
    assert f"{'fakegpt':20s} {'total':28s} {2:8d} {0:7d} {2:8d} {tokens:10d}" in out


def test_a_dry_run_with_batch_prices_at_the_batch_factor_and_says_so(tmp_path, monkeypatch,
                                                                    capsys):
    import argparse

    from scievals import run

    cases, config = curated_autogkb(tmp_path)
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text("llm: {batch: {every_model: true}}\n")  # what `run --batch` writes
    monkeypatch.chdir(tmp_path)
    run.print_estimate(argparse.Namespace(benchmark=["autogkb"], configfile=[str(config)]),
                       overlay)
    out = capsys.readouterr().out
    tokens = sum(spend.prompt_tokens(build_request(c)) for c in cases)
    # the realtime range of the test above, at the default batch_price_factor 0.5
    low = tokens * 2.0 / 1e6 * 0.5
    high = low + 2 * 100 * 8.0 / 1e6 * 0.5
    expected = (f"{'fakegpt':20s} {'total':28s} {2:8d} {0:7d} {2:8d} {tokens:10d}  "
                f"{low:.4f} .. {high:.4f}  batch")
    assert expected in out.splitlines()
