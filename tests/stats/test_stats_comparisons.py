"""The comparison engine: families, pairs on their own items, shared resamples, ranks.

The tests' methods come from scievals.stats.paired (tested in test_stats_paired.py); here
the assertions are about which pairs are formed, on which items, how Holm is grouped and
what the ranks may claim."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scievals.stats import comparisons as cmp
from scievals.stats.comparisons import (
    Arm,
    ItemMetric,
    SetMetric,
    comparison_table,
    mdd_footer,
    significance_tiers,
)
from scievals.stats.paired import holm
from scievals.stats.intervals import cluster_bootstrap, weighted_spearman

BOOT = {"n_resamples": 200, "seed": 0}


def _grid(models, conditions, n_items=15, seed=0):
    """Per-item values of models x conditions sharing an item difficulty."""
    rng = np.random.default_rng(seed)
    difficulty = rng.uniform(0, 1, n_items)
    columns, arms = {}, []
    for i, model in enumerate(models):
        for j, condition in enumerate(conditions):
            label = cmp.arm_label(model, condition, len(conditions) > 1)
            columns[label] = np.clip(difficulty + 0.05 * i - 0.02 * j
                                     + rng.normal(0, 0.15, n_items), 0, 1)
            arms.append(Arm(label, model, condition))
    return ItemMetric("d", "hierarchy_f1", "mean", pd.DataFrame(columns), tuple(arms))


def test_families_are_models_per_condition_conditions_per_model_and_pooled():
    table = comparison_table("gating", [_grid(["A", "B"], ["c1", "c2", "c3"])], BOOT)
    sizes = table.groupby(["family", "scope"]).size().to_dict()
    # 2 models in each of 3 conditions: one pair each; 3 conditions of each model: 3 pairs
    # each; the pooled family: one pair (A vs B on every condition's items)
    assert sizes == {("models", "c1"): 1, ("models", "c2"): 1, ("models", "c3"): 1,
                     ("conditions", "A"): 3, ("conditions", "B"): 3,
                     ("models pooled", "all conditions"): 1}
    for _, family in table.groupby(["family", "scope"]):
        assert family["p_holm"].tolist() == pytest.approx(holm(family["p_value"].tolist()))


def test_adding_conditions_does_not_change_the_model_pair_within_a_condition():
    """The issue's check: 2 models x 6 conditions, the model pair's p_holm within a condition
    equals the one with that condition alone (Holm runs within the family)."""
    six = _grid(["A", "B"], [f"c{i}" for i in range(6)], seed=3)
    alone = ItemMetric("d", "hierarchy_f1", "mean",
                       six.values[["A [c2]", "B [c2]"]].rename(columns=lambda c: c[0]))
    many = comparison_table("gating", [six], BOOT)
    one = comparison_table("gating", [alone], BOOT)
    row = many[(many["family"] == "models") & (many["scope"] == "c2")].iloc[0]
    assert one["p_holm"].iloc[0] == row["p_holm"] == row["p_value"]
    assert one["diff"].iloc[0] == pytest.approx(row["diff"])
    # adding a third model changes the models-of-c2 family only by its own extra pairs:
    # the conditions-of-A family is untouched
    three = comparison_table("gating", [_grid(["A", "B", "C"], [f"c{i}" for i in range(6)],
                                              seed=3)], BOOT)
    family_a = lambda t: t[(t["family"] == "conditions") & (t["scope"] == "A")].sort_values(
        ["arm_a", "arm_b"])["p_holm"].tolist()
    assert family_a(three) == pytest.approx(family_a(many))


def test_pairs_use_the_items_both_arms_scored():
    values = pd.DataFrame({"full": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
                           "partial": [0.1, 0.2, math.nan, 0.4, math.nan, 0.3],
                           "empty": [math.nan] * 6})
    table = comparison_table("x", [ItemMetric("d", "m", "mean", values)], BOOT)
    [row] = table.to_dict("records")  # "empty" shares no item: no row at all
    # shared items 0, 1, 3, 5: full 0.9 0.8 0.6 0.4 (mean 0.675), partial 0.1 0.2 0.4 0.3
    # (mean 0.25)
    assert (row["arm_a"], row["arm_b"], row["n"]) == ("full", "partial", 4)
    assert (row["value_a"], row["value_b"]) == pytest.approx((0.675, 0.25))
    assert row["diff"] == pytest.approx(0.425)


def _set_metric(pred, true, codes, available=None):
    """A one-fold set metric over rows with cluster ``codes``: Spearman of each arm's
    predictions, on shared cluster draws (as abdev's comparisons draw them)."""
    names = list(pred)
    rng = np.random.default_rng(BOOT["seed"])
    k = int(codes.max()) + 1
    picked = rng.integers(0, k, (BOOT["n_resamples"], k))
    weights = np.stack([np.bincount(row, minlength=k) for row in picked])[:, codes]
    avail = (np.ones((len(names), len(true)), bool) if available is None
             else np.asarray(available))

    def replicates(i, mask):
        w = np.vstack([np.ones((1, mask.sum())), weights[:, mask]])
        values = weighted_spearman(pred[names[i]][mask], true[mask], w)
        return float(values[0]), values[1:]

    return SetMetric("d", "HIC:spearman", tuple(Arm(n, n) for n in names), avail, replicates,
                     2.0)


def test_set_metric_pairs_are_differences_of_shared_replicates():
    rng = np.random.default_rng(5)
    true = rng.normal(size=40)
    codes = np.repeat(np.arange(20), 2)
    pred = {"good": true + rng.normal(0, 0.5, 40), "bad": rng.normal(size=40)}
    metric = _set_metric(pred, true, codes)
    # the reference: one cluster bootstrap of the difference of the two arms' statistics
    # (same seed, same draws) gives the same replicate distribution
    _, _, dist = cluster_bootstrap(
        lambda w: weighted_spearman(pred["good"], true, w[0])
        - weighted_spearman(pred["bad"], true, w[0]), [codes], BOOT)
    good, bad = metric.on_rows(0, metric.available[0]), metric.on_rows(1, metric.available[1])
    assert good[1] - bad[1] == pytest.approx(dist)
    [row] = comparison_table("abdev", [metric], BOOT).to_dict("records")
    from scipy import stats
    assert row["value_a"] == pytest.approx(stats.spearmanr(pred["good"], true).statistic)
    assert row["n"] == 40


def test_set_metric_pair_of_partial_arms_is_computed_on_their_common_rows():
    rng = np.random.default_rng(6)
    true = rng.normal(size=30)
    codes = np.repeat(np.arange(15), 2)
    pred = {"a": true + rng.normal(0, 0.3, 30), "b": true + rng.normal(0, 1, 30)}
    available = np.ones((2, 30), bool)
    available[1, :10] = False  # b predicted only rows 10-29
    metric = _set_metric(pred, true, codes, available)
    [row] = comparison_table("abdev", [metric], BOOT).to_dict("records")
    from scipy import stats
    assert row["n"] == 20
    # both values on rows 10-29, so a's is not its leaderboard value on all 30 rows
    a_common = stats.spearmanr(pred["a"][10:], true[10:]).statistic
    b_common = stats.spearmanr(pred["b"][10:], true[10:]).statistic
    assert (row["value_a"], row["value_b"]) == pytest.approx((a_common, b_common))


def test_a_metric_over_the_pair_limit_is_left_out_with_a_note(monkeypatch):
    monkeypatch.setattr(cmp, "ALL_PAIRS_LIMIT", 2)
    grid = _grid(["A", "B", "C"], [""])
    other = ItemMetric("d", "other", "mean", grid.values, grid.arms)
    notes = []
    table = comparison_table("x", [grid, other], BOOT, ranking="hierarchy_f1", notes=notes)
    # 3 pairs > 2: only the ranking metric is written, and a note says so
    assert set(table["metric"]) == {"hierarchy_f1"} and len(table) == 3
    assert len(notes) == 1 and "other" in notes[0] and "all_pairs" in notes[0]
    full = comparison_table("x", [grid, other], BOOT, ranking="hierarchy_f1", all_pairs=True)
    assert set(full["metric"]) == {"hierarchy_f1", "other"}


# ---------------------------------------------------------------------------
# Ranks
# ---------------------------------------------------------------------------


def _pairs(rows):
    return pd.DataFrame(rows, columns=["arm_a", "arm_b", "diff", "p_holm"])


def test_tiers_worked_examples():
    values = {"A": 0.9, "B": 0.8, "C": 0.7}
    # every pair significant: 1, 2, 3
    every = _pairs([("A", "B", 0.1, 0.01), ("A", "C", 0.2, 0.01), ("B", "C", 0.1, 0.01)])
    assert significance_tiers(values, every) == {"A": "1", "B": "2", "C": "3"}
    # A beats C only: no boundary can hold (A-B, B-C not significant): all tied
    only_ac = _pairs([("A", "B", 0.1, 0.3), ("A", "C", 0.2, 0.01), ("B", "C", 0.1, 0.3)])
    assert significance_tiers(values, only_ac) == {"A": "1=", "B": "1=", "C": "1="}
    # A and B both beat C, A-B not told apart: {A, B} then C ranked 3
    ab_c = _pairs([("A", "B", 0.1, 0.3), ("A", "C", 0.2, 0.01), ("B", "C", 0.1, 0.02)])
    assert significance_tiers(values, ab_c) == {"A": "1=", "B": "1=", "C": "3"}
    # the old leader-tier rule ranked A alone above B here although A-B is not significant
    # (C beats B, A does not differ from C)
    c_b = _pairs([("A", "B", 0.1, 0.3), ("A", "C", 0.05, 0.3), ("C", "B", 0.05, 0.01)])
    ranks = significance_tiers({"A": 0.9, "C": 0.85, "B": 0.8}, c_b)
    assert ranks == {"A": "1=", "C": "1=", "B": "1="}


def test_undefined_values_are_not_ranked():
    pairs = _pairs([("A", "B", 0.1, 0.01)])
    assert significance_tiers({"A": 0.9, "B": 0.1, "X": math.nan}, pairs) == {
        "A": "1", "B": "2", "X": "-"}


def test_a_significant_pair_in_the_wrong_direction_keeps_both_in_one_tier():
    """On partial items a lower-valued arm can be significantly better on the shared items:
    neither may then be ranked above the other."""
    pairs = _pairs([("B", "A", 0.2, 0.001)])  # B beats A on their common items
    assert significance_tiers({"A": 0.9, "B": 0.5}, pairs) == {"A": "1=", "B": "1="}


def _rank_number(label):
    return float(label.rstrip("="))


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(st.integers(2, 6), st.integers(2, 30), st.integers(0, 2**32 - 1),
       st.floats(0.0, 0.5), st.booleans())
def test_no_arm_is_ranked_above_one_it_is_not_significantly_better_than(
        n_arms, n_items, seed, missing, pass_fail):
    """Random leaderboards (2-6 arms, 2-30 items, up to half the items missing per arm,
    per-item means or pass/fail): whenever rank(A) < rank(B), A is significantly better
    than B (p_holm < 0.05, positive difference) in the comparisons."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 0.3, n_arms)
    base = rng.uniform(0, 1, n_items)
    values = {}
    for i in range(n_arms):
        column = np.clip(base + strength[i] + rng.normal(0, 0.2, n_items), 0, 1)
        if pass_fail:
            column = (column > 0.5).astype(float)
        column[rng.uniform(size=n_items) < missing] = np.nan
        values[f"m{i}"] = column
    frame = pd.DataFrame(values)
    metric = ItemMetric("d", "m", "pass_fail" if pass_fail else "mean", frame)
    pairs = comparison_table("x", [metric], BOOT)
    means = frame.mean(axis=0, skipna=True).to_dict()
    ranks = significance_tiers(means, pairs)
    better = {(a, b) if d > 0 else (b, a) for a, b, d, p in
              zip(pairs["arm_a"], pairs["arm_b"], pairs["diff"], pairs["p_holm"])
              if p < 0.05 and d != 0}
    ranked = [a for a in ranks if ranks[a] != "-"]
    for a in ranked:
        for b in ranked:
            if _rank_number(ranks[a]) < _rank_number(ranks[b]):
                assert (a, b) in better, (ranks, pairs)


def test_footer_says_when_the_test_cannot_detect_anything():
    pairs = pd.DataFrame({"metric": ["pass_rate"], "n": [4], "mdd": [math.inf],
                          "method": ["exact McNemar"]})
    assert mdd_footer(pairs, "pass_rate", "tasks") == (
        "With 4 tasks, the test used (exact McNemar) cannot detect any difference in "
        "pass_rate: its smallest possible p-value is above 0.05.")
    pairs = pd.DataFrame({"metric": ["m"] * 3, "n": [15, 15, 14], "mdd": [0.1, 0.3, 0.2],
                          "method": ["x"] * 3})
    # the median of 0.1, 0.2, 0.3
    assert mdd_footer(pairs, "m", "cases").startswith(
        "With 14-15 cases, differences in m below 0.2 cannot be told apart")


def test_a_family_over_the_arm_limit_is_not_compared_and_says_so():
    notes = []
    grid = _grid(["A", "B", "C"], [""])
    table = comparison_table("x", [grid], BOOT, notes=notes, max_family_arms=2)
    assert table.empty
    assert len(notes) == 1 and "3 arms, over the 2" in notes[0]
    assert "comparisons.max_family_arms" in notes[0]  # the way out
    # raised to the family's size: all 3 * 2 / 2 = 3 pairs, and nothing to say
    notes = []
    table = comparison_table("x", [grid], BOOT, notes=notes, max_family_arms=3)
    assert len(table) == 3 and notes == []
    # the default is FAMILY_ARMS_LIMIT (1,000 arms)
    assert cmp.FAMILY_ARMS_LIMIT == 1_000


def test_a_single_condition_model_is_compared_in_every_condition():
    """A baseline (one condition, "baseline") beside an LLM with three conditions and a
    second baseline: the LLM's arms are compared with both baselines in each condition's
    family, the baselines with each other once."""
    grid = _grid(["llm"], ["c1", "c2", "c3"])
    values = grid.values.assign(**{"base [baseline]": grid.values.iloc[:, 0] * 0.5,
                                   "other [baseline]": grid.values.iloc[:, 0] * 0.4})
    arms = grid.arms + (Arm("base [baseline]", "base", "baseline"),
                        Arm("other [baseline]", "other", "baseline"))
    table = comparison_table("gating", [ItemMetric("d", "m", "mean", values, arms)], BOOT)
    sizes = table.groupby(["family", "scope"]).size().to_dict()
    # each condition: llm [c] vs base, llm [c] vs other (2 pairs); the llm's conditions: 3
    # pairs; the two baselines once, in their shared condition's family; pooled: llm, base
    # and other -> 3 pairs
    assert sizes == {("models", "c1"): 2, ("models", "c2"): 2, ("models", "c3"): 2,
                     ("conditions", "llm"): 3, ("models", "baseline"): 1,
                     ("models pooled", "all conditions"): 3}


def test_an_arm_without_a_value_gets_no_pair_row():
    """A constant prediction column has no Spearman: its pairs say nothing, so none is
    written (the leaderboard does not rank it either)."""
    rng = np.random.default_rng(7)
    true = rng.normal(size=30)
    codes = np.repeat(np.arange(15), 2)
    pred = {"good": true + rng.normal(0, 0.5, 30), "flat": np.ones(30),
            "other": rng.normal(size=30)}
    table = comparison_table("abdev", [_set_metric(pred, true, codes)], BOOT)
    assert set(zip(table["arm_a"], table["arm_b"])) == {("good", "other")}
