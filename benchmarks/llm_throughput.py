"""LLM layer throughput against the local fake server (no network, no key).

200 requests, each answered after 200 ms, at max_connections=16: the ideal wall
time is 200 * 0.2 / 16 = 2.5 s; the target is within 1.3x (3.25 s) for the median
of the cold runs. Then the
same 200 again, which must come from the cache in under 1 s with zero HTTP
requests reaching the server.

    python benchmarks/llm_throughput.py [--requests 200] [--latency 0.2] [--connections 16]

Exit code 0 when both targets are met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # support.fake_server

from scievals.llm.base import LLMRequest, Message, ModelSpec
from support.fake_server import FakeServerProcess
from scievals.llm.runner import run_batch
from scievals.llm.settings import LLMSettings

KEY_VAR = "SCIEVALS_BENCH_FAKE_KEY"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.2, help="server reply delay, s")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3, help="cold runs; judged by the median")
    args = parser.parse_args()
    os.environ[KEY_VAR] = "fake-benchmark-key"

    ideal = args.requests * args.latency / args.connections
    requests = [
        LLMRequest(case_id=f"c{i}", messages=[Message(role="user", content=f"question {i}")])
        for i in range(args.requests)
    ]
    # Import the SDK before timing: a one-off ~1 s per process, not per batch.
    import openai  # noqa: F401

    cold_times = []
    # The server runs in its own process, as a real one would, so its CPU time is not
    # charged to the client's interpreter.
    with FakeServerProcess(latency_s=args.latency) as server, tempfile.TemporaryDirectory() as tmp:
        spec = ModelSpec(
            name="bench",
            provider="openai",
            model="fake-model",
            base_url=server.openai_base_url,
            api_key_env=KEY_VAR,
            max_connections=args.connections,
        )
        for repeat in range(args.repeats):
            settings = LLMSettings(cache_dir=Path(tmp) / f"cache{repeat}")
            server.reset()
            started = time.perf_counter()
            cold = run_batch(spec, requests, settings, scope="bench/v1")
            cold_times.append(time.perf_counter() - started)
            stats = server.stats()
            assert cold.usage.errors == 0 and stats["count"] == args.requests
            assert stats["max_in_flight"] <= args.connections
        max_in_flight = stats["max_in_flight"]

        server.reset()
        started = time.perf_counter()
        warm = run_batch(spec, requests, settings, scope="bench/v1")
        warm_s = time.perf_counter() - started
        warm_http = server.stats()["count"]
        assert warm.usage.cache_hits == args.requests

    median = statistics.median(cold_times)
    cold_ok = median <= 1.3 * ideal
    warm_ok = warm_s < 1.0 and warm_http == 0
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"requests={args.requests} latency={args.latency}s max_connections={args.connections} "
        f"cpus={os.cpu_count()} load average {load}"
    )
    print(
        f"cold: {', '.join(f'{t:.2f}' for t in cold_times)} s (median {median:.2f} s); "
        f"ideal {ideal:.2f} s; ratio {median / ideal:.2f}x (target <= 1.30x) "
        f"max in flight {max_in_flight} -> {'PASS' if cold_ok else 'FAIL'}"
    )
    print(
        f"cached: {warm_s:.3f} s, {warm_http} HTTP requests (target < 1 s, 0) "
        f"-> {'PASS' if warm_ok else 'FAIL'}"
    )
    return 0 if cold_ok and warm_ok else 1


if __name__ == "__main__":
    sys.exit(main())
