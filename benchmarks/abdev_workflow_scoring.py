"""CPU cost of scoring bring-your-own abdev files through the workflow (target <= 0.5 CPU-s per file).

Usage (from the repository root):

    python benchmarks/abdev_workflow_scoring.py [--files 100] [--cores 2] [--keep DIR]

Copies the workflow to a temporary folder, writes ``--files`` prediction files
(noisy variants of the ridge baseline's out-of-fold predictions on the embedded
GDPa1-demo) into ``predictions/abdev/``, runs the download step, then times
``snakemake --cores N`` building every ``results/abdev/scores/<model>.csv``. CPU
seconds are those of snakemake and all its jobs (``RUSAGE_CHILDREN``), so they
include Python start-up and imports in every job; wall time depends on the
machine's load. ``--keep DIR`` copies the score tables there, so two versions of
the code can be compared value by value.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))  # support.workflow_copy

from scievals.abdev.constants import DEFAULT_FOLD_COL, PROPERTY_LIST
from scievals.abdev.data import DEMO_CSV
from scievals.abdev.predict import predict_ridge_descriptors
from support.timed_run import timed_run
from support.workflow_copy import copy_workflow

CONFIG = """\
benchmarks: [abdev]
abdev:
  source: demo
  models: [random]
"""


def write_predictions(folder: Path, count: int) -> list[str]:
    """``count`` files: ridge predictions plus seeded noise of growing size."""
    folder.mkdir(parents=True)
    base = predict_ridge_descriptors(pd.read_csv(DEMO_CSV), DEFAULT_FOLD_COL, 42)
    rng = np.random.default_rng(0)
    names = []
    for i in range(count):
        variant = base.copy()
        for prop in PROPERTY_LIST:
            scale = variant[prop].std() * (i % 10) / 5
            variant[prop] = variant[prop] + rng.normal(scale=scale, size=len(variant))
        names.append(f"byo_{i:03d}")
        variant.to_csv(folder / f"{names[-1]}.csv", index=False)
    return names


def snakemake(work: Path, cores: str, targets: list[str], extra: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (snakemake plus every job it started) of one run."""
    cmd = [sys.executable, "-m", "snakemake", *targets, "--cores", cores, "--configfile", "bench.yaml", *extra]
    return timed_run(cmd, work, dict(os.environ, SCIEVALS_GIT_COMMIT="benchmark"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--cores", default="2")
    parser.add_argument("--keep", type=Path, help="copy the score tables to this folder")
    parser.add_argument("--snakemake-args", default="", help="extra snakemake flags, e.g. '--scheduler greedy'")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "scievals"
        copy_workflow(ROOT, work)
        (work / "bench.yaml").write_text(CONFIG, encoding="utf-8")
        names = write_predictions(work / "predictions" / "abdev", args.files)
        extra = args.snakemake_args.split()
        snakemake(work, args.cores, ["data/raw/abdev/source.json"], extra)
        targets = [f"results/abdev/scores/{name}.csv" for name in names]
        wall, cpu = snakemake(work, args.cores, targets, extra)
        # Snakemake's benchmark files: CPU of the score jobs alone (import jobs and scheduling
        # excluded; psutil samples a job's CPU while it runs, so its last moments are missed).
        score_tsvs = list((work / "logs/benchmarks").glob("abdev_score*/*.tsv"))
        score_cpu = sum(pd.read_csv(path, sep="\t")["cpu_time"].sum() for path in score_tsvs)
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for name in names:
                for suffix in (".csv", ".reference.csv"):
                    shutil.copy(work / "results/abdev/scores" / f"{name}{suffix}", args.keep)
    per_file = cpu / args.files
    verdict = "ok" if per_file <= 0.5 else "MISSED"
    print(f"{args.files} bring-your-own abdev files scored with snakemake --cores {args.cores} {args.snakemake_args}")
    print(f"wall {wall:7.1f} s   CPU {cpu:7.1f} s   CPU per file {per_file:.2f} s "
          f"(target <= 0.5: {verdict})")
    print(f"of which {len(score_tsvs)} score jobs {score_cpu:7.1f} s ({score_cpu / args.files:.2f} s per file; "
          "the rest is snakemake itself and the abdev_import_own_<k> copies)")


if __name__ == "__main__":
    main()
