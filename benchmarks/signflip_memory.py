"""Peak memory and time of the Monte-Carlo sign-flip test at 10,000 / 100,000 / 1,000,000
paired items (issue 45 item 10; figures in docs/statistics.md).

Run from the repository root:

    PYTHONPATH=scripts python benchmarks/signflip_memory.py [--items 10000 100000 1000000]

Each size runs in its own child process (a fresh interpreter, so one size's peak does not
hide the next's): it draws one pair's normal differences and calls
``paired_mean_tests`` (the engine's paired test of means: sign-flip plus range guard) on
them. The child reports its peak resident set (``ru_maxrss``), the baseline after importing
numpy and the engine, and the CPU seconds of the test.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    args = parser.parse_args()
    print("items, baseline MB, peak MB, CPU s")
    for n in args.items:
        done = subprocess.run([sys.executable, "-c", CHILD, str(n)], check=True,
                              capture_output=True, text=True)
        row = json.loads(done.stdout)
        print(f"{row['items']:>9,}, {row['baseline_mb']:.0f}, {row['peak_mb']:.0f}, "
              f"{row['cpu_s']:.1f}  ({row['method']})")


if __name__ == "__main__":
    main()
