"""CPU-s of the default run's gating_score job, with a cold and a warm embedding cache.

Usage: python benchmarks/gating_score_cost.py WORKFLOW_DIR [REPEATS]

WORKFLOW_DIR is a workflow copy where ``snakemake --cores 1 results/summary.csv`` has run
(tests/support/workflow_copy.py makes one). Each replay runs the job's own command
(``python scripts/job.py 1 <job json> <log>``) in a fresh process and reads its CPU time
(user + system) from the children's rusage: cold = an empty SCIEVALS_CACHE_DIR each time,
warm = a cache the previous replay filled. Prints the median of REPEATS (default 3) each.
Figures: docs/gating.md, "Embedding cache".
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def job_file(workflow: Path) -> Path:
    for path in sorted((workflow / ".snakemake" / "scievals" / "jobs").glob("*.json")):
        if json.loads(path.read_text(encoding="utf-8")).get("rule") == "gating_score":
            return path
    sys.exit(f"error: {workflow}: no gating_score job; run the default workflow there first")


def replay(workflow: Path, job: Path, cache: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # one BLAS thread, as Snakemake sets for a job of one thread (two spinning threads
    # double the encoder's CPU time)
    env = dict(os.environ, SCIEVALS_CACHE_DIR=str(cache),
               **dict.fromkeys(("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"),
                               "1"))
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "scripts/job.py", "1", str(job), f"{tmp}/log"],
                       cwd=workflow, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    workflow = Path(sys.argv[1]).resolve()
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    job = job_file(workflow)
    cold, warm = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeats):
            cache = Path(tmp) / f"cache{i}"
            cold.append(replay(workflow, job, cache))
            warm.append(replay(workflow, job, cache))
    print(f"gating_score CPU-s, median of {repeats}: cold cache {statistics.median(cold):.2f} "
          f"({', '.join(f'{t:.2f}' for t in cold)}), warm cache {statistics.median(warm):.2f} "
          f"({', '.join(f'{t:.2f}' for t in warm)})")


if __name__ == "__main__":
    main()
