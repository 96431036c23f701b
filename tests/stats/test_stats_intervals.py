"""scievals.stats.intervals.means_by_condition: the per-condition aggregate gating and autogkb share."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scievals.stats.intervals import (
    bounded_mean_interval,
    cluster_variance_factor,
    means_by_condition,
)


def test_a_case_scored_in_several_samples_counts_once():
    frame = pd.DataFrame({
        "condition": ["cot", "cot", "cot", "direct", "direct"],
        "case_id": ["a", "a", "b", "a", "b"],
        "f1": [1.0, 0.0, 1.0, 0.25, math.nan],
    })
    out = means_by_condition(frame, ["f1"], {"n_resamples": 200, "seed": 0})
    assert list(out) == ["cot", "direct"]
    [cot, spread, within, between, gain] = out["cot"]
    # case a: (1 + 0) / 2 = 0.5, case b: 1 -> (0.5 + 1) / 2 = 0.75 (not the sample mean 2/3)
    assert cot["metric"] == "f1" and cot["value"] == 0.75 and cot["n"] == 2
    # t-interval of 0.5 and 1 (no range given): sd 0.353553, se 0.25, t(0.975, 1) = 12.706205
    assert (cot["ci_low"], cot["ci_high"]) == pytest.approx((0.75 - 3.176551, 0.75 + 3.176551))
    assert cot["ci_method"] == "t"
    # repeats: only case a has two samples, 1 and 0: sd (ddof 1) = sqrt(0.5) = 0.707107
    assert spread == {"metric": "f1:sample_sd", "value": pytest.approx(0.707107), "n": 1}
    # within variance 0.5; case means 0.5 and 1 vary by 0.125 (ddof 1), less the within part
    # they still carry, 0.5 * mean(1/2, 1/1) = 0.375 -> floored at 0; a second sample then
    # halves the within part: 0.5 / (2 * (0 + 0.5)) = 0.5
    assert within == {"metric": "f1:within_var", "value": pytest.approx(0.5), "n": 1}
    assert between == {"metric": "f1:between_var", "value": 0.0, "n": 2}
    assert gain == {"metric": "f1:second_sample_gain", "value": pytest.approx(0.5), "n": 2}
    # direct: case b has no finite value, so only case a's 0.25 counts
    [direct] = out["direct"]
    assert direct["value"] == 0.25 and direct["n"] == 1


def test_cluster_percentile_matches_scipy_bootstrap_to_the_last_digit():
    """The percentile path draws and interpolates itself (no scipy.stats import in a score
    job); it must give scipy.stats.bootstrap's numbers exactly, NaN replicates included."""
    import warnings

    import numpy as np
    from scievals.stats.intervals import cluster_bootstrap, cluster_counts
    from scipy import stats as sps

    rng = np.random.default_rng(3)
    for case in range(40):
        sizes = rng.integers(2, 30, size=rng.integers(1, 4))
        clusters = [rng.integers(0, k, size=k + rng.integers(0, 20)) for k in sizes]
        clusters = [np.unique(c, return_inverse=True)[1] for c in clusters]
        values = [rng.normal(size=len(c)).round(case % 3) for c in clusters]

        def statistic(weights):
            out = np.mean([(w * v).sum(axis=1) / w.sum(axis=1)
                           for w, v in zip(weights, values)], axis=0)
            if case % 5 == 0:
                out[out > 0.8] = np.nan  # some undefined replicates: the fallback interval
            return out

        bootstrap = {"n_resamples": int(rng.integers(10, 400)), "seed": case}
        low, high, dist = cluster_bootstrap(statistic, clusters, bootstrap)

        ks = [int(c.max()) + 1 for c in clusters]

        def on_codes(*picked, axis=-1):
            shape = np.broadcast_shapes(*(p.shape[:-1] for p in picked))
            w = [cluster_counts(np.broadcast_to(p, (*shape, p.shape[-1])).reshape(
                -1, p.shape[-1]), k)[:, c] for p, k, c in zip(picked, ks, clusters)]
            return np.asarray(statistic(w), dtype=float).reshape(shape)

        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = sps.bootstrap(tuple(np.arange(k) for k in ks), on_codes,
                                n_resamples=bootstrap["n_resamples"], paired=False,
                                vectorized=True, method="percentile", confidence_level=0.95,
                                rng=np.random.default_rng(case))
        ref_dist = np.asarray(ref.bootstrap_distribution, dtype=float)
        assert np.array_equal(dist, ref_dist, equal_nan=True)
        ref_low, ref_high = ref.confidence_interval
        if not (np.isfinite(ref_low) and np.isfinite(ref_high)):
            from scievals.stats.intervals import percentile_interval
            ref_low, ref_high = percentile_interval(ref_dist)
        assert (low, high) == (float(ref_low), float(ref_high)), case


