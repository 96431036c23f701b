"""The most power any test can have against an all-or-nothing arm at 0.9 vs a steady one at 0.8.

Run from the repository root:

    PYTHONPATH=scripts python benchmarks/power_bound.py [--bins 560]

The alternative of `benchmarks/interval_coverage.py`'s power lines: arm a passes each of n
cases with probability 0.9 (0 or 1), arm b scores each around 0.8 (Beta, mean 0.8,
concentration 30). A test that holds its level must hold it on every null of that shape,
a at mean mu vs b steady at mu, for every mu. What the two arms say about the difference
is a's pass count X ~ Binomial(n, p) and b's mean M (about normal, mean mu, variance
mu (1 - mu) / 31 / n). The best test of the data (X, M) is the solution of a linear program:
choose a rejection probability phi(x, m) in [0, 1] per pass count and bin of M to maximise
the rejection rate under the alternative, subject to a rejection rate of at most alpha under
each null mu on a grid from 0.30 to 0.99. Its optimum bounds the power of every test that
uses (X, M) and holds alpha on these nulls, randomized tests included; the project's test
sees more nulls (exchangeable arms, other shapes), so its bound is no higher. One line per
(alpha, n): the bound and the rejection rule's share that falls on X = n.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from scipy import optimize, stats

ALTERNATIVE = (0.9, 0.8)  # (a's pass rate, b's steady mean)
CONCENTRATION = 30.0


def steady_mean_bins(mu: float, n: int, edges: np.ndarray) -> np.ndarray:
    sd = np.sqrt(mu * (1 - mu) / (CONCENTRATION + 1) / n)
    return np.diff(stats.norm.cdf(edges, mu, sd))


def joint(p: float, mu: float, n: int, edges: np.ndarray) -> np.ndarray:
    """P(X = x, M in bin j), flattened x-major."""
    return np.outer(stats.binom.pmf(np.arange(n + 1), n, p),
                    steady_mean_bins(mu, n, edges)).ravel()


def bound(n: int, alpha: float, bins: int) -> tuple[float, float]:
    edges = np.linspace(0.25, 1.0, bins + 1)
    nulls = np.arange(0.30, 0.9901, 0.0025)
    constraints = np.array([joint(mu, mu, n, edges) for mu in nulls])
    power = joint(*ALTERNATIVE, n, edges)
    result = optimize.linprog(-power, A_ub=constraints, b_ub=np.full(len(nulls), alpha),
                              bounds=(0, 1), method="highs")
    if result.status != 0:
        raise RuntimeError(f"linear program failed: {result.message}")
    phi = result.x.reshape(n + 1, bins)
    on_all_pass = float((phi[n] * power.reshape(n + 1, bins)[n]).sum())
    return -float(result.fun), on_all_pass


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bins", type=int, default=560, help="bins of the steady arm's mean")
    args = parser.parse_args(argv)
    for alpha in (0.05, 0.06):
        for n in (10, 15, 17):
            best, all_pass = bound(n, alpha, args.bins)
            print(f"best power: alpha {alpha}, n={n}: {best:.3f} "
                  f"(of which {all_pass:.3f} when all {n} cases pass)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
