"""scievals.abdev.metrics.weighted_recall: tie-robust top-10 % recall over resample weights."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scievals.abdev.metrics import tie_robust_recall, weighted_recall


def test_weights_by_hand():
    # 10 rows, k = int(10 * 0.1) = 1: the true top is row 9, the predicted top row 9 -> 1
    true = np.arange(10.0)
    pred = np.arange(10.0)
    assert weighted_recall(pred, true, np.ones((1, 10), dtype=int)).tolist() == [1.0]
    # row 9 dropped and row 8 twice (10 rows in all): the top value 8 has two copies that
    # tie for k = 1 place in both rankings, each in with probability 1/2:
    # E|T & P| = 2 copies * 1/2 * 1/2 = 0.5 -> recall 0.5
    w = np.array([[1, 1, 1, 1, 1, 1, 1, 1, 2, 0]])
    assert weighted_recall(pred, true, w).tolist() == [0.5]
    # fewer than 10 rows: k = 0, undefined
    assert np.isnan(weighted_recall(pred, true, np.array([[1] * 9 + [0]]))[0])


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10_000), st.integers(10, 60))
def test_equals_tie_robust_recall_on_the_repeated_rows(seed, n):
    rng = np.random.default_rng(seed)
    true = rng.integers(0, 8, n).astype(float)  # many ties
    pred = true + rng.integers(0, 4, n)
    weights = rng.integers(0, 3, (3, n))
    got = weighted_recall(pred, true, weights)
    for w, value in zip(weights, got):
        rows = np.repeat(np.arange(n), w)
        if int(len(rows) * 0.1) == 0:
            assert np.isnan(value)
        else:
            assert value == pytest.approx(tie_robust_recall(true[rows], pred[rows]), abs=1e-12)


def test_recall_interval_is_never_zero_width():
    from scievals.abdev.metrics import _cluster_ci
    from scievals.stats.intervals import ess_quantile

    rng = np.random.default_rng(0)
    true = rng.normal(size=50)
    clusters = np.arange(50) // 2
    # predictions opposite to the truth: no hit in any resample, bootstrap [0, 0]; widened to
    # Wilson's [0, z^2 / (K + z^2)] with K = int(50 * 0.1) = 5 top places, z = t(0.975, 20)
    low, high = _cluster_ci([(-true, true, clusters)], "top_10_recall",
                            {"n_resamples": 200, "seed": 0})
    z2 = float(ess_quantile(5)) ** 2
    assert low == 0.0 and high == pytest.approx(z2 / (5 + z2))