def test_t_interval_equals_scipy_stats_to_the_last_bit():
    """t_interval computes with scipy.special.stdtrit instead of importing scipy.stats; over
    many samples of the sizes we have (2-40 items, ties and outliers) its bounds must be
    exactly scipy.stats.t.interval(0.95, n - 1, loc=mean, scale=sem)."""
    import numpy as np
    from scievals.stats.intervals import t_interval
    from scipy import stats as sps

    rng = np.random.default_rng(7)
    for _ in range(2000):
        n = int(rng.integers(2, 41))
        values = [rng.random(n), rng.integers(0, 3, n) / 2.0,
                  rng.standard_cauchy(n)][int(rng.integers(0, 3))]
        if np.all(values == values[0]):
            continue
        low, high = sps.t.interval(0.95, n - 1, loc=values.mean(), scale=sps.sem(values))
        assert t_interval(values) == (float(low), float(high))


def test_wilson_interval_equals_scipy_binomtest_to_the_last_bit():
    """wilson_interval writes Newcombe's form with scipy.special.ndtri; every k of every n up
    to 120 must give exactly binomtest(k, n).proportion_ci(0.95, "wilson")."""
    from scievals.stats.intervals import wilson_interval
    from scipy import stats as sps

    for n in range(1, 121):
        for k in range(n + 1):
            ci = sps.binomtest(k, n).proportion_ci(0.95, method="wilson")
            assert wilson_interval(k, n) == (float(ci.low), float(ci.high)), (k, n)
    # the spec's test vectors (specs/waza-current.md section 5.2): 4/5 -> [0.3755, 0.9638],
    # 5/5 -> [0.5655, 1], 0/3 -> [0, 0.5615]
    assert wilson_interval(4, 5) == pytest.approx((0.3755, 0.9638), abs=5e-5)
    assert wilson_interval(5, 5) == pytest.approx((0.5655, 1.0), abs=5e-5)
    assert wilson_interval(0, 3) == pytest.approx((0.0, 0.5615), abs=5e-5)


def test_mean_ci_equals_scipy_bootstrap_percentile_to_the_last_bit():
    """mean_ci draws the resamples itself (no scipy.stats import in a waza score job): the
    interval must be bootstrap_ci's (scipy.stats.bootstrap, percentile) exactly."""
    import numpy as np
    from scievals.stats.intervals import bootstrap_ci, mean_ci

    rng = np.random.default_rng(3)
    for trial in range(60):
        n = int(rng.integers(2, 30))
        values = [rng.random(n), rng.integers(0, 2, n).astype(float)][trial % 2]
        if np.all(values == values[0]):
            continue
        for resamples, seed in ((1000, 0), (10_000, trial), (7, 42)):
            expected = bootstrap_ci((values,), lambda x, axis: np.mean(x, axis=axis),
                                    resamples, seed, paired=False)
            assert mean_ci(values, resamples, seed) == expected
    assert all(math.isnan(v) for v in mean_ci([1.0, 2.0], 0, 0) + mean_ci([1.0], 100, 0))
    assert mean_ci([0.5, 0.5, 0.5], 100, 0) == (0.5, 0.5)


