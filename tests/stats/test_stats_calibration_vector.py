"""The calibration statistics over bootstrap replicates at once (stats.calibration.weighted)
equal, to the bit, the statistic computed on each replicate's units repeated: the AUROC
against scipy.stats.mannwhitneyu (an independent implementation), the rank statistics
against the one-sample functions run on the expanded data."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scievals.stats import calibration as C
from scipy.stats import mannwhitneyu


def _shapes():
    """(confidences, outcomes, replicate weights): ties (confidences rounded to one or two
    decimals, or a handful of levels), all-right / all-wrong replicates, empty replicates."""
    rng = np.random.default_rng(46)
    for case in range(40):
        n = int(rng.integers(1, 80))
        if case % 4 == 0:
            c = rng.choice([0.5, 0.7, 0.9, 1.0], n)  # a few stated levels, as LLMs do
        else:
            c = np.round(rng.random(n), 1 + case % 2)
        y = (rng.random(n) < rng.uniform(0.05, 0.95)).astype(float)
        w = rng.integers(0, 4, (25, n))
        w[0] = 0  # an empty replicate
        yield c, y, w


def _scipy_auroc(c, y):
    right, wrong = c[y == 1], c[y == 0]
    if not right.size or not wrong.size:
        return math.nan
    u = mannwhitneyu(right, wrong, alternative="two-sided", method="asymptotic").statistic
    return float(u / (right.size * wrong.size))


def _same(got, want):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    return bool(np.all((got == want) | (np.isnan(got) & np.isnan(want))))


def test_auroc_of_every_replicate_is_scipys_to_the_bit():
    checked = 0
    for c, y, w in _shapes():
        want = [_scipy_auroc(np.repeat(c, row), np.repeat(y, row)) for row in w]
        assert _same(C.weighted("calibration_auroc", c, y, w), want)
        assert _same(C.auroc(c, y), _scipy_auroc(c, y))
        checked += np.isfinite(want).sum()
    assert checked > 500  # most replicates have both right and wrong units


def test_auroc_worked_example_with_weights():
    # units (0.9 right) x2, (0.6 right), (0.6 wrong) x3, (0.2 wrong): right 0.9, 0.9, 0.6;
    # wrong 0.6, 0.6, 0.6, 0.2. Pairs 3 x 4 = 12: each 0.9 beats all 4 (8), the 0.6 ties
    # three (1.5) and beats one (1): U = 10.5, AUROC = 10.5 / 12 = 0.875
    c, y = np.array([0.9, 0.6, 0.6, 0.2]), np.array([1.0, 1.0, 0.0, 0.0])
    assert C.weighted("calibration_auroc", c, y, [[2, 1, 3, 1]])[0] == 10.5 / 12


@pytest.mark.parametrize("metric", ["selective_precision@50", "selective_precision@80", "aurc"])
def test_rank_statistics_of_every_replicate_equal_the_expanded_data(metric):
    for c, y, w in _shapes():
        want = [C.POINT[metric](np.repeat(c, row), np.repeat(y, row)) if row.sum()
                else math.nan for row in w]
        assert _same(C.weighted(metric, c, y, w), want), metric


def test_aurc_in_chunks_equals_one_pass(monkeypatch):
    c, y, w = next(_shapes())
    whole = C.weighted("aurc", c, y, w)
    monkeypatch.setattr(C, "AURC_CHUNK", 7)  # a chunk per replicate or two
    assert _same(C.weighted("aurc", c, y, w), whole)
