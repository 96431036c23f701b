"""Time the README's main command: a cold run on the embedded default, then a no-op re-run.

Usage: python benchmarks/workflow_default_run.py [--cores 8] [--target results/summary.csv]
       python benchmarks/workflow_default_run.py --target gating --cold-limit 30
       python benchmarks/workflow_default_run.py --cores 2 --report

Copies the workflow to a temporary folder (so your results/ are untouched), runs
snakemake twice and prints wall times. Targets: the no-op re-run under 5 s; the
gating part of the default run (`--target gating`) under 30 s cold. `--report` then
times the README's report command straight after that run (`--report-after-run`:
figures + report) and the report alone once everything exists. The load average is
printed before and after, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.workflow_copy import copy_workflow  # noqa: E402


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="benchmark")
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr[-3000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", default=str(os.cpu_count() or 2))
    parser.add_argument("--target", default="results/summary.csv")
    parser.add_argument("--cold-limit", type=float, default=None, help="seconds the cold run may take")
    parser.add_argument("--report", action="store_true",
                        help="also time the README's report commands after the run")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "scievals"
        copy_workflow(ROOT, work)
        snakemake = [sys.executable, "-m", "snakemake", "--cores", args.cores]
        cmd = snakemake + [args.target]
        cold = timed(cmd, work)
        noop = timed(cmd, work)
        dry = timed(cmd + ["-n"], work)
        if args.report:
            report = ["--report", "results/report.html"]
            after_run = timed(snakemake + report + ["--report-after-run"], work)
            alone = timed(snakemake + report, work)
    load_after = os.getloadavg()
    print(f"target {args.target}, --cores {args.cores}")
    print(f"load average (1/5/15 min) before {fmt_load(load_before)}, after {fmt_load(load_after)}")
    verdict = "" if args.cold_limit is None else f"   (target < {args.cold_limit:g} s: {'ok' if cold < args.cold_limit else 'MISSED'})"
    print(f"cold run      {cold:7.2f} s{verdict}")
    print(f"no-op re-run  {noop:7.2f} s   (target < 5 s: {'ok' if noop < 5 else 'MISSED'})")
    print(f"dry run       {dry:7.2f} s")
    if args.report:
        print(f"report, --report-after-run (figures + report)  {after_run:7.2f} s")
        print(f"report alone                                   {alone:7.2f} s")


def fmt_load(load: tuple[float, float, float]) -> str:
    return " / ".join(f"{x:.1f}" for x in load)


if __name__ == "__main__":
    main()
