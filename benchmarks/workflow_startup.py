"""Start-up cost of the workflow: the cold default run's CPU time, and its no-op re-run
against a trivial one-rule workflow's no-op, measured side by side (issue 18).

Usage: python benchmarks/workflow_startup.py [--cores 2] [--pairs 7] [--target results/summary.csv]

Copies the workflow to a temporary folder (your results/ are untouched), runs the target
cold (wall time and CPU seconds of snakemake and every job), checks the summary against
``--baseline`` if given (``compare --tolerance 0 --fail-on-change``), then alternates
``--pairs`` no-op re-runs of both workflows and prints the medians and their ratio.
Targets: cold run at most 12 CPU-s, no-op at most 1.2x the trivial workflow's.

``--write-bytecode`` runs with Python's default of caching compiled modules (it drops
PYTHONDONTWRITEBYTECODE from the environment, as a user's shell normally has it): with the
variable set, every job compiles the package's modules from source again, about 0.1 CPU-s
of each job. The output says which way it ran.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.timed_run import timed_run  # noqa: E402
from support.workflow_copy import copy_workflow  # noqa: E402

TRIVIAL = """\
rule all:
    output:
        "done.txt",
    shell:
        "touch {output}"
"""
CPU_LIMIT_S = 12.0
RATIO_LIMIT = 1.2


WRITE_BYTECODE = False


def run(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and all its descendants)."""
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="benchmark")
    if WRITE_BYTECODE:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return timed_run(cmd, cwd, env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", default="2")
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--target", default="results/summary.csv")
    parser.add_argument("--baseline", help="summary.csv the cold run must equal (provenance aside)")
    parser.add_argument("--write-bytecode", action="store_true",
                        help="let Python cache compiled modules (drop PYTHONDONTWRITEBYTECODE)")
    args = parser.parse_args()
    global WRITE_BYTECODE
    WRITE_BYTECODE = args.write_bytecode
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        work = copy_workflow(ROOT, Path(tmp) / "scievals")
        trivial = Path(tmp) / "trivial"
        trivial.mkdir()
        (trivial / "Snakefile").write_text(TRIVIAL)
        snakemake = [sys.executable, "-m", "snakemake", "--cores", args.cores]
        cold_wall, cold_cpu = run(snakemake + [args.target], work)
        run(snakemake, trivial)
        same = "not checked"
        if args.baseline:
            check = subprocess.run(
                [sys.executable, "-m", "scievals", "compare", args.baseline,
                 str(work / "results" / "summary.csv"), "--tolerance", "0", "--fail-on-change"],
                cwd=work, env=dict(os.environ, PYTHONPATH=str(work / "scripts")),
                capture_output=True, text=True, check=False)
            same = "identical" if check.returncode == 0 else f"DIFFERS:\n{check.stdout}"
        ours, theirs, ours_cpu, theirs_cpu = [], [], [], []
        for _ in range(args.pairs):
            wall, cpu = run(snakemake + [args.target], work)
            ours.append(wall)
            ours_cpu.append(cpu)
            wall, cpu = run(snakemake, trivial)
            theirs.append(wall)
            theirs_cpu.append(cpu)
    load_after = os.getloadavg()
    noop, base = statistics.median(ours), statistics.median(theirs)
    ratio = noop / base
    print(f"target {args.target}, --cores {args.cores}, {args.pairs} no-op pairs")
    writes = WRITE_BYTECODE or not os.environ.get("PYTHONDONTWRITEBYTECODE")
    print(f"bytecode cache: {'written and reused' if writes else 'off (PYTHONDONTWRITEBYTECODE)'}")
    print(f"load average (1 min) before {load_before[0]:.1f}, after {load_after[0]:.1f}")
    print(f"cold run        {cold_wall:6.2f} s wall, {cold_cpu:6.2f} CPU-s   "
          f"(target <= {CPU_LIMIT_S:g} CPU-s: {'ok' if cold_cpu <= CPU_LIMIT_S else 'MISSED'})")
    print(f"no-op re-run    {noop:6.2f} s median ({min(ours):.2f}-{max(ours):.2f})")
    print(f"trivial no-op   {base:6.2f} s median ({min(theirs):.2f}-{max(theirs):.2f})")
    print(f"ratio           {ratio:6.2f}x   (target <= {RATIO_LIMIT:g}x: "
          f"{'ok' if ratio <= RATIO_LIMIT else 'MISSED'})")
    # CPU seconds depend far less on other work on the machine than wall time does.
    cpu_ratio = statistics.median(ours_cpu) / statistics.median(theirs_cpu)
    print(f"no-op CPU       {statistics.median(ours_cpu):6.2f} CPU-s vs "
          f"{statistics.median(theirs_cpu):.2f} CPU-s trivial: {cpu_ratio:.2f}x")
    print(f"summary vs baseline: {same}")
    ok = cold_cpu <= CPU_LIMIT_S and ratio <= RATIO_LIMIT and not same.startswith("DIFFERS")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