def test_variance_split_by_hand():
    """Three cases, two samples each: (0.2, 0.4), (0.6, 0.6), (0.9, 0.7)."""
    frame = pd.DataFrame({"condition": ["c"] * 6, "case_id": list("aabbcc"),
                          "f1": [0.2, 0.4, 0.6, 0.6, 0.9, 0.7]})
    rows = {r["metric"]: r["value"] for r in means_by_condition(frame, ["f1"], {})["c"]}
    # within: variances 0.02, 0, 0.02 -> mean 0.013333
    assert rows["f1:within_var"] == pytest.approx(0.04 / 3)
    # case means 0.3, 0.6, 0.8: variance (ddof 1) = (0.0711 + 0.0011 + 0.0544) / 2 = 0.063333;
    # less 0.013333 / 2 = 0.006667 -> 0.056667
    assert rows["f1:between_var"] == pytest.approx(0.19 / 3 - 0.02 / 3)
    # second sample: 0.013333 / (2 * (0.056667 + 0.013333)) = 0.095238
    assert rows["f1:second_sample_gain"] == pytest.approx(0.013333 / 0.14, abs=1e-5)


def test_metric_range_patterns():
    from scievals.stats.intervals import metric_range

    ranges = {"score": (0, 100), "field_similarity.*": (0, 1), "*spearman*": (-1, 1)}
    assert metric_range(ranges, "score") == (0.0, 100.0)
    assert metric_range(ranges, "field_similarity.drug_s") == (0.0, 1.0)
    assert metric_range(ranges, "HIC:spearman") == (-1.0, 1.0)
    assert metric_range(ranges, "other") == (-math.inf, math.inf)
    assert metric_range(None, "score") == (-math.inf, math.inf)


def test_bounded_mean_interval_by_hand():
    from scievals.stats.intervals import bounded_mean_interval, ess_quantile
    from scipy import stats as sps

    # quantile: Student t with 5 (n - 1) df; n = 5 -> t(0.975, 20) = 2.085963
    assert ess_quantile(5) == pytest.approx(sps.t.ppf(0.975, 20))
    # all 0 at n = 5: m = 0, so n_eff = n and the bound is Wilson's z^2 / (n + z^2)
    # = 4.351244 / 9.351244 = 0.465312
    assert bounded_mean_interval([0.0] * 5, 0, 1) == pytest.approx((0.0, 0.465312), abs=1e-5)
    # all 0.5 at n = 4: s^2 = (0 + 0.25) / 5 = 0.05, n_eff = 4 * 0.25 / 0.05 = 20;
    # z = t(0.975, 15) = 2.131450, z^2 = 4.543078; centre 0.5 (symmetric);
    # half = z sqrt(0.25 / 20 + z^2 / 1600) / (1 + z^2 / 20) = 2.131450 * 0.123852 / 1.227154
    # = 0.215119
    assert bounded_mean_interval([0.5] * 4, 0, 1) == pytest.approx((0.284881, 0.715119),
                                                                    abs=1e-5)
    # on [0, 100] the same numbers scaled
    assert bounded_mean_interval([50.0] * 4, 0, 100) == pytest.approx((28.4881, 71.5119),
                                                                      abs=1e-3)
    # 0/1 values are Wilson's interval with the same quantile: 2 of 5, z = 2.085963
    z = sps.t.ppf(0.975, 20)
    centre, half = (0.4 + z**2 / 10) / (1 + z**2 / 5), z * math.sqrt(
        0.24 / 5 + z**2 / 100) / (1 + z**2 / 5)
    assert bounded_mean_interval([1, 1, 0, 0, 0], 0, 1) == pytest.approx(
        (centre - half, centre + half))
    with pytest.raises(ValueError, match="leave the declared range"):
        bounded_mean_interval([0.5, 1.5], 0, 1)


def test_mean_interval_labels_and_zero_width():
    from scievals.stats.intervals import mean_interval

    low, high, method = mean_interval([0.0] * 15, {}, (0.0, 1.0))
    assert method == "wilson-ess" and low == 0.0 and high > 0.1
    low, high, method = mean_interval([1.0, 1.0, 1.0], {"method": "bca"}, (0.0, 1.0))
    assert method == "wilson-ess" and low < 1.0 and high == 1.0  # bootstrap would be [1, 1]
    assert mean_interval([1.0, 2.0], {}, (-math.inf, math.inf))[2] == "t"
    assert mean_interval([0.2, 0.4], {"n_resamples": 0}, (0, 1)) == (math.nan, math.nan, "") \
        or math.isnan(mean_interval([0.2, 0.4], {"n_resamples": 0}, (0, 1))[0])


