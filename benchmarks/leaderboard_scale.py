"""Leaderboard scale: CPU cost of the workflow with many own prediction files (issue 28).

Usage (from the repository root):

    python benchmarks/leaderboard_scale.py [--abdev 10,100,300,1000] [--gating 50] [--cores 2]
    python benchmarks/leaderboard_scale.py --abdev 10,100 --gating 0    # a quick run
    python benchmarks/leaderboard_scale.py --abdev 10000 --dry-run-only  # the DAG alone
    python benchmarks/leaderboard_scale.py --abdev 100,300 --gating 0 --partial 0.25

For each size: copies the workflow to a temporary folder, writes that many own abdev files
(the ridge baseline's out-of-fold predictions on the embedded GDPa1-demo plus seeded noise of
ten sizes, so the arms differ; with ``--partial S`` a share S of them skip antibodies, each file
its own random set of 5-25 % (``--skip``)), makes the truth, then times ``snakemake abdev``
cold, and again after adding one more (complete) file. ``--gating N`` does the same for N own
gating files, each with predictions under the six conditions (three contexts x two strategies,
docs/gating.md): the marker baseline's hierarchies with a seeded share of their gates dropped.

Printed per size: the own files, the arms (own files + baselines), wall and CPU seconds of the
run (snakemake and every job it started, ``RUSAGE_CHILDREN``), CPU seconds per own file, the
comparisons job's CPU seconds (Snakemake's ``benchmark:`` file,
logs/benchmarks/comparisons/<b>.tsv; psutil samples a job while it runs, so its last moments
are missed), the jobs the added file re-ran, the dry run's CPU seconds (building the DAG), cold
and again with every output up to date (when Snakemake compares every job's params), and the
CPU seconds of hashing every own file's bytes for the import rules' ``own_sha256`` params.
Then the growth exponent: the log-log slope of each cost against the number of own files (1 =
linear). Wall time depends on the machine's load; CPU seconds much less.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))  # support.workflow_copy, support.timed_run

from scievals.abdev.constants import DEFAULT_FOLD_COL, PROPERTY_LIST
from scievals.abdev.data import DEMO_CSV
from scievals.abdev.predict import predict_ridge_descriptors
from support.timed_run import timed_run
from support.workflow_copy import copy_workflow

BASELINES = {"abdev": 2, "gating": 1}  # the default config's models of each benchmark
CONFIG = {
    "abdev": "benchmarks: [abdev]\nabdev:\n  source: demo\n",
    "gating": "benchmarks: [gating]\ngating:\n  source: demo\n",
}
CONTEXTS = ("minimal", "standard", "rich")
STRATEGIES = ("direct", "cot")
PLANNED_JOB = re.compile(r"^\s*(?:local)?rule (\w+):", re.MULTILINE)


@dataclass
class Size:
    benchmark: str
    files: int
    cold_wall: float = 0.0
    cold_cpu: float = 0.0
    comparisons_cpu: float = float("nan")
    dry_cpu: float = 0.0
    noop_cpu: float = float("nan")  # snakemake -n with every output up to date
    hash_cpu: float = float("nan")  # the import rules' own_sha256 params, in this process
    added_cpu: float = 0.0
    added_jobs: str = ""
    partial: int = 0  # own files that skip antibodies

    @property
    def arms(self) -> int:
        return self.files + BASELINES[self.benchmark]


def abdev_files(folder: Path, names: list[str], seed: int, partial: float = 0.0,
                skip: tuple[float, float] = (0.05, 0.25)) -> int:
    """Own abdev files: ridge predictions plus seeded noise, ten noise sizes in turn. A share
    ``partial`` of them (seeded choice) skip antibodies, as real leaderboard entries do: each
    drops its own random set, every antibody with a probability drawn from ``skip``.
    Returns how many files skip."""
    folder.mkdir(parents=True, exist_ok=True)
    base = predict_ridge_descriptors(pd.read_csv(DEMO_CSV), DEFAULT_FOLD_COL, 42)
    spread = {prop: base[prop].std() for prop in PROPERTY_LIST}
    rng = np.random.default_rng(seed)
    # its own generator: the files' noise is the same with and without skipping files
    skips = np.random.default_rng([seed, 1])
    skipping = set(skips.choice(len(names), round(partial * len(names)), replace=False).tolist())
    for i, name in enumerate(names):
        variant = base.copy()
        for prop in PROPERTY_LIST:
            noise = rng.normal(scale=spread[prop] * (i % 10) / 5, size=len(variant))
            variant[prop] = variant[prop] + noise
        if i in skipping:
            variant = variant[skips.random(len(variant)) >= skips.uniform(*skip)]
        variant.to_csv(folder / f"{name}.csv", index=False)
    return len(skipping)


def _pruned(node: dict, rng: np.random.Generator, drop: float) -> dict:
    children = [_pruned(c, rng, drop) for c in node.get("children", [])
                if rng.random() >= drop]
    return {"name": node["name"], "markers": node.get("markers", []), "children": children}


def gating_files(folder: Path, names: list[str], baseline: Path, seed: int) -> None:
    """Own gating files: every case under the six conditions, the marker baseline's
    hierarchy with a share of its gates dropped (0 to 45 %, by arm)."""
    folder.mkdir(parents=True, exist_ok=True)
    cases = [json.loads(line) for line in baseline.read_text().splitlines() if line.strip()]
    cases = [case for case in cases if case.get("hierarchy")]
    rng = np.random.default_rng(seed)
    for i, name in enumerate(names):
        lines = []
        for case in cases:
            for context in CONTEXTS:
                for strategy in STRATEGIES:
                    tree = _pruned(case["hierarchy"], rng, drop=(i % 10) / 20)
                    lines.append(json.dumps({"case_id": case["case_id"],
                                             "condition": f"{context}_{strategy}",
                                             "hierarchy": tree}))
        (folder / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def snakemake(work: Path, cores: str, *args: str) -> tuple[float, float]:
    cmd = [sys.executable, "-m", "snakemake", *args, "--cores", cores,
           "--configfile", "bench.yaml"]
    return timed_run(cmd, work, dict(os.environ, SCIEVALS_GIT_COMMIT="benchmark"))


def planned_jobs(work: Path, cores: str, target: str) -> Counter:
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "snakemake", target, "-n", "--cores", cores,
                           "--configfile", "bench.yaml"], cwd=work, capture_output=True,
                          text=True, check=True, env=dict(os.environ, SCIEVALS_GIT_COMMIT="x"))
    return Counter(PLANNED_JOB.findall(proc.stdout))


def comparisons_cpu(work: Path, benchmark: str) -> float:
    path = work / "logs" / "benchmarks" / "comparisons" / f"{benchmark}.tsv"
    return float(pd.read_csv(path, sep="\t")["cpu_time"].sum()) if path.is_file() else float("nan")


def own_hash_cpu(own: Path, names: list[str]) -> float:
    """CPU seconds of the own_sha256 params every import job carries (each file's bytes hashed
    once per parse that builds its job: scievals.common.workflow.own_content); NaN on a
    checkout without them."""
    try:
        from scievals.common.workflow import own_files_sha256
    except ImportError:
        return float("nan")
    files = sorted(str(path) for path in own.iterdir())
    start = time.process_time()
    for first in range(0, len(files), 100):  # a batch's files at a time, as the rules ask
        own_files_sha256(files[first:first + 100])
    return time.process_time() - start


def measure(benchmark: str, files: int, cores: str, dry_run_only: bool, partial: float = 0.0,
            skip: tuple[float, float] = (0.05, 0.25)) -> Size:
    size = Size(benchmark, files)
    with tempfile.TemporaryDirectory(prefix="leaderboard_scale.") as tmp:
        work = copy_workflow(ROOT, Path(tmp) / "scievals")
        (work / "bench.yaml").write_text(CONFIG[benchmark], encoding="utf-8")
        names = [f"own_{i:05d}" for i in range(files)]
        own = work / "predictions" / benchmark
        if benchmark == "abdev":
            snakemake(work, cores, "data/raw/abdev/source.json")
            size.partial = abdev_files(own, names, seed=0, partial=partial, skip=skip)
        else:
            snakemake(work, cores, "results/gating/predictions/marker_baseline.jsonl")
            gating_files(own, names, work / "results/gating/predictions/marker_baseline.jsonl",
                         seed=0)
        size.hash_cpu = own_hash_cpu(own, names)
        # building the DAG (snakemake -n), then the cold run, then one file more
        size.dry_cpu = snakemake(work, cores, benchmark, "-n")[1]
        if dry_run_only:
            return size
        size.cold_wall, size.cold_cpu = snakemake(work, cores, benchmark)
        size.comparisons_cpu = comparisons_cpu(work, benchmark)
        # up to date: Snakemake compares every job's params, own_sha256 among them
        size.noop_cpu = snakemake(work, cores, benchmark, "-n")[1]
        if benchmark == "abdev":
            abdev_files(own, ["own_added"], seed=1)
        else:
            gating_files(own, ["own_added"], work / "results/gating/predictions/"
                         "marker_baseline.jsonl", seed=1)
        plan = planned_jobs(work, cores, benchmark)
        size.added_jobs = ", ".join(f"{rule} x{n}" if n > 1 else rule
                                    for rule, n in sorted(plan.items()))
        size.added_cpu = snakemake(work, cores, benchmark)[1]
    return size


def slope(xs: list[float], ys: list[float]) -> float:
    """The log-log slope (growth exponent) of ys against xs; NaN with fewer than two points."""
    pairs = [(x, y) for x, y in zip(xs, ys, strict=True) if x > 0 and y > 0 and np.isfinite(y)]
    if len(pairs) < 2:
        return float("nan")
    logx, logy = np.log([p[0] for p in pairs]), np.log([p[1] for p in pairs])
    return float(np.polyfit(logx, logy, 1)[0])


def sizes(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give comma-separated counts, e.g. 10,100")
    if any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"{text!r}: counts must be >= 0")
    return [v for v in values if v > 0]


def skip_range(text: str) -> tuple[float, float]:
    try:
        low, high = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give two shares, e.g. 0.05,0.25")
    if not 0 <= low <= high < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give 0 <= low <= high < 1")
    return (low, high)


def share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a share between 0 and 1, e.g. 0.25")
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a share between 0 and 1, e.g. 0.25")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--abdev", type=sizes, default=[10, 100, 300, 1000],
                        help="own abdev file counts (default 10,100,300,1000)")
    parser.add_argument("--gating", type=sizes, default=[50],
                        help="own gating file counts, six conditions each (default 50; 0: none)")
    parser.add_argument("--cores", default="2")
    parser.add_argument("--dry-run-only", action="store_true",
                        help="time only `snakemake -n` (building the DAG)")
    parser.add_argument("--partial", type=share, default=0.0,
                        help="share of the own abdev files that skip antibodies (default 0)")
    parser.add_argument("--skip", type=skip_range, default=(0.05, 0.25),
                        help="a skipping file leaves out each antibody with a probability "
                             "drawn from this range (default 0.05,0.25)")
    args = parser.parse_args()

    results = []
    for benchmark, counts in (("abdev", args.abdev), ("gating", args.gating)):
        for files in counts:
            start = time.perf_counter()
            size = measure(benchmark, files, args.cores, args.dry_run_only, args.partial,
                           args.skip)
            results.append(size)
            if args.dry_run_only:
                print(f"{benchmark} {files} own files: snakemake -n {size.dry_cpu:.1f} CPU-s; "
                      f"own_sha256 params {size.hash_cpu:.2f} CPU-s", flush=True)
                continue
            skipping = f", {size.partial} skip antibodies" if size.partial else ""
            print(f"{benchmark} {files} own files{skipping} ({size.arms} arms): cold "
                  f"{size.cold_wall:.0f} s "
                  f"wall, {size.cold_cpu:.1f} CPU-s = {size.cold_cpu / files:.3f} CPU-s per own "
                  f"file; comparisons job {size.comparisons_cpu:.1f} CPU-s; snakemake -n "
                  f"{size.dry_cpu:.1f} CPU-s (up to date: {size.noop_cpu:.1f}; own_sha256 params "
                  f"{size.hash_cpu:.2f}); one file added: {size.added_cpu:.1f} CPU-s, "
                  f"re-ran {size.added_jobs} ({time.perf_counter() - start:.0f} s in all)",
                  flush=True)
    for benchmark in ("abdev", "gating"):
        rows = [r for r in results if r.benchmark == benchmark]
        if len(rows) < 2:
            continue
        files = [r.files for r in rows]
        parts = [f"snakemake -n {slope(files, [r.dry_cpu for r in rows]):.2f}"]
        if not args.dry_run_only:
            comparisons = slope([r.arms for r in rows], [r.comparisons_cpu for r in rows])
            parts = [f"whole target {slope(files, [r.cold_cpu for r in rows]):.2f}",
                     f"comparisons job {comparisons:.2f} (against arms)", *parts]
        print(f"{benchmark} growth exponent (log-log slope against own files; 1 = linear): "
              + ", ".join(parts))


if __name__ == "__main__":
    main()
