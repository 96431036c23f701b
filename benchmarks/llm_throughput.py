"""LLM layer throughput against the local fake server (no network, no key).

200 requests, each answered after 200 ms, at max_connections=16: the ideal wall
time is 200 * 0.2 / 16 = 2.5 s; the target is within 1.3x (3.25 s) for the median
of the cold runs. Then the
same 200 again, which must come from the cache in under 1 s with zero HTTP
requests reaching the server.

    python benchmarks/llm_throughput.py [--requests 200] [--latency 0.2] [--connections 16]

Exit code 0 when both targets are met, 1 otherwise.

``--peers PYTHON`` measures client CPU side by side instead: the same N requests (one user
message each, up to 16 in flight) against one local server process, sent by scievals
(``run_batch``, a fresh cache), lm-evaluation-harness 0.4.13 (``LocalChatCompletion.
generate_until``) and inspect_ai 0.3.285 (``get_model("openai-api/...").generate``), each in
a new process (``benchmarks/llm_peer_client.py``), alternated over ``--rounds``. PYTHON is
an interpreter of a separate venv holding the peers (never project dependencies):

    python -m venv /work/venv-peers
    /work/venv-peers/bin/pip install lm-eval==0.4.13 inspect_ai==0.3.285
    python benchmarks/llm_throughput.py --peers /work/venv-peers/bin/python --latency 0.02

``--against DIR`` adds another checkout's ``scripts/`` (``git archive <commit> scripts | tar
-x -C DIR``) as ``scievals-before``, in the same rounds.

It prints each framework's median CPU-seconds from outside (the child's user + system time:
interpreter start, imports and requests) and from inside (import, then the requests alone),
and scievals' ratio to lm-eval's; the target is <= 0.5x (exit code 1 when missed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
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
ROOT = Path(__file__).resolve().parents[1]
CLIENT = Path(__file__).with_name("llm_peer_client.py")
FRAMEWORKS = ("scievals", "lm-eval", "inspect")
# --against: another checkout's scievals, measured as one more framework ("before")
BEFORE = "scievals-before"
TARGET_VS_LM_EVAL = 0.5


def client_cpu(kind: str, python: str, url: str, n: int, tmp: str,
               scripts: Path = ROOT / "scripts") -> dict:
    """One client process's CPU: outside (user + system of the child) and its own split."""
    # a scrubbed environment: no keys, no proxies, no user site; HOME a scratch folder
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "LANG": "C.UTF-8",
           "PYTHONNOUSERSITE": "1", "NO_PROXY": "*", "INSPECT_LOG_DIR": tmp,
           "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    if kind == "scievals":
        env["PYTHONPATH"] = str(scripts)
    args = [python, str(CLIENT), kind, url, str(n)]
    if kind == "scievals":
        args.append(tempfile.mkdtemp(dir=tmp))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(args, capture_output=True, text=True, env=env, cwd=tmp, timeout=600,
                          check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{kind} client failed: {done.stderr.strip()[-2000:]}")
    inside = json.loads(done.stdout.strip().splitlines()[-1])
    outside = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"outside_cpu_s": outside, **inside}


def side_by_side(args) -> int:
    """``--peers``: the client CPU of scievals, lm-eval and inspect_ai, alternated."""
    kinds = FRAMEWORKS + ((BEFORE,) if args.against else ())
    figures: dict[str, list[dict]] = {kind: [] for kind in kinds}
    with FakeServerProcess(latency_s=args.latency) as server, \
            tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            for kind in kinds:
                if kind == BEFORE:
                    figures[kind].append(client_cpu("scievals", sys.executable,
                                                    server.openai_base_url, args.requests,
                                                    tmp, Path(args.against)))
                    continue
                python = sys.executable if kind == "scievals" else args.peers
                figures[kind].append(client_cpu(kind, python, server.openai_base_url,
                                                args.requests, tmp))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"requests={args.requests} latency={args.latency}s rounds={args.rounds} "
          f"cpus={os.cpu_count()} load average {load}")
    median = {kind: {key: statistics.median(f[key] for f in runs) for key in runs[0]}
              for kind, runs in figures.items()}
    for kind in kinds:
        m = median[kind]
        runs = ", ".join(f"{f['outside_cpu_s']:.2f}" for f in figures[kind])
        print(f"{kind:15s} CPU-s outside {m['outside_cpu_s']:.2f} (runs: {runs}); inside: "
              f"import {m['import_cpu_s']:.2f}, {args.requests} requests "
              f"{m['requests_cpu_s']:.2f}")
    ratio = median["scievals"]["outside_cpu_s"] / median["lm-eval"]["outside_cpu_s"]
    per_request = median["scievals"]["requests_cpu_s"] / median["lm-eval"]["requests_cpu_s"]
    versus_inspect = median["scievals"]["outside_cpu_s"] / median["inspect"]["outside_cpu_s"]
    ok = ratio <= TARGET_VS_LM_EVAL
    print(f"scievals / lm-eval: {ratio:.2f}x outside, {per_request:.2f}x requests alone "
          f"(target <= {TARGET_VS_LM_EVAL}x outside) -> {'PASS' if ok else 'FAIL'}; "
          f"scievals / inspect_ai: {versus_inspect:.2f}x")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.2, help="server reply delay, s")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3, help="cold runs; judged by the median")
    parser.add_argument("--peers", metavar="PYTHON", help="interpreter of a venv with lm-eval "
                        "and inspect_ai: measure client CPU side by side instead")
    parser.add_argument("--rounds", type=int, default=5, help="--peers: alternated rounds")
    parser.add_argument("--against", metavar="SCRIPTS", help="--peers: the scripts/ folder of "
                        "another checkout (git archive <commit> scripts), measured beside")
    args = parser.parse_args()
    if args.peers:
        return side_by_side(args)
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
