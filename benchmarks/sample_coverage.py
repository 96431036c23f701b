"""Coverage of the tables' interval on the k-sample rows (best-of-k, consensus, consensus
gain, within-item SD, agreement) at the benchmarks' sizes, on simulated items with a known
true value.

Run from the repository root:

    PYTHONPATH=scripts python benchmarks/sample_coverage.py [--reps 2000]

Each item has a latent chance ``p`` (drawn per shape), each of its k samples passes with
chance ``p`` and scores 1, else a partial score (Beta(2, 5)) or 0; the derived per-item
values are formed as ``scievals.stats.samples`` forms them (the consensus of k answers is
the majority answer: it passes when more than half of the samples pass, else it scores the
median failing sample), and each row's interval is the one the tables use
(``bounded_mean_interval`` inside the declared range from ``derived_ranges``; for the
consensus gain the paired test's interval, ``paired_mean_tests``, as ``gain_rows`` uses). The true
value of each row is the mean over 400,000 simulated items. One line per (shape, k, n, row):

    coverage: <shape> k=<k> n=<n> <row> <fraction> +- <MC error>

and the script exits 1 when a fraction falls below 0.93 beyond its MC error, except for the
cells in KNOWN_DIPS. The figures are in docs/experiment-dimensions.md (about 18 minutes on
a shared 2-core machine at the default 2,000 draws).
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings

import numpy as np
from scievals.stats.intervals import bounded_mean_interval, metric_range
from scievals.stats.paired import paired_mean_tests
from scievals.stats.samples import derived_ranges

SHAPES = {
    # latent pass chance per item
    "spread (Beta(1,1))": lambda rng, size: rng.beta(1, 1, size),
    "mostly sure (70 % p=1, else Beta(2,2))": lambda rng, size: np.where(
        rng.random(size) < 0.7, 1.0, rng.beta(2, 2, size)),
    "near-deterministic (90 % p in {0,1})": lambda rng, size: np.where(
        rng.random(size) < 0.9, (rng.random(size) < 0.6).astype(float), rng.beta(2, 2, size)),
    "hard (Beta(0.5,3))": lambda rng, size: rng.beta(0.5, 3, size),
}
# Cells known to fall below 0.93, and why (docs/experiment-dimensions.md): printed, not failed.
KNOWN_DIPS = {("hard (Beta(0.5,3))", "m_consensus"):
              "half the items at 0, a rare 1: the mean of a few lumpy values"}
ROWS = ("m", "m_best_of_k", "m_consensus", "m_consensus_gain", "m_within_sd",
        "sample_agreement")


def items(rng, shape: str, size: int, k: int) -> dict[str, np.ndarray]:
    """Per-item values of every row for ``size`` items of k samples."""
    p = SHAPES[shape](rng, size)
    passed = rng.random((size, k)) < p[:, None]
    partial = np.where(rng.random((size, k)) < 0.5, rng.beta(2, 5, (size, k)), 0.0)
    scores = np.where(passed, 1.0, partial)
    majority = passed.sum(axis=1) * 2 > k
    failing = np.where(passed, np.nan, scores)
    with warnings.catch_warnings():  # an item whose samples all passed has no failing one
        warnings.simplefilter("ignore", RuntimeWarning)
        fallback = np.nan_to_num(np.nanmedian(failing, axis=1))
    consensus = np.where(majority, 1.0, fallback)
    mean = scores.mean(axis=1)
    # agreement: the Jaccard index of one-key answers is 1 when both pass or both fail alike
    same = passed[:, :, None] == passed[:, None, :]
    pairs = k * (k - 1) / 2
    agreement = (same.sum(axis=(1, 2)) - k) / 2 / pairs
    return {"m": mean, "m_best_of_k": scores.max(axis=1), "m_consensus": consensus,
            "m_consensus_gain": consensus - mean, "m_within_sd": scores.std(axis=1, ddof=1),
            "sample_agreement": agreement}


def gain_holds(pair: np.ndarray, truth: float) -> bool:
    """Whether the consensus gain's interval (as ``scievals.stats.samples.gain_rows`` builds
    it: the paired test of consensus against the mean, range [0, 1]) holds ``truth``."""
    tests = paired_mean_tests(pair, np.array([0]), np.array([1]), span=1.0)
    return bool(tests.ci_low[0] <= truth <= tests.ci_high[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(43)
    ranges = derived_ranges({"*": (0.0, 1.0)}, ["m"])
    failed = False
    for shape in SHAPES:
        for k in (3, 5):
            truth = {row: float(v.mean()) for row, v in items(rng, shape, 400_000, k).items()}
            for n in (15, 17):
                draws = items(rng, shape, args.reps * n, k)
                for row in ROWS:
                    low, high = metric_range(ranges, row)
                    values = draws[row].reshape(args.reps, n)
                    if row == "m_consensus_gain":  # the paired test's interval (gain_rows)
                        pairs = np.stack([draws["m_consensus"].reshape(args.reps, n),
                                          draws["m"].reshape(args.reps, n)], axis=-1)
                        hits = sum(gain_holds(pair, truth[row]) for pair in pairs)
                    else:
                        hits = 0
                        for sample in values:
                            lo, hi = bounded_mean_interval(sample, low, high)
                            hits += lo <= truth[row] <= hi
                    f = hits / args.reps
                    err = 1.96 * math.sqrt(f * (1 - f) / args.reps)
                    flag = "" if f + err >= 0.93 else "  BELOW 0.93"
                    if flag and (shape, row) in KNOWN_DIPS:
                        flag = f"  known dip: {KNOWN_DIPS[(shape, row)]}"
                    failed |= "BELOW" in flag
                    print(f"coverage: {shape} k={k} n={n} {row} {f:.3f} +- {err:.3f}{flag}",
                          flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