def test_clopper_pearson_equals_scipy():
    from scievals.stats.intervals import clopper_pearson_interval, proportion_interval
    from scipy import stats as sps

    for n in range(1, 60):
        for k in range(n + 1):
            ci = sps.binomtest(k, n).proportion_ci(0.95, method="exact")
            assert clopper_pearson_interval(k, n) == pytest.approx((ci.low, ci.high),
                                                                   abs=1e-12), (k, n)
    # 0 of 10: the exact upper bound 1 - 0.025^(1/10) = 0.308497
    assert proportion_interval(0, 10, "clopper-pearson")[1] == pytest.approx(0.308497,
                                                                             abs=1e-6)
    with pytest.raises(ValueError, match="proportion"):
        proportion_interval(1, 2, "wald")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, 0.25, 0.5, 0.8]) | st.floats(0, 1), min_size=1,
                max_size=20),
       st.sampled_from([(0.0, 1.0), (0.0, 100.0), (-1.0, 1.0)]))
def test_bounded_interval_never_zero_width_never_out_of_range(values, bounds):
    from scievals.stats.intervals import bounded_mean_interval

    low, high = bounds
    scaled = [low + v * (high - low) for v in values]
    ci_low, ci_high = bounded_mean_interval(scaled, low, high)
    mean = sum(scaled) / len(scaled)
    assert low <= ci_low < ci_high <= high
    assert ci_low <= mean + 1e-9 and mean - 1e-9 <= ci_high


def test_pass_rate_interval_is_exact_up_to_5_items_by_default():
    from scievals.stats.intervals import proportion_interval, proportion_method

    # auto (the default): Clopper-Pearson at n <= 5, Wilson above; a configured method wins
    assert [proportion_method({}, n) for n in (1, 4, 5, 6, 10)] == [
        "clopper-pearson"] * 3 + ["wilson"] * 2
    assert proportion_method({"proportion": "wilson"}, 4) == "wilson"
    assert proportion_method({"proportion": "clopper-pearson"}, 40) == "clopper-pearson"
    # 4 of 4 tasks: the exact lower bound 0.025^(1/4) = 0.397635 (Wilson's:
    # 4 / (4 + 1.959964^2) = 0.510109)
    low, high = proportion_interval(4, 4, proportion_method({}, 4))
    assert (low, high) == pytest.approx((0.397635, 1.0), abs=1e-6)


def test_cluster_variance_factor_by_hand():
    # 5 folds of 6 clusters: 5 / (5 * 5/6) = 1.2; of 16: 16/15 = 1.0667; folds of 2 and 16
    # clusters: 2 / (1/2 + 15/16) = 2 / 1.4375 = 1.391304; no fold of 2 clusters: nothing
    # to correct
    assert cluster_variance_factor([6] * 5) == pytest.approx(1.2)
    assert cluster_variance_factor([16] * 5) == pytest.approx(16 / 15)
    assert cluster_variance_factor([2, 16]) == pytest.approx(1.391304, abs=1e-6)
    assert cluster_variance_factor([1, 1]) == 1.0 and cluster_variance_factor([]) == 1.0


def test_cluster_variance_factor_undoes_the_bootstraps_shrinkage_of_a_mean():
    # The bootstrap variance of the mean of K values, over all K^K equally likely resamples,
    # is the plug-in variance / K; times the factor it is the unbiased s^2 / K. Enumerated
    # here for K = 4 (256 resamples), independently of the factor's formula.
    x = np.array([0.2, 0.9, 0.4, 0.7])
    means = np.array([x[list(idx)].mean() for idx in itertools.product(range(4), repeat=4)])
    assert means.var() * cluster_variance_factor([4]) == pytest.approx(x.var(ddof=1) / 4)


