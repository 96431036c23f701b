"""A run killed mid-batch loses no finished reply; the re-run sends only what is missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_helpers import FAKE_KEY, KEY_VAR, make_requests
from scievals.llm.base import ModelSpec
from scievals.llm.runner import run_batch
from scievals.llm.settings import LLMSettings

CHILD = Path(__file__).with_name("llm_batch_child.py")
SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
TESTS = SCRIPTS.parent / "tests"  # tests/support: the fake LLM server
N = 30


def cached_prompts(cache_dir: Path) -> set[str]:
    prompts = set()
    for path in cache_dir.rglob("*.json"):
        entry = json.loads(path.read_text())  # every file is complete: written atomically
        prompts.add(entry["request"]["messages"][-1]["content"])
    return prompts


@pytest.mark.slow
def test_killed_run_resumes_with_only_the_missing_requests(server, fake_key, tmp_path):
    server.latency_s = 0.1
    cache_dir = tmp_path / "cache"
    env = {**os.environ, KEY_VAR: FAKE_KEY, "PYTHONPATH": os.pathsep.join([str(SCRIPTS), str(TESTS)])}
    child = subprocess.Popen(
        [
            sys.executable,
            str(CHILD),
            server.openai_base_url,
            str(cache_dir),
            str(N),
            str(tmp_path / "child.log"),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while len(list(cache_dir.rglob("*.json"))) < 8:
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "child made no progress"
        time.sleep(0.01)
    child.kill()  # SIGKILL: no cleanup, no flush, like a node going away
    out, _ = child.communicate(timeout=30)
    assert b"finished" not in out

    done = cached_prompts(cache_dir)
    assert 8 <= len(done) < N
    first_run = server.count
    assert first_run >= len(done)  # requests in flight at the kill were lost, not stored

    server.reset_log()
    spec = ModelSpec(
        name="fake-gpt",
        provider="openai",
        model="fake-gpt-2025-01-01",
        base_url=server.openai_base_url,
        api_key_env=KEY_VAR,
        max_connections=4,
    )
    settings = LLMSettings(cache_dir=cache_dir, max_attempts=2, max_wait_s=0.02)
    result = run_batch(spec, make_requests(N), settings, scope="resume/v1")

    missing = {f"q{i}" for i in range(N)} - done
    assert sorted(server.prompts()) == sorted(missing)  # each missing one once, nothing else
    assert result.usage.cache_hits == len(done)
    assert [r.text for r in result.responses] == [f"reply: q{i}" for i in range(N)]
    assert all(r.error is None for r in result.responses)
    # A third run asks nothing.
    server.reset_log()
    run_batch(spec, make_requests(N), settings, scope="resume/v1")
    assert server.count == 0
    # Neither the killed child (cache, debug log) nor the re-run wrote the key anywhere.
    assert (tmp_path / "child.log").stat().st_size > 0
    leaks = [p for p in tmp_path.rglob("*") if p.is_file() and FAKE_KEY.encode() in p.read_bytes()]
    assert leaks == []
