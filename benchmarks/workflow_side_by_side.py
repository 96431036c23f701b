"""Cold default runs of this tree and of another commit, alternating (issue 18).

Usage: python benchmarks/workflow_side_by_side.py --against 221bd88 [--rounds 3] [--cores 2]

CPU time on a shared machine drifts by 20-30 % within an hour with the same code, so a
figure measured today is compared with an older commit's measured in the same minutes:
each round copies both workflows afresh (the other commit from ``git archive``), runs
``snakemake results/summary.csv`` cold in each, one after the other, and prints both CPU
times. A reference import (pandas and scipy.stats) before and after says which state the
machine was in. The last round's two summaries are compared with
``compare --tolerance 0 --fail-on-change`` (provenance columns aside).
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.timed_run import timed_run
from support.workflow_copy import copy_workflow

REFERENCE_IMPORT = "import pandas, scipy.stats"


def reference_cpu() -> float:
    """CPU seconds of a fresh interpreter importing pandas and scipy.stats (machine state)."""
    return timed_run([sys.executable, "-c", REFERENCE_IMPORT], ROOT, os.environ)[1]


def export(rev: str, dest: Path) -> Path:
    """The committed files of ``rev`` (as a fresh clone of it has them) in ``dest``."""
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT,
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, help="the commit to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cores", default="2")
    args = parser.parse_args()
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="benchmark")
    snakemake = [sys.executable, "-m", "snakemake", "--cores", args.cores, "results/summary.csv"]
    before = [reference_cpu() for _ in range(3)]
    cpu: dict[str, list[float]] = {"this tree": [], args.against: []}
    with tempfile.TemporaryDirectory() as tmp:
        other = export(args.against, Path(tmp) / "other-source")
        for index in range(args.rounds):
            works = {"this tree": copy_workflow(ROOT, Path(tmp) / f"this-{index}"),
                     args.against: copy_workflow(other, Path(tmp) / f"other-{index}")}
            for name, work in works.items():
                wall, seconds = timed_run(snakemake, work, env)
                cpu[name].append(seconds)
                print(f"round {index + 1}  {name:>12s}: {seconds:6.2f} CPU-s, {wall:5.2f} s wall",
                      flush=True)
        check = subprocess.run(
            [sys.executable, "-m", "scievals", "compare",
             str(works[args.against] / "results" / "summary.csv"),
             str(works["this tree"] / "results" / "summary.csv"),
             "--tolerance", "0", "--fail-on-change"],
            cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT / "scripts")),
            capture_output=True, text=True, check=False)
    after = [reference_cpu() for _ in range(3)]
    print(f"reference import ({REFERENCE_IMPORT}): {min(before):.2f}-{max(before):.2f} CPU-s "
          f"before, {min(after):.2f}-{max(after):.2f} after")
    for name, values in cpu.items():
        print(f"{name:>12s}: median {statistics.median(values):6.2f} CPU-s "
              f"({min(values):.2f}-{max(values):.2f})")
    ratio = statistics.median(cpu["this tree"]) / statistics.median(cpu[args.against])
    print(f"this tree / {args.against}: {ratio:.3f}")
    print("summary: identical" if check.returncode == 0 else f"summary DIFFERS:\n{check.stdout}")
    return 0 if check.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