def test_two_part_interval_by_hand():
    from scievals.stats.intervals import two_part_bounds

    # 12 items at 0 and 0.1, 0.3, 0.5 (n = 15, mean m = 0.06 = pi * mu, pi = 3/15 = 0.2,
    # mu = 0.3). Each part at 90 %:
    # pi: Wilson, z = 1.644854, z^2 = 2.705543: centre (0.2 + z^2/30) / (1 + z^2/15)
    #   = 0.2901848 / 1.1803695 = 0.245842, half 1.644854 sqrt(0.16/15 + z^2/900) / 1.1803695
    #   = 0.162946 -> [0.082896, 0.408788]
    # mu: effective-n Wilson of 0.1, 0.3, 0.5: ss = 0.08, v = 0.21, s^2 = (0.08 + 0.21) / 4 =
    #   0.0725, n_eff = 3 * 0.21 / 0.0725 = 8.689655; t(0.95, 10 df) = 1.812461, z^2 = 3.285;
    #   den = 1 + 3.285 / 8.689655 = 1.378036, centre (0.3 + 3.285 / 17.37931) / den =
    #   0.354865, half 1.812461 sqrt(0.21 / 8.689655 + 3.285 / 302.0404) / den = 0.246211
    #   -> [0.108654, 0.601076]
    # low = 0.06 exp(-sqrt(ln^2(0.2 / 0.082896) + ln^2(0.3 / 0.108654)))
    #     = 0.06 exp(-sqrt(0.880733^2 + 1.015615^2)) = 0.06 exp(-1.344308) = 0.015644
    # high = 0.06 exp(sqrt(ln^2(0.408788 / 0.2) + ln^2(0.601076 / 0.3)))
    #      = 0.06 exp(sqrt(0.714880^2 + 0.694939^2)) = 0.06 exp(0.996992) = 0.162606
    y = np.array([0.0] * 12 + [0.1, 0.3, 0.5])
    assert two_part_bounds(y) == pytest.approx((0.015644, 0.162606), abs=2e-6)
    # the mirror: a mass at 1 instead
    assert two_part_bounds(1 - y) == pytest.approx((1 - 0.162606, 1 - 0.015644), abs=2e-6)
    # no item at a bound, or items at both: not a two-part case (pass/fail keeps Wilson)
    assert two_part_bounds(np.array([0.2, 0.5, 0.9])) is None
    assert two_part_bounds(np.array([0.0, 1.0, 0.5])) is None
    # every item at 0: [0, pi_u] with pi_u = z^2 / (n + z^2) = 2.705543 / 17.705543 = 0.152807
    assert two_part_bounds(np.zeros(15)) == pytest.approx((0.0, 0.152807), abs=2e-6)


def test_a_mass_at_one_bound_gets_the_hull_of_both_intervals():
    from scievals.stats.intervals import (
        ess_quantile,
        two_part_bounds,
        wilson_ess_bounds,
    )

    # 13 of 15 items at 0, two small ones: the effective n (large: the values barely vary)
    # gives a narrow interval; the two-part one, driven by 2 non-zero items of 15, is wider
    # above, and the table's interval is the hull of the two
    y = np.array([0.0] * 13 + [0.02, 0.04])
    m = y.mean()
    plain = wilson_ess_bounds(m, ((y - m) ** 2).sum(), 15, ess_quantile(15))
    parts = two_part_bounds(y)
    low, high = bounded_mean_interval(y, 0.0, 1.0)
    assert parts[1] > 2 * plain[1]  # 0.068 against 0.031
    assert (low, high) == pytest.approx((min(plain[0], parts[0]), max(plain[1], parts[1])))
    # steady values (nothing at a bound) keep the effective-n Wilson interval exactly
    steady = np.array([0.7, 0.8, 0.75, 0.9, 0.85])
    sm = steady.mean()
    expected = wilson_ess_bounds(sm, ((steady - sm) ** 2).sum(), 5, ess_quantile(5))
    assert bounded_mean_interval(steady, 0.0, 1.0) == pytest.approx(tuple(expected), abs=0)
