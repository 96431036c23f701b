"""Speed of abdev scoring (targets: reference scoring of one 246-row file < 50 ms per mode).

Run from the repository root:

    PYTHONPATH=scripts python benchmarks/abdev_scoring.py [--repeats 30] [--files 100] [--resamples 1000]

It scores the ridge baseline's out-of-fold predictions on the embedded GDPa1-demo
(246 rows, the same shape as GDPa1) in-process and prints wall-clock and CPU
times: the reference API in both modes (``GDPa1`` and ``GDPa1_cross_validation``),
the extended table with bootstrap CIs, the whole ``score_to_tables`` step, and
validating + scoring 100 prediction files. Wall-clock times on a shared machine
vary with its load; CPU times vary less.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scievals.abdev.constants import DEFAULT_FOLD_COL, PROPERTY_LIST
from scievals.abdev.data import DEMO_CSV, fetch_gdpa1
from scievals.abdev.metrics import extended_table, reference_rows
from scievals.abdev.predict import predict_ridge_descriptors
from scievals.abdev.score import evaluate_model, merge, read_inputs, score_to_tables
from scievals.abdev.validate import validate_prediction_file
from scievals.stats.intervals import SHARED


def timed(fn, repeats: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of ``repeats`` calls (after one warm-up call)."""
    fn()
    wall, cpu = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return wall, cpu


def report(label: str, wall: list[float], cpu: list[float], unit: float = 1e3, suffix: str = "ms") -> None:
    print(
        f"{label:<58} median {statistics.median(wall) * unit:8.1f} {suffix} wall "
        f"(min {min(wall) * unit:.1f}), median {statistics.median(cpu) * unit:8.1f} {suffix} CPU"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        truth = pd.read_csv(DEMO_CSV)
        pred = tmp / "ridge.csv"
        predict_ridge_descriptors(truth, DEFAULT_FOLD_COL, 42).to_csv(pred, index=False)
        print(f"truth: {DEMO_CSV.name} ({len(truth)} rows, {DEMO_CSV.stat().st_size:,} bytes); "
              f"predictions: ridge_descriptors, {len(PROPERTY_LIST)} assays\n")

        for mode in ("GDPa1", "GDPa1_cross_validation"):
            wall, cpu = timed(lambda m=mode: evaluate_model(pred, DEMO_CSV, "ridge", m, DEFAULT_FOLD_COL),
                              args.repeats)
            report(f"evaluate_model, dataset={mode}", wall, cpu)

        wall, cpu = timed(lambda: validate_prediction_file(pred, DEMO_CSV), args.repeats)
        report("validate_prediction_file (with truth checks)", wall, cpu)

        preds, truth_frame, _ = read_inputs(pred, DEMO_CSV, DEFAULT_FOLD_COL)
        merged, props = merge(preds, truth_frame, pred, DEMO_CSV, DEFAULT_FOLD_COL)
        rows = reference_rows(merged, props, "ridge", "GDPa1_cross_validation", DEFAULT_FOLD_COL)
        wall, cpu = timed(lambda: extended_table(merged, props, DEFAULT_FOLD_COL, rows, args.resamples, 0), 3)
        report(f"extended_table, {args.resamples} bootstrap resamples", wall, cpu)

        source = tmp / "source" / "source.json"
        fetch_gdpa1({"source": "demo"}, tmp / "source" / "GDPa1.csv", tmp / "source" / "heldout.csv", source)
        def score_once():
            score_to_tables(
                pred, tmp / "source" / "GDPa1.csv", source, "ridge", DEFAULT_FOLD_COL, 5,
                {"n_resamples": args.resamples, "seed": 0}, "bench", tmp / "scores.csv",
                tmp / "reference.csv")

        # a file alone (nothing shared yet), and a further file of a batch: the batch's cluster
        # resamples and the truth's half of each statistic are already computed (stats.SHARED)
        wall, cpu = timed(lambda: (SHARED.clear(), score_once()), 3)
        report(f"score_to_tables (validate + reference + CIs, {args.resamples})", wall, cpu)
        wall, cpu = timed(score_once, 3)
        report("  the same as a further file of a batch", wall, cpu)

        # Many prediction files: noisy variants of the ridge predictions.
        rng = np.random.default_rng(0)
        base = pd.read_csv(pred)
        files = []
        for i in range(args.files):
            variant = base.copy()
            for prop in PROPERTY_LIST:
                scale = variant[prop].std()
                variant[prop] = variant[prop] + rng.normal(scale=scale * (i % 10) / 5, size=len(variant))
            path = tmp / f"model_{i:03d}.csv"
            variant.to_csv(path, index=False)
            files.append(path)

        def score_all():
            for path in files:
                assert validate_prediction_file(path, DEMO_CSV).ok
                evaluate_model(path, DEMO_CSV, path.stem, "GDPa1_cross_validation", DEFAULT_FOLD_COL)

        wall, cpu = timed(score_all, 1)
        report(f"{args.files} files: validate + evaluate_model (CV)", wall, cpu, unit=1.0, suffix="s ")


if __name__ == "__main__":
    main()
