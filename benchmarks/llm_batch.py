"""The batch route's client cost against the fake server's batch routes (no network, no key).

The same N requests (default 2,000) once realtime and once through each provider's batch
API (fresh caches), the server in its own process: the client's CPU seconds per 1,000
requests and the wall time, the batch route polling every 10 ms. Then the batch arm again,
which must come from the cache with no call to the server.

    python benchmarks/llm_batch.py [--requests 2000]

Exit code 0 when the batch route's CPU per request is at most the realtime route's and the
cached re-run makes no call, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # support.*

from scievals.llm.base import LLMRequest, Message, ModelSpec
from scievals.llm.runner import run_batch
from scievals.llm.settings import LLMSettings
from support.fake_server import FakeServerProcess

KEY_VAR = "SCIEVALS_BENCH_FAKE_KEY"


def timed(spec: ModelSpec, requests: list, settings: LLMSettings) -> tuple[float, float, int]:
    """(CPU s, wall s, answers) of one run_batch."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = run_batch(spec, requests, settings, scope="bench/v1", announce=False)
    answered = sum(r.error is None for r in result.responses)
    return time.process_time() - cpu, time.perf_counter() - wall, answered


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    os.environ[KEY_VAR] = "fake-benchmark-key"
    requests = [LLMRequest(case_id=f"c{i}", messages=[
        Message(role="system", content="Answer with one gating hierarchy as JSON."),
        Message(role="user", content=f"panel {i}: CD3 CD4 CD8 CD19 CD56 viability")])
        for i in range(args.requests)]
    import anthropic  # noqa: F401  (the SDKs' import is a one-off per process: not timed)
    import openai  # noqa: F401

    ok = True
    with FakeServerProcess(module="support.fake_batch_server") as server:
        for provider in ("openai", "anthropic"):
            url = server.openai_base_url if provider == "openai" else server.url
            base = dict(name="bench", provider=provider, model=f"fake-{provider}", base_url=url,
                        api_key_env=KEY_VAR, max_connections=16)
            rows = {}
            for route in ("realtime", "batch"):
                with tempfile.TemporaryDirectory() as tmp:
                    settings = LLMSettings(cache_dir=Path(tmp) / "cache", batch={
                        "poll_interval_s": 0.01, "max_poll_interval_s": 0.01})
                    spec = ModelSpec(**base, batch=route == "batch")
                    rows[route] = timed(spec, requests, settings)
                    if route == "batch":
                        server.reset()
                        again = timed(spec, requests, settings)
                        stats = server.stats()
                        calls = stats["count"] + stats["batch_calls"]
                        print(f"{provider} batch, cached re-run: {again[1]:.2f} s wall, "
                              f"{calls} calls to the server")
                        ok &= calls == 0 and again[2] == args.requests
            for route, (cpu, wall, answered) in rows.items():
                print(f"{provider} {route:8s}: {answered} answers, {wall:6.2f} s wall, "
                      f"{cpu:5.2f} CPU-s, {1000 * cpu / args.requests:.2f} CPU-s per 1,000")
                ok &= answered == args.requests
            ok &= rows["batch"][0] <= rows["realtime"][0]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
