"""paired_jackknife_tests: the comparisons' test of two arms that scored different items."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scievals.stats.paired import paired_jackknife_tests


def test_jackknife_variance_by_hand():
    # arm b's leave-outs are 0, so D = arm a's: stratum 0 has 0.50, 0.52, 0.48 (mean 0.50,
    # squared deviations 0 + 0.0004 + 0.0004 = 0.0008, k = 3: 2/3 * 0.0008 = 0.000533333);
    # stratum 1 has 0.60, 0.64 and a cluster not on these rows (NaN: k = 2, mean 0.62,
    # 1/2 * 0.0008 = 0.0004). s^2 = 0.000933333, s = 0.0305505; a point difference 0.05 gives
    # z = 1.636634, p = erfc(z / sqrt 2), interval 0.05 -+ 1.959964 s = [-0.009878, 0.109878]
    leave_out = np.array([[0.50, 0.52, 0.48, 0.60, 0.64, np.nan],
                          [0.0, 0.0, 0.0, 0.0, 0.0, np.nan]])
    strata = np.array([0, 0, 0, 1, 1, 1])
    s = math.sqrt(2 / 3 * 0.0008 + 0.0004)
    result = paired_jackknife_tests(np.array([0.05, 0.0]), leave_out, strata, [0], [1], n=40,
                                    label="jack", span=2.0)
    assert result.diff[0] == pytest.approx(0.05)
    assert result.p_value[0] == pytest.approx(math.erfc(0.05 / s / math.sqrt(2)), rel=1e-9)
    assert (result.ci_low[0], result.ci_high[0]) == pytest.approx(
        (0.05 - 1.959963985 * s, 0.05 + 1.959963985 * s), rel=1e-8)
    assert result.ci_low[0] == pytest.approx(-0.009878, abs=1e-6)
    # mdd = (z(0.975) + z(0.8)) s = (1.959964 + 0.841621) * 0.0305505
    assert result.mdd[0] == pytest.approx(2.801585 * s, rel=1e-6)
    assert result.method[0] == "jack (normal)" and result.n[0] == 40
    # the stratum centring matters: one stratum of all five values would give another s
    pooled = paired_jackknife_tests(np.array([0.05, 0.0]), leave_out[:, :5], np.zeros(5),
                                    [0], [1], n=40, label="jack", span=2.0)
    assert pooled.ci_high[0] != pytest.approx(result.ci_high[0])


def test_identical_arms_get_p_1_and_an_interval_that_is_not_zero_width():
    leave_out = np.array([[0.5, 0.52, 0.48], [0.5, 0.52, 0.48]])
    result = paired_jackknife_tests(np.array([0.5, 0.5]), leave_out, np.zeros(3), [0], [1],
                                    n=30, label="jack", span=2.0)
    # Wilson's bound of a share never seen in 30 items, times the span: 2 z^2 / (30 + z^2)
    h = 2 * 1.959964**2 / (30 + 1.959964**2)
    assert result.p_value[0] == 1.0
    assert (result.ci_low[0], result.ci_high[0]) == pytest.approx((-h, h), rel=1e-6)


def test_untestable_metric_has_an_interval_but_no_p():
    leave_out = np.array([[0.4, 0.5, 0.45], [0.1, 0.12, 0.2]])
    result = paired_jackknife_tests(np.array([0.45, 0.15]), leave_out, np.zeros(3), [0], [1],
                                    n=30, label="jack", span=1.0, testable=False)
    assert np.isnan(result.p_value[0]) and np.isnan(result.mdd[0])
    assert result.ci_low[0] < 0.3 < result.ci_high[0]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(2, 30))
def test_p_below_005_exactly_when_the_interval_excludes_0(seed, clusters):
    rng = np.random.default_rng(seed)
    strata = np.sort(rng.integers(0, 3, clusters))  # clusters of three folds
    level = rng.normal(0, 0.05, 4)  # each arm's own
    leave_out = level[:, None] + rng.normal(0, 0.02, (4, clusters)).round(3)
    leave_out[:, rng.random(clusters) < 0.1] = np.nan  # clusters not on the common rows
    leave_out[3] = leave_out[0]  # a copy: every difference 0
    ia, ib = np.triu_indices(4, 1)
    result = paired_jackknife_tests(level, leave_out, strata, ia, ib, n=50, label="x",
                                    span=2.0)
    tested = np.isfinite(result.p_value)
    excluded = (result.ci_low > 0) | (result.ci_high < 0)
    assert np.array_equal(result.p_value[tested] < 0.05, excluded[tested])
    assert np.all(result.ci_low[tested] < result.ci_high[tested])  # never zero-width
    assert np.all(result.ci_low[tested] <= result.diff[tested] + 1e-12)
    assert np.all(result.diff[tested] <= result.ci_high[tested] + 1e-12)


def test_spearman_of_many_columns_at_once_equals_one_at_a_time():
    # the jackknife computes every arm on one set of rows in one call; with integer-valued
    # weights (leave-outs, resample counts) the numbers are those of one column at a time,
    # ties included (column 3 has a tie, column 4 is rounded to a few values)
    from scievals.stats.intervals import weighted_spearman

    rng = np.random.default_rng(4)
    x = rng.normal(size=(8, 40))
    x[3, 5] = x[3, 7]
    x[4] = np.round(x[4])
    y = rng.normal(size=40)
    y[2] = y[9]
    codes = rng.integers(0, 12, 40)
    for weights in (rng.poisson(1.0, (50, 40)).astype(float),
                    np.vstack([np.ones(40), codes != np.arange(12)[:, None]]).astype(float)):
        many = weighted_spearman(x, y, weights)
        assert many.shape == (8, len(weights))
        assert np.array_equal(many, np.stack([weighted_spearman(c, y, weights) for c in x]))
    # and the leave-one-cluster-out values are Spearman's on the rows left
    from scipy import stats
    left = weighted_spearman(x, y, (codes != 0)[None, :].astype(float))[:, 0]
    keep = codes != 0
    assert left == pytest.approx([stats.spearmanr(c[keep], y[keep]).statistic for c in x])
