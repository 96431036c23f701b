"""scievals.common.paired / stats / comparisons against scipy and hand-worked numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scievals.common.paired import (
    holm,
    mcnemar_exact,
    min_detectable_difference,
    newcombe_paired_interval,
    paired_bootstrap,
    paired_means,
)
from scievals.common.stats import (
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
    from scievals.common.paired import critical_values

    for n in range(2, 200):
        assert critical_values("paired t", n) == (float(stats.t.ppf(0.975, n - 1)),
                                                  float(stats.t.ppf(0.80, n - 1)))
    for method, n in (("exact McNemar", 17), ("paired cluster bootstrap (percentile)", 246),
                      ("paired t", 1)):
        assert critical_values(method, n) == (float(stats.norm.ppf(0.975)),
                                              float(stats.norm.ppf(0.80)))
