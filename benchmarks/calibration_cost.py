"""Time the calibration rows of one arm and the comparisons' calibration set metrics.

Usage: python benchmarks/calibration_cost.py [--arms 12] [--cases 15] [--units 25]
    [--resamples 1000]

An arm is ``cases`` cases of ``units`` gates (seeded confidences and outcomes) in a
per-prediction frame with the ``units`` column, as the gating score step writes it. Prints the
CPU seconds of ``condition_items`` (every calibration row with its cluster-bootstrap interval)
per arm, and of the paired comparisons of ``arms`` arms (``set_metrics`` + the engine).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from scievals.common.experiments import Unit
from scievals.stats.calibration_rows import condition_items, encode, set_metrics
from scievals.stats.comparisons import comparison_table


def frame(rng, arms: int, cases: int, units: int) -> pd.DataFrame:
    rows = []
    for arm in range(arms):
        for case in range(cases):
            conf = rng.random(units).round(2)
            right = rng.random(units) < conf
            rows.append({"model": "m", "condition": f"c{arm}", "case_id": f"case{case}",
                         "sample_index": 0,
                         "units": encode(Unit(f"g{k}", bool(r), float(c))
                                         for k, (r, c) in enumerate(zip(right, conf)))})
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arms", type=int, default=12)
    parser.add_argument("--cases", type=int, default=15)
    parser.add_argument("--units", type=int, default=25)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args(argv)
    boot = {"n_resamples": args.resamples, "seed": 0}
    data = frame(np.random.default_rng(0), args.arms, args.cases, args.units)
    one = data[data["condition"] == "c0"]
    start = time.process_time()
    condition_items(one, boot)
    per_arm = time.process_time() - start
    start = time.process_time()
    pairs = comparison_table("gating", set_metrics(data, "d", boot), boot)
    compare = time.process_time() - start
    print(f"calibration rows: {per_arm:.2f} CPU-s per arm ({args.cases} cases x {args.units} "
          f"units, {args.resamples} resamples)")
    print(f"calibration comparisons: {compare:.2f} CPU-s for {args.arms} arms "
          f"({len(pairs)} pairs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
