"""Peak memory and time of the Monte-Carlo sign-flip test at 10,000 / 100,000 / 1,000,000
paired items (issue 45 item 10; figures in docs/statistics.md).

Run from the repository root:

    PYTHONPATH=scripts python benchmarks/signflip_memory.py [--items 10000 100000 1000000]

Each size runs in its own child process (a fresh interpreter, so one size's peak does not
hide the next's): it draws one pair's normal differences and calls
``paired_mean_tests`` (the engine's paired test of means: sign-flip plus range guard) on
them. The child reports its peak resident set (``ru_maxrss``), the baseline after importing
numpy and the engine, and the CPU seconds of the test.

``--compare-items N`` (default 200,000) then writes two lm-evaluation-harness logs of N
documents each (results file + samples file, a [0, 1] score per document) and runs
``python -m scievals compare`` on them in a child: its peak resident set and wall time.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
import numpy as np
from scievals.stats.paired import paired_mean_tests
n = int(sys.argv[1])
rng = np.random.default_rng(0)
values = np.column_stack([rng.uniform(0, 1, n), rng.uniform(0, 1, n)])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.process_time()
out = paired_mean_tests(values, np.array([0]), np.array([1]), span=1.0, seed=0)
cpu = time.process_time() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"items": n, "baseline_mb": base / 1024, "peak_mb": peak / 1024,
                  "cpu_s": cpu, "p": float(out.p_value[0]), "method": out.method[0]}))
"""


COMPARE_CHILD = r"""
import contextlib, io, json, resource, sys
from scievals.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(["compare", *sys.argv[1:]])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"code": code, "peak_mb": peak, "tail": out.getvalue()[-300:]}))
"""
STAMP = "2026-11-20T10-00-00.000001"


def lm_eval_log(folder: Path, model: str, n: int, shift: float) -> Path:
    """An lm-eval results file and its samples file of n documents (score in [0, 1])."""
    folder.mkdir(parents=True)
    rng = random.Random(model)
    (folder / f"samples_task_{STAMP}.jsonl").write_text("".join(
        json.dumps({"doc_id": d, "filter": "none", "metrics": ["score"],
                    "score": min(1.0, max(0.0, rng.random() + shift))}) + "\n"
        for d in range(n)))
    path = folder / f"results_{STAMP}.json"
    path.write_text(json.dumps({"results": {"task": {"score,none": 0.5}},
                                "higher_is_better": {"task": {"score": True}},
                                "model_name": model, "lm_eval_version": "0.4.9"}))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--compare-items", type=int, default=200_000)
    args = parser.parse_args()
    print("items, baseline MB, peak MB, CPU s")
    for n in args.items:
        done = subprocess.run([sys.executable, "-c", CHILD, str(n)], check=True,
                              capture_output=True, text=True)
        row = json.loads(done.stdout)
        print(f"{row['items']:>9,}, {row['baseline_mb']:.0f}, {row['peak_mb']:.0f}, "
              f"{row['cpu_s']:.1f}  ({row['method']})")
    if args.compare_items:
        with tempfile.TemporaryDirectory() as tmp:
            logs = [lm_eval_log(Path(tmp) / m, f"org/{m}", args.compare_items, shift)
                    for m, shift in (("a", 0.0), ("b", 0.01))]
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", COMPARE_CHILD, *map(str, logs)],
                                  check=True, capture_output=True, text=True)
            row = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"compare of two {args.compare_items:,}-item lm-eval logs: exit "
                  f"{row['code']}, peak {row['peak_mb']:.0f} MB, wall "
                  f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
