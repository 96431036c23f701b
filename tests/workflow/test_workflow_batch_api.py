"""Issue 44's Done-when for batch mode: a gating run with a realtime model and the same model
through ``batch: true``, on the OpenAI route and the Anthropic route, against the fake server.

Run 1 gives the batch arms a deadline they cannot meet (the fake batches do not end): their
jobs stop with one line saying how to resume, exit non-zero, the batch ids on file. Run 2
(the batches now end) picks the same batches up: no second batch, no realtime request from a
batch arm, scores equal to the realtime arms', ``cost_usd`` half.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
import yaml
from scievals.llm.usage_rows import BOOKKEEPING_METRICS, USAGE_METRICS
from support.fake_batch_server import FakeBatchServer

from .conftest import copy_workflow

pytestmark = pytest.mark.slow
TARGET = ("results/gating/summary.csv", "--cores", "1", "--configfile", "config/config.yaml",
          "batch.yaml")
# A parseable hierarchy, the same for every case: the scores are not trivial zeros.
HIERARCHY = {"name": "All events", "markers": [], "children": [
    {"name": "Singlets", "markers": ["FSC-A", "FSC-H"], "children": [
        {"name": "Live", "markers": ["Viability"], "children": [
            {"name": "CD3+ T cells", "markers": ["CD3"], "children": [
                {"name": "CD4+", "markers": ["CD4"], "children": []},
                {"name": "CD8+", "markers": ["CD8"], "children": []}]},
            {"name": "CD19+ B cells", "markers": ["CD19"], "children": []}]}]}]}


class GatingServer(FakeBatchServer):
    def reply_text(self, prompt: str) -> str:
        return json.dumps(HIERARCHY)


def _run(workdir, *args):
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit", SCIEVALS_TEST_LLM_KEY="sk-test-1")
    return subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=900, check=False)


def _model(server, provider: str, model: str, **extra) -> dict:
    url = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    return {"provider": provider, "model": model, "base_url": url,
            "api_key_env": "SCIEVALS_TEST_LLM_KEY", "price_in_per_mtok": 3.0,
            "price_out_per_mtok": 15.0, **extra}


def test_batch_arms_score_as_realtime_at_half_the_cost_and_resume_their_batches(tmp_path):
    workdir = copy_workflow(tmp_path / "scievals")
    with GatingServer(polls_to_end=0) as server:
        # Each batch arm has its own model id: the cache does not key the route, so the same
        # id would answer the second arm from the first one's cache entries.
        models = {"gpt": _model(server, "openai", "fake-gpt"),
                  "gpt_batch": _model(server, "openai", "fake-gpt-b", batch=True),
                  "claude": _model(server, "anthropic", "fake-claude"),
                  "claude_batch": _model(server, "anthropic", "fake-claude-b", batch=True)}
        extra = {"models": models,
                 "llm": {"cache_dir": ".cache/llm",
                         "batch": {"poll_interval_s": 0.05, "max_poll_interval_s": 0.2,
                                   "deadline_s": 1}},
                 "gating": {"models": list(models), "contexts": ["minimal"],
                            "strategies": ["direct"]}}
        (workdir / "batch.yaml").write_text(yaml.safe_dump(extra))

        first = _run(workdir, *TARGET, "--keep-going")
        assert first.returncode != 0
        assert first.stderr.count("re-run the same command to resume") >= 2, first.stderr[-4000:]
        assert sorted(server.batches[b]["kind"] for b in server.created()) == [
            "anthropic", "openai"]
        ledger = sorted((workdir / ".cache" / "llm-batches").rglob("*.json"))
        assert sorted(json.loads(p.read_text())["batch_id"] for p in ledger) == sorted(
            server.created())

        server.polls_to_end = 1
        second = _run(workdir, *TARGET)
        assert second.returncode == 0, second.stderr[-4000:]

    assert len(server.created()) == 2  # the same two batches, each of the 15 cases
    assert server.batch_sizes() == [15, 15]
    # realtime requests: the realtime arms' 15 each, none of a batch arm
    sent = sorted(r["body"]["model"] for r in server.requests)
    assert sent == ["fake-claude"] * 15 + ["fake-gpt"] * 15
    assert list((workdir / ".cache" / "llm-batches").rglob("*.json")) == []

    scores = pd.concat(pd.read_csv(workdir / "results" / "gating" / "scores" / f"{m}.csv")
                       for m in models)
    usage = set(USAGE_METRICS) | BOOKKEEPING_METRICS
    results = scores[~scores["metric"].isin(usage)]
    by_model = {m: results[results["model"] == m].set_index(["condition", "metric"])["value"]
                for m in models}
    assert len(by_model["gpt"]) > 5 and by_model["gpt"].max() > 0  # real, non-zero scores
    for arm, realtime in (("gpt_batch", "gpt"), ("claude_batch", "claude")):
        pd.testing.assert_series_equal(by_model[arm], by_model[realtime], check_names=False)

    def row(model: str, metric: str) -> float:
        [value] = scores[(scores["model"] == model) & (scores["metric"] == metric)]["value"]
        return value

    for arm, realtime in (("gpt_batch", "gpt"), ("claude_batch", "claude")):
        assert row(arm, "tokens_in") == row(realtime, "tokens_in") > 0
        assert row(arm, "cost_usd") == pytest.approx(row(realtime, "cost_usd") / 2)
        assert row(arm, "batch_answers") == 15
        assert row(arm, "failed_requests") == 0
        assert scores[(scores["model"] == realtime)
                      & (scores["metric"] == "batch_answers")].empty
