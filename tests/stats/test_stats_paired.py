"""scievals.stats.paired / stats / comparisons against scipy and hand-worked numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scievals.stats.paired import (
    holm,
    mcnemar_exact,
    min_detectable_difference,
    newcombe_paired_interval,
    paired_bootstrap,
    paired_means,
)
from scievals.stats.intervals import (
    cluster_bootstrap,
    cluster_counts,
    expanded,
    mean_interval,
    metric_means,
    pass_at_k,
    pass_hat_k,
    t_interval,
    weighted_spearman,
    wilson_interval,
)
from scipy import stats

BOOT = {"n_resamples": 2000, "seed": 0, "method": "auto"}


def test_holm_by_hand():
    # sorted: 0.01 * 3 = 0.03; 0.03 * 2 = 0.06; 0.04 * 1 = 0.04 -> max(0.06, 0.04) = 0.06
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    # NaN is not a test, so m = 2: 0.2 * 2 = 0.4; 0.6 * 1 = 0.6
    out = holm([0.6, math.nan, 0.2])
    assert out[0] == pytest.approx(0.6) and math.isnan(out[1]) and out[2] == pytest.approx(0.4)
    # capped at 1: 0.6 * 2 = 1.2 -> 1; 0.7 * 1 = 0.7 -> max(1, 0.7) = 1
    assert holm([0.7, 0.6]) == [1.0, 1.0]


def test_wilson_by_hand_and_scipy():
    # k = 3, n = 10, z = 1.959964, z^2 = 3.841459: centre (0.3 + z^2/20) / (1 + z^2/10)
    # = 0.492073 / 1.384146 = 0.355506; half width z * sqrt(0.3*0.7/10 + z^2/400) / 1.384146
    # = 1.959964 * sqrt(0.030604) / 1.384146 = 0.247715
    low, high = wilson_interval(3, 10)
    assert (low, high) == pytest.approx((0.355506 - 0.247715, 0.355506 + 0.247715), abs=1e-5)
    ci = stats.binomtest(3, 10).proportion_ci(0.95, method="wilson")
    assert (low, high) == (ci.low, ci.high)


def test_t_interval_by_hand():
    # values 1, 2, 3, 4: mean 2.5, sd = sqrt(5/3) = 1.29099, se = 0.645497,
    # t(0.975, 3) = 3.182446 -> half width 2.054260
    assert t_interval([1, 2, 3, 4]) == pytest.approx((2.5 - 2.054260, 2.5 + 2.054260), abs=1e-5)
    assert mean_interval([1, 2, 3, 4], BOOT)[2] == "t"
    low, high, method = mean_interval([1, 2, 3, 4, 9], {**BOOT, "method": "bca"})
    ref = stats.bootstrap(([1.0, 2, 3, 4, 9],), np.mean, n_resamples=2000, method="BCa",
                          rng=np.random.default_rng(0)).confidence_interval
    assert method == "bca" and (low, high) == pytest.approx((ref.low, ref.high))


def test_metric_means_keep_the_value_and_say_the_method():
    [item] = metric_means({"f1": [0.2, 0.4, 0.6, math.nan]}, BOOT)
    assert item["value"] == pytest.approx(0.4) and item["n"] == 3
    assert item["ci_method"] == "t"
    # 0.2, 0.4, 0.6: sd 0.2, se 0.11547, t(0.975, 2) = 4.302653 -> +- 0.496828
    assert (item["ci_low"], item["ci_high"]) == pytest.approx((0.4 - 0.496828, 0.4 + 0.496828),
                                                              abs=1e-5)


def test_pass_at_k_by_hand():
    # n = 5 trials, c = 2 passes, k = 2: pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10 = 0.7,
    # pass^2 = C(2,2)/C(5,2) = 1/10
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_hat_k(5, 2, 2) == pytest.approx(0.1)
    # k = 1 is the plain pass rate c / n
    assert pass_at_k(5, 2, 1) == pass_hat_k(5, 2, 1) == pytest.approx(0.4)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def test_paired_means_is_scipy_ttest_rel():
    a = [0.5, 0.7, 0.2, 0.9, 0.4, 0.6]
    b = [0.4, 0.5, 0.3, 0.6, 0.4, 0.2]
    result = paired_means(a, b)
    test = stats.ttest_rel(a, b)
    ci = test.confidence_interval(0.95)
    # differences 0.1, 0.2, -0.1, 0.3, 0, 0.4: mean 0.9 / 6 = 0.15
    assert result.diff == pytest.approx(0.15)
    assert (result.p_value, result.ci_low, result.ci_high) == pytest.approx(
        (test.pvalue, ci.low, ci.high))
    # constant non-zero differences on 5 items: exact sign-flip p = 2 / 2^5 = 0.0625
    constant = paired_means([1, 2, 3, 4, 5], [0, 1, 2, 3, 4])
    assert constant.p_value == pytest.approx(0.0625) and constant.diff == 1.0
    assert paired_means([1, 2], [1, 2]).p_value == 1.0


def test_mcnemar_exact_by_hand():
    # 10 tasks: a passes 6 that b fails, b passes 1 that a fails, 3 agree
    a = [1, 1, 1, 1, 1, 1, 0, 1, 0, 0]
    b = [0, 0, 0, 0, 0, 0, 1, 1, 0, 0]
    result = mcnemar_exact(a, b)
    # discordant 7, n10 = 6: two-sided binomial p = 2 * P(X >= 6 | 7, 1/2) = 2 * 8/128 = 0.125
    assert result.p_value == pytest.approx(0.125)
    assert result.diff == pytest.approx((6 - 1) / 10)
    assert result.ci_low <= 0.5 <= result.ci_high
    same = mcnemar_exact([1, 0, 1], [1, 0, 1])
    assert same.p_value == 1.0 and same.diff == 0.0
    with pytest.raises(ValueError, match="0 or 1"):
        mcnemar_exact([0.5, 1], [1, 1])


def test_newcombe_interval_by_hand():
    # Altman et al., Statistics with confidence, table 6.2: n11 = 14, n10 = 5, n01 = 0,
    # n00 = 22 (n = 41). p_a = 19/41 = 0.463415, p_b = 14/41 = 0.341463, d = 5/41 = 0.121951.
    # B = 14 * 22 - 5 * 0 = 308 > n/2 = 20.5 -> C = 287.5; A = 19 * 22 * 14 * 27 = 158004,
    # phi = 287.5 / 397.4969 = 0.723276.
    l1, u1 = wilson_interval(19, 41)
    l2, u2 = wilson_interval(14, 41)
    pa, pb, d, phi = 19 / 41, 14 / 41, 5 / 41, 287.5 / math.sqrt(158004)
    assert phi == pytest.approx(0.723276, abs=1e-6)
    low = d - math.sqrt((pa - l1) ** 2 - 2 * phi * (pa - l1) * (u2 - pb) + (u2 - pb) ** 2)
    high = d + math.sqrt((u1 - pa) ** 2 - 2 * phi * (u1 - pa) * (pb - l2) + (pb - l2) ** 2)
    assert newcombe_paired_interval(14, 5, 0, 22) == pytest.approx((low, high))
    assert low < d < high and 0 < low  # 5 discordant pairs all one way
    # B < 0 keeps phi = B / sqrt(A); 0 <= B <= n/2 makes phi 0 (then the Wilson widths add in
    # quadrature): n11 = 1, n10 = 2, n01 = 2, n00 = 5 -> B = 5 - 4 = 1 <= 5
    l1, u1 = wilson_interval(3, 10)
    assert newcombe_paired_interval(1, 2, 2, 5) == pytest.approx(
        (-math.hypot(0.3 - l1, u1 - 0.3), math.hypot(u1 - 0.3, 0.3 - l1)))


def test_cluster_bootstrap_resamples_whole_clusters():
    # Two strata; rows of one cluster share a value, so a replicate's mean of all rows can
    # only combine whole clusters. Stratum 1: clusters {0, 0} and {1, 1}; stratum 2: {5, 5}
    # and {7}.
    values = [np.array([0.0, 0.0, 1.0, 1.0]), np.array([5.0, 5.0, 7.0])]
    codes = [np.array([0, 0, 1, 1]), np.array([0, 0, 1])]

    def mean_of_rows(weights):
        total = sum((w * v).sum(axis=1) for w, v in zip(weights, values))
        return total / sum(w.sum(axis=1) for w in weights)

    low, high, dist = cluster_bootstrap(mean_of_rows, codes, {"n_resamples": 300, "seed": 1,
                                                               "method": "percentile"})
    # every possible replicate: 2 draws per stratum; e.g. {0,0} twice and {5,5} twice:
    # (0 * 4 + 5 * 4) / 8 = 2.5
    possible = set()
    for s1 in ([0, 0], [0, 1], [1, 1]):
        for s2 in ([5, 5], [5, 7], [7, 7]):
            rows = sum(([0, 0] if c == 0 else [1, 1] for c in s1), []) + \
                sum(([5, 5] if c == 5 else [7] for c in s2), [])
            possible.add(round(float(np.mean(rows)), 12))
    assert {round(v, 12) for v in dist} <= possible
    assert len({round(v, 12) for v in dist}) > 3  # clusters really are resampled
    assert low <= high


def test_cluster_counts_and_expanded():
    counts = cluster_counts(np.array([[0, 0, 2], [1, 2, 2]]), 3)
    assert counts.tolist() == [[2, 0, 1], [0, 1, 2]]
    # rows 0..2 repeated 2, 0, 1 times -> positions [0, 0, 2]
    assert expanded(lambda idx: idx.sum(axis=1), counts).tolist() == [2.0, 5.0]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weighted_spearman_is_scipy_on_the_repeated_rows(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 6, 30).astype(float)  # many ties
    y = x + rng.normal(0, 2, 30)
    weights = rng.integers(0, 3, (5, 30))
    got = weighted_spearman(x, y, weights)
    for w, value in zip(weights, got):
        rows = np.repeat(np.arange(30), w)
        assert value == pytest.approx(stats.spearmanr(x[rows], y[rows]).statistic, abs=1e-12)


def test_paired_bootstrap_of_identical_arms_is_zero():
    true = np.arange(20.0)
    pred = true + np.sin(true)
    codes = [np.arange(20)]

    def stat(weights):
        return weighted_spearman(pred, true, weights[0])

    result = paired_bootstrap(stat, stat, codes, {"n_resamples": 200, "seed": 0}, 20,
                              "paired cluster bootstrap")
    assert result.diff == 0.0 and result.p_value == 1.0


def test_min_detectable_difference_from_the_interval():
    # normal: CI [-0.1, 0.1] -> SE = 0.1 / 1.959964 = 0.051021; MDD = (1.959964 + 0.841621)
    # * 0.051021 = 0.142940
    assert min_detectable_difference(-0.1, 0.1, "exact McNemar", 10) == pytest.approx(0.142940,
                                                                                        abs=1e-5)
    # paired t, n = 15: t(0.975, 14) = 2.144787 and t(0.8, 14) = 0.868209 replace the normal
    se = 0.1 / stats.t.ppf(0.975, 14)
    expected = (stats.t.ppf(0.975, 14) + stats.t.ppf(0.8, 14)) * se
    assert min_detectable_difference(-0.1, 0.1, "paired t", 15) == pytest.approx(expected)


def test_critical_values_are_scipy_stats_quantiles_to_the_last_bit():
    """critical_values uses scipy.special (no scipy.stats import in a comparisons job): the
    same numbers as stats.t.ppf / stats.norm.ppf, exactly, for every item count we meet."""
    from scievals.stats.paired import critical_values

    for n in range(2, 200):
        assert critical_values("paired t", n) == (float(stats.t.ppf(0.975, n - 1)),
                                                  float(stats.t.ppf(0.80, n - 1)))
    for method, n in (("exact McNemar", 17), ("paired cluster bootstrap (percentile)", 246),
                      ("paired t", 1)):
        assert critical_values(method, n) == (float(stats.norm.ppf(0.975)),
                                              float(stats.norm.ppf(0.80)))


# --- the engine's vectorised tests (issue 27) -------------------------------------------

from itertools import combinations as _combinations
from itertools import product as _product

from hypothesis import example, given, settings
from hypothesis import strategies as st
from scievals.stats.paired import (
    mcnemar_mdd,
    paired_mean_tests,
    paired_pass_fail_tests,
    paired_set_tests,
    sign_flip,
    sign_flip_mdd_factor,
)


def test_sign_flip_p_by_enumeration():
    # d = 1, 2, 3, 4: of the 16 sign patterns only the observed one has sum >= 10, and only
    # all-minus has sum <= -10 -> two-sided p = 2 * 1/16 = 0.125
    # d = 1, -2, 3, 4 (sum 6): flipping subset S lowers the sum by 2 sum_S d, so patterns with
    # sum >= 6 are S = {} and the S with sum_S d <= 0: {-2}, {1, -2} -> 3 of 16; p = 6/16
    p, low, high = sign_flip(np.array([[1.0, 2, 3, 4], [1, -2, 3, 4]]), span=10)
    assert p.tolist() == [0.125, 0.375]
    # k = floor(16 * 0.025) = 0: n = 4 cannot reject, the interval is the whole range
    assert low.tolist() == [-10, -10] and high.tolist() == [10, 10]


def test_sign_flip_interval_is_the_subset_mean_order_statistics():
    # n = 3 at alpha = 0.5: k = floor(8 * 0.25) = 2. Subset means of 1, 2, 6:
    # 1, 2, 6, 1.5, 3.5, 4, 3 -> sorted 1, 1.5, 2, 3, 3.5, 4, 6: 2nd smallest 1.5,
    # 2nd largest 4 (Hartigan 1969)
    p, low, high = sign_flip(np.array([[1.0, 2, 6]]), span=10, alpha=0.5)
    assert (low[0], high[0]) == (1.5, 4.0)
    # n = 6 at 5 %: k = floor(64 / 40) = 1 -> [min d, max d]; all positive -> p = 2/64
    p, low, high = sign_flip(np.array([[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]]), span=1)
    assert p[0] == pytest.approx(2 / 64) and (low[0], high[0]) == pytest.approx((0.1, 0.6))


def _reference_sign_flip(d, alpha=0.05):
    """Slow reference: every sign pattern and every subset, with itertools."""
    n = len(d)
    observed = sum(d)
    sums = [sum(s * x for s, x in zip(signs, d)) for signs in _product((1, -1), repeat=n)]
    up = sum(1 for t in sums if t >= observed - 1e-9) / 2**n
    down = sum(1 for t in sums if t <= observed + 1e-9) / 2**n
    p = min(1.0, 2 * min(up, down))
    means = sorted(sum(c) / len(c) for r in range(1, n + 1) for c in _combinations(d, r))
    k = int(2**n * alpha / 2)
    return p, (means[k - 1] if k else None), (means[-k] if k else None)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0])
                # sums within 1e-9 of 0 count as 0 by design (rounding): no values that small
                | st.floats(-1, 1).filter(lambda x: x == 0 or abs(x) > 1e-6),
                min_size=1, max_size=9))
def test_sign_flip_matches_the_slow_reference(d):
    p, low, high = sign_flip(np.array([d]), span=1.0)
    ref_p, ref_low, ref_high = _reference_sign_flip(d)
    assert p[0] == pytest.approx(ref_p)
    if ref_low is not None and (p[0] < 0.05 or ref_low <= 0):
        assert low[0] == pytest.approx(ref_low) and high[0] == pytest.approx(ref_high)


def _random_values(rng, items, arms, kind):
    if kind == "binary":
        values = rng.integers(0, 2, (items, arms)).astype(float)
    else:
        values = np.where(rng.random((items, arms)) < 0.3, 1.0, rng.random((items, arms)))
    values[rng.random((items, arms)) < 0.15] = np.nan
    return values


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 17), st.integers(2, 5))
def test_paired_means_vectorised_equals_one_pair_at_a_time(seed, items, arms):
    rng = np.random.default_rng(seed)
    values = _random_values(rng, items, arms, "lumpy")
    ia, ib = np.triu_indices(arms, 1)
    together = paired_mean_tests(values, ia, ib, span=1.0, seed=3)
    for j, (a, b) in enumerate(zip(ia, ib)):
        alone = paired_mean_tests(values, [a], [b], span=1.0, seed=3)
        for field in ("n", "value_a", "value_b", "diff", "ci_low", "ci_high", "p_value", "mdd"):
            assert np.allclose(getattr(together, field)[j], getattr(alone, field)[0],
                               equal_nan=True), field
        both = np.isfinite(values[:, a]) & np.isfinite(values[:, b])
        assert together.n[j] == both.sum()
        if both.any():
            assert together.diff[j] == pytest.approx(np.mean(values[both, a] - values[both, b]))


def _check_contract(result, span):
    tested = np.isfinite(result.p_value)
    significant = result.p_value[tested] < 0.05
    excluded = (result.ci_low[tested] > 0) | (result.ci_high[tested] < 0)
    assert np.array_equal(significant, excluded)
    seen = result.n > 0
    assert np.all(result.ci_low[seen] < result.ci_high[seen])  # never zero-width
    assert np.all(result.ci_low[seen] >= -span) and np.all(result.ci_high[seen] <= span)
    assert np.all(result.ci_low[seen] <= result.diff[seen] + 1e-12)
    assert np.all(result.diff[seen] <= result.ci_high[seen] + 1e-12)
    assert np.all(np.isnan(result.p_value[~seen]))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(1, 17), st.sampled_from(["binary", "lumpy"]))
@example(327, 6, "binary")  # every difference -300 on an unbounded metric: once [-300, -300]
def test_p_below_005_exactly_when_the_interval_excludes_0(seed, items, kind):
    rng = np.random.default_rng(seed)
    values = _random_values(rng, items, 4, kind)
    values[:, 3] = values[:, 0]  # a copy: every difference 0
    ia, ib = np.triu_indices(4, 1)
    _check_contract(paired_mean_tests(values, ia, ib, span=1.0), 1.0)
    _check_contract(paired_mean_tests(values * 100, ia, ib, span=100.0), 100.0)
    # no upper bound (autogkb's reference score): the sign-flip test alone, same contract
    _check_contract(paired_mean_tests(values * 300, ia, ib, span=math.inf), math.inf)
    if kind == "binary":
        _check_contract(paired_pass_fail_tests(values, ia, ib), 1.0)


def test_paired_means_small_n_and_copies():
    values = np.array([[0.2, 0.9, 0.2], [np.nan, 0.5, np.nan], [np.nan, 0.1, np.nan]])
    result = paired_mean_tests(values, [0, 1, 0], [1, 2, 2], span=1.0)
    assert result.n.tolist() == [1, 1, 1]
    assert result.p_value.tolist() == [1.0, 1.0, 1.0]  # one item: the sign-flip p is 1
    assert np.isinf(result.mdd).all()  # n <= 5 cannot reach 0.05
    none = paired_mean_tests(np.array([[np.nan, 1.0]]), [0], [1], span=1.0)
    assert none.n[0] == 0 and np.isnan(none.p_value[0]) and np.isnan(none.ci_low[0])
    # a copy over 15 items: p = 1 and an interval around 0 that is not zero-width
    copy = np.tile(np.linspace(0.1, 0.9, 15)[:, None], (1, 2))
    result = paired_mean_tests(copy, [0], [1], span=1.0)
    assert result.p_value[0] == 1.0 and result.ci_low[0] < 0 < result.ci_high[0]


def test_all_or_nothing_arm_that_happened_to_pass_everything_is_not_significant():
    # a passed all 15 cases (an arm that passes 90 % of the time does so with probability
    # 0.9^15 = 0.21); b scored 0.9 on each. Every difference is +0.1, so the sign-flip p is
    # 2 / 8192 (Monte-Carlo at 15 items: 8,191 subsets plus the observed), but a's own
    # bounded interval at 15/15 reaches down to 15 / (15 + z^2) = 0.844 (the one-sided
    # guard: z = t(0.95, 70) = 1.667) < 0.9: the guard keeps the pair from being called
    # different.
    values = np.column_stack([np.ones(15), np.full(15, 0.9)])
    result = paired_mean_tests(values, [0], [1], span=1.0)
    assert result.p_value[0] >= 0.05 and result.ci_low[0] < 0 < result.ci_high[0]
    # a steady gap the arms' own intervals also show is significant
    values = np.column_stack([np.full(15, 0.9), np.linspace(0.05, 0.3, 15)])
    result = paired_mean_tests(values, [0], [1], span=1.0)
    assert result.p_value[0] < 0.001 and result.ci_low[0] > 0


def test_mcnemar_vectorised_by_hand():
    # a passes 6 tasks b fails, b passes 1 a fails, 3 agree: p = 2 * P(X >= 6 | 7, 1/2)
    # = 2 * 8/128 = 0.125 (as mcnemar_exact)
    a = [1, 1, 1, 1, 1, 1, 0, 1, 0, 0]
    b = [0, 0, 0, 0, 0, 0, 1, 1, 0, 0]
    result = paired_pass_fail_tests(np.column_stack([a, b]).astype(float), [0], [1])
    assert result.p_value[0] == pytest.approx(0.125) and result.diff[0] == pytest.approx(0.5)
    assert result.ci_low[0] < 0 < result.ci_high[0]
    # 7 of 7 discordant one way: p = 2 / 128 = 0.015625; the Clopper-Pearson lower bound
    # of pi at 7/7 is 0.025^(1/7) = 0.590384 > 1/2, so the interval is above 0
    a, b = [1] * 7 + [0] * 3, [0] * 10
    result = paired_pass_fail_tests(np.column_stack([a, b]).astype(float), [0], [1])
    assert result.p_value[0] == pytest.approx(2 / 128) and result.ci_low[0] > 0
    with pytest.raises(ValueError, match="0 or 1"):
        paired_pass_fail_tests(np.array([[0.5, 1.0]]), [0], [1])


def test_mcnemar_interval_of_a_large_difference_by_hand():
    # 7 of 10 tasks discordant, all for a: d = psi q = 0.7 * 1. The share's 90 % Wilson
    # interval (z = 1.644854, z^2 = 2.705543): centre (14 + z^2) / (2 (10 + z^2)) = 0.657412,
    # half z / 25.411086 * sqrt(8.4 + z^2) = 0.215712 -> [0.441700, 0.873123]. The split:
    # pi_l = 0.025^(1/7) = 0.590384, q_l = 2 pi_l - 1 = 0.180767, q_u = 1.
    # high = 0.7 exp(sqrt(ln(1 / 1)^2 + ln(0.873123 / 0.7)^2)) = 0.873123 (the share alone:
    # the former product of ends gave the same); low = 0.7 exp(-sqrt(ln(1 / 0.180767)^2 +
    # ln(0.7 / 0.441700)^2)) = 0.7 exp(-sqrt(2.925969 + 0.212014)) = 0.7 * 0.170089
    # = 0.119062 (the former product q_l psi_l at 80 %: 0.180767 * 0.497 = 0.090)
    a, b = [1] * 7 + [0] * 3, [0] * 10
    result = paired_pass_fail_tests(np.column_stack([a, b]).astype(float), [0], [1])
    assert result.ci_high[0] == pytest.approx(0.873123, abs=2e-6)
    assert result.ci_low[0] == pytest.approx(0.119062, abs=2e-6)


def test_mcnemar_mdd_cannot_detect_with_five_tasks():
    # the smallest two-sided p with n tasks is 2 / 2^n: 0.0625 at 5, 0.03125 at 6
    assert all(math.isinf(mcnemar_mdd(n, m)) for n in range(1, 6) for m in range(n + 1))
    # at 6 tasks only 6 of 6 discordant one way rejects: with delta the share and pi = 1,
    # power = delta^6 >= 0.8 needs delta >= 0.8^(1/6) = 0.963492 -> 0.965 on the grid
    assert mcnemar_mdd(6, 0) == pytest.approx(0.965)
    assert math.isfinite(mcnemar_mdd(20, 5)) and mcnemar_mdd(20, 5) < mcnemar_mdd(10, 2)


def test_sign_flip_mdd_factor():
    assert math.isinf(sign_flip_mdd_factor(5)) and math.isinf(sign_flip_mdd_factor(1))
    # at n = 6 the test rejects only when all six differences are positive: for normal
    # differences with mean delta (sd 1), P(all > 0) = Phi(delta)^6 >= 0.8 needs
    # Phi(delta) >= 0.963492, delta = 1.793 (MC over 2,000 draws: within 0.15)
    assert sign_flip_mdd_factor(6) == pytest.approx(stats.norm.ppf(0.8 ** (1 / 6)), abs=0.15)
    # large n: close to the normal test's (1.96 + 0.84) / sqrt(n) = 0.679 at 17
    assert sign_flip_mdd_factor(17) == pytest.approx(2.80 / math.sqrt(17), rel=0.15)


def test_paired_set_tests_by_hand():
    # replicate differences 0.1 .. 0.5: sd (ddof 1) = sqrt((0.04 + 0.01 + 0 + 0.01 + 0.04) / 4)
    # = sqrt(0.025) = 0.158114; a point difference of 0.3 gives z = 0.3 / 0.158114 = 1.897367,
    # p = 2 Phi(-1.897367) = 0.057780, interval 0.3 -+ 1.959964 * 0.158114 = [-0.009898,
    # 0.609898] (holds 0: not significant)
    dist = np.vstack([np.linspace(0.1, 0.5, 5), np.zeros(5)])
    result = paired_set_tests(np.array([0.3, 0.0]), dist, [0], [1], n=50, label="x", span=2.0)
    assert result.p_value[0] == pytest.approx(0.057780, abs=1e-6)
    assert (result.ci_low[0], result.ci_high[0]) == pytest.approx((-0.009898, 0.609898),
                                                                  abs=1e-6)
    # mdd = (1.959964 + 0.841621) * 0.158114 = 0.442970
    assert result.mdd[0] == pytest.approx(0.442970, abs=1e-6)
    assert result.method[0] == "x (normal)"
    # a point difference of 0.4: z = 2.529822, p = 0.011412, interval [0.090102, 0.709898]
    result = paired_set_tests(np.array([0.4, 0.0]), dist, [0], [1], n=50, label="x", span=2.0)
    assert result.p_value[0] == pytest.approx(0.011412, abs=1e-6)
    assert (result.ci_low[0], result.ci_high[0]) == pytest.approx((0.090102, 0.709898),
                                                                  abs=1e-6)
    off = paired_set_tests(np.array([0.4, 0.0]), dist, [0], [1], n=50, label="x", span=2.0,
                           testable=False)
    assert np.isnan(off.p_value[0]) and np.isnan(off.mdd[0])
    assert off.ci_low[0] == pytest.approx(0.090102, abs=1e-6)
    # identical arms: p = 1 and not zero-width
    same = paired_set_tests(np.array([0.3, 0.3]), np.vstack([dist[0], dist[0]]), [0], [1],
                            n=50, label="x", span=2.0)
    assert same.p_value[0] == 1.0 and same.ci_low[0] < 0 < same.ci_high[0]
    # no floor: 1,000 resamples, yet a clear difference gets p far below 2 / 1001
    rng = np.random.default_rng(0)
    dist = np.vstack([rng.normal(0.5, 0.05, 1000), rng.normal(0.0, 0.05, 1000)])
    clear = paired_set_tests(np.array([0.5, 0.0]), dist, [0], [1], n=50, label="x", span=2.0)
    assert clear.p_value[0] < 1e-6


def test_paired_set_tests_variance_factor_by_hand():
    # the by-hand case above (sd 0.158114, d = 0.3) with s^2 times 1.2 (6 clusters per fold):
    # s = 0.158114 * sqrt(1.2) = 0.173205, z = 0.3 / 0.173205 = 1.732051,
    # p = 2 Phi(-1.732051) = 0.083265, interval 0.3 -+ 1.959964 * 0.173205 = 0.3 -+ 0.339476
    dist = np.vstack([np.linspace(0.1, 0.5, 5), np.zeros(5)])
    result = paired_set_tests(np.array([0.3, 0.0]), dist, [0], [1], n=50, label="x", span=2.0,
                              variance_factor=1.2)
    assert result.p_value[0] == pytest.approx(0.083265, abs=1e-6)
    assert (result.ci_low[0], result.ci_high[0]) == pytest.approx((-0.039476, 0.639476),
                                                                  abs=1e-6)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(20, 400))
def test_paired_set_tests_contract(seed, resamples):
    rng = np.random.default_rng(seed)
    arms = 4
    dist = rng.normal(rng.normal(0, 0.1, (arms, 1)), 0.05, (arms, resamples)).round(2)
    dist[rng.random(dist.shape) < 0.05] = np.nan
    point = np.nanmean(dist, axis=1) + rng.normal(0, 0.02, arms)
    ia, ib = np.triu_indices(arms, 1)
    _check_contract(paired_set_tests(point, dist, ia, ib, n=100, label="x", span=2.0), 2.0)


@pytest.mark.slow
def test_ten_thousand_pairs_at_once_equal_the_pairs_one_by_one():
    """Many pairs are tested in memory chunks; the chunks must not change a number (the
    speed is measured by benchmarks/, not here)."""
    rng = np.random.default_rng(0)
    values = np.where(rng.random((17, 200)) < 0.3, 1.0, rng.random((17, 200)))
    ia, ib = np.triu_indices(200, 1)
    ia, ib = ia[:10_000], ib[:10_000]
    result = paired_mean_tests(values, ia, ib, span=1.0)
    assert len(result.p_value) == 10_000
    for k in rng.choice(10_000, 20, replace=False):
        one = paired_mean_tests(values, ia[k:k + 1], ib[k:k + 1], span=1.0)
        assert (one.p_value[0], one.ci_low[0], one.ci_high[0]) == pytest.approx(
            (result.p_value[k], result.ci_low[k], result.ci_high[k]))


def test_constant_difference_on_an_unbounded_metric_is_never_zero_width():
    # six items, a scores 0 and b 300 on each (autogkb's reference score, no upper bound):
    # every difference is -300, the sign-flip p is 2 / 2^6 = 0.03125 and its interval is the
    # one subset mean -300 at both ends; the widening by Wilson's bound of a share never
    # seen, h = 300 z^2 / (6 + z^2), must survive (the spread seen, 300, is no bound on a
    # difference of an unbounded metric)
    values = np.column_stack([np.zeros(6), np.full(6, 300.0)])
    result = paired_mean_tests(values, [0], [1], span=math.inf)
    z2 = 1.959964**2
    assert result.p_value[0] == pytest.approx(2 / 64)
    assert result.ci_high[0] == pytest.approx(-300.0)
    assert result.ci_low[0] == pytest.approx(-300.0 - 300.0 * z2 / (6 + z2), rel=1e-6)


def test_mdd_of_a_copy_is_not_estimable_never_0():
    # two identical arms over 15 items: every difference 0, sd 0; the mdd factor * 0 = 0
    # would claim every difference detectable: NaN instead; a real pair keeps factor * sd
    base = np.linspace(0.1, 0.9, 15)
    other = base[::-1].copy()
    values = np.column_stack([base, base, other])
    result = paired_mean_tests(values, [0, 0], [1, 2], span=1.0)
    assert np.isnan(result.mdd[0])
    sd = np.std(base - other, ddof=1)
    assert result.mdd[1] == pytest.approx(sign_flip_mdd_factor(15) * sd)


def test_range_guard_is_one_sided_at_5_percent():
    # a all-or-nothing passed all 15 cases; b steady, 0.74..0.84 evenly (mean 0.79,
    # sum of squares 0.0142857 = 15 (0.1 / 14)^2 (15^2 - 1) / 12). d = 0.21 on average, every
    # difference positive: sign-flip p = 2 / 8192.
    # The guard is MOVER at 90 % (z = t(0.95, 5 * 14 = 70 df) = 1.66691; r = 0: a has no
    # spread). a at 1.0: Wilson's lower end 15 / (15 + z^2) = 15 / 17.77860 = 0.843711, so
    # a's half-width down is 0.156289. b: s^2 = (0.0142857 + 0.79 * 0.21) / 16 = 0.0112616,
    # n_eff = 15 * 0.1659 / 0.0112616 = 220.972; Wilson at n_eff: centre
    # (0.79 + z^2 / 441.944) / (1 + z^2 / 220.972) = 0.786411, half
    # z sqrt(0.1659 / 220.972 + z^2 / (4 * 220.972^2)) / 1.012574 = 0.045520, upper end
    # 0.831931, half-width up 0.041931. low = 0.21 - sqrt(0.156289^2 + 0.041931^2)
    # = 0.21 - 0.161816 = 0.048184 > 0: significant. The former two-sided 95 % guard
    # (z = 1.99444: a's lower end 0.790398) gave low = -0.0053, p >= 0.05.
    b = np.linspace(0.74, 0.84, 15)
    result = paired_mean_tests(np.column_stack([np.ones(15), b]), [0], [1], span=1.0)
    assert result.ci_low[0] == pytest.approx(0.048184, abs=2e-6)
    assert result.p_value[0] < 0.05


def test_studentized_sign_flip_is_the_sign_flip_test():
    # d = (0.5, 0.4, 0.3, 0.2, -0.1), sum 1.3: of the 32 sign patterns only the observed one
    # and the one flipping -0.1 (sum 1.5) have sum >= 1.3, so p = 2 * 2 / 32 = 0.125. Their
    # t statistics are also the two largest (sum d^2 = 0.55 is the same for every pattern,
    # so t = mean / sqrt((0.55 - 5 mean^2) / 20 / 5) grows with the mean): the studentized
    # p, counted by full enumeration, is the same 0.125, here and on random differences.
    import itertools

    def studentized_p(d):
        n = len(d)
        t = []
        for signs in itertools.product((1.0, -1.0), repeat=n):
            x = np.asarray(signs) * d
            t.append(x.mean() / (x.std(ddof=1) / math.sqrt(n)))
        t = np.asarray(t)
        observed = t[0]  # the all-plus pattern comes first
        up = np.count_nonzero(t >= observed - 1e-12) / len(t)
        down = np.count_nonzero(t <= observed + 1e-12) / len(t)
        return min(1.0, 2 * min(up, down))

    d = np.array([0.5, 0.4, 0.3, 0.2, -0.1])
    assert studentized_p(d) == pytest.approx(0.125)
    assert sign_flip(d[None, :], 1.0)[0][0] == pytest.approx(0.125)
    rng = np.random.default_rng(5)
    for _ in range(20):
        d = rng.normal(0.2, 1.0, 7)
        assert sign_flip(d[None, :], 10.0)[0][0] == pytest.approx(studentized_p(d))
