"""Time the run logs and the Every Eval Ever export (issue 35), in CPU-seconds.

Usage: python benchmarks/run_logs_export.py [--items 1000] [--own-files 100] [--skip-workflow]

1. export: EEE records of ``--items`` synthetic gating items (one model, one condition, the
   default run's 14 gating metrics), built, checked against the schemas (what `export eee`
   does before writing) and written; CPU-seconds per item;
2. the end-of-run keep (scievals.interop.runlogs.keep_run) after the default run, in a copy
   of the workflow, then after the same run with ``--own-files`` abdev prediction files
   dropped in; and a no-op re-run, which must add no log (Snakemake calls no end-of-run
   hook when nothing is to be done).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))

import pandas as pd  # noqa: E402
import yaml  # noqa: E402

from scievals.interop import eee, runlogs  # noqa: E402
from support.workflow_copy import copy_workflow  # noqa: E402

METRICS = ["hierarchy_f1", "hierarchy_precision", "hierarchy_recall", "synonym_f1",
           "structure_accuracy", "structure_coverage", "critical_gate_recall",
           "hallucination_rate", "depth_accuracy", "parse_success_rate", "task_failure_rate",
           "hierarchy_f1_reference", "structure_accuracy_reference",
           "hallucination_rate_reference"]


def synthetic(items: int) -> tuple[pd.DataFrame, dict]:
    rows = pd.DataFrame([{
        "benchmark": "gating", "dataset": "synthetic", "dataset_sha256": "0" * 64,
        "model": "gpt", "condition": "standard_direct", "metric": m, "value": 0.5,
        "ci_low": 0.4, "ci_high": 0.6, "n": items, "ci_method": "wilson-ess",
        "scievals_version": "0.1.0", "git_commit": "bench", "config_hash": "0" * 12}
        for m in METRICS])
    samples = [{"benchmark": "gating", "model": "gpt", "item": f"case-{i:05d}",
                "condition": "standard_direct", "input": "## Panel\n" + "CD3, CD4, CD8 " * 20,
                "reply": "All Events\n  Singlets\n    Live\n" * 10, "parse_status": "ok",
                "outcome": "scored", "metrics": {m: 0.5 for m in METRICS}, "rationale": "",
                "expected": "All Events\n  Singlets\n" * 12, "score": 0.5,
                "score_name": "hierarchy_f1", "tokens_in": 400, "tokens_out": 300,
                "cost_usd": 0.001, "latency_s": 1.2} for i in range(items)]
    return rows, {("gating", "gpt"): samples}


def time_export(items: int) -> None:
    rows, samples = synthetic(items)
    models = {"gpt": {"provider": "openai", "model": "gpt-4o-mini"}}
    facts = eee.RunFacts(retrieved_timestamp="1764300000", run_id="bench", n_resamples=1000)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.process_time()
        [made] = eee.build_records(rows, samples, models, facts)
        built = time.process_time()
        found = eee.problems(made.aggregate, made.instances, str(made.aggregate_path))
        checked = time.process_time()
        paths = eee.write_record(made, tmp)
        written = time.process_time()
        size = sum(p.stat().st_size for p in paths)
    assert not found, found[:3]
    total = written - start
    print(f"export of {items} items: build {built - start:.3f} s, schema check "
          f"{checked - built:.3f} s, write {written - checked:.3f} s; total {total:.3f} "
          f"CPU-s = {total / items * 1000:.2f} ms per item ({size / items / 1000:.1f} kB/item)")


def snakemake(workdir: Path, *args: str) -> float:
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="benchmark",
               PYTHONPATH=str(workdir / "scripts"))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", *args],
                          cwd=workdir, env=env, capture_output=True, text=True, check=False)
    if proc.returncode:
        sys.exit(f"snakemake failed:\n{proc.stderr[-3000:]}")
    return time.perf_counter() - start


def time_keep(workdir: Path, label: str) -> None:
    """keep_run on the results as they stand (the kept logs set aside first)."""
    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    shutil.rmtree(workdir / "results" / "runs", ignore_errors=True)
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        start, wall = time.process_time(), time.perf_counter()
        kept = runlogs.keep_run("results", config["benchmarks"], None, config)
        cpu, wall = time.process_time() - start, time.perf_counter() - wall
    finally:
        os.chdir(cwd)
    run = runlogs.list_runs(workdir / "results" / "runs")[-1]
    items = sum(e["items"] for e in run["records"])
    print(f"keep_run, {label}: {cpu:.2f} CPU-s ({wall:.2f} s wall) for {len(run['records'])} "
          f"records, {items} items, {run['bytes'] / 1e6:.2f} MB ({kept.name})")


def time_workflow(own_files: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = copy_workflow(ROOT, Path(tmp) / "scievals")
        snakemake(work, "results/summary.csv")
        time_keep(work, "default run")
        before = len(runlogs.list_runs(work / "results" / "runs"))
        noop = snakemake(work, "results/summary.csv")
        after = len(runlogs.list_runs(work / "results" / "runs"))
        print(f"no-op re-run: {noop:.2f} s, kept runs {before} -> {after}")
        own = work / "predictions" / "abdev"
        own.mkdir(parents=True, exist_ok=True)
        source = work / "results" / "abdev" / "predictions" / "random.csv"
        for i in range(own_files):
            shutil.copyfile(source, own / f"own_{i:03d}.csv")
        snakemake(work, "results/summary.csv")
        time_keep(work, f"default run + {own_files} own abdev files")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--own-files", type=int, default=100)
    parser.add_argument("--skip-workflow", action="store_true")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    time_export(args.items)
    if not args.skip_workflow:
        time_workflow(args.own_files)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
