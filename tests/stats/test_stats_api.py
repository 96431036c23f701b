"""The statistics engine's Python API (scievals.stats.api): hand-worked tables, and the same
numbers as the workflow's comparisons path (the registry's per-item extraction +
comparison_table, as scripts/comparisons.py calls them) on the same items."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scievals import registry
from scievals.common.table_files import RESULT_COLUMNS
from scievals.stats.api import compare, item_metrics, plan
from scievals.stats.comparisons import (
    COLUMNS,
    comparison_table,
    read_comparisons,
    write_comparisons,
)
from scievals.stats.paired import mcnemar_mdd, sign_flip_mdd_factor

# Six items, two pass/fail arms:
#   a: 1 1 1 1 1 0     b: 0 0 0 0 1 0
# items 0-3: a passed, b failed (n10 = 4); item 4 both passed; item 5 both failed (n01 = 0).
# exact McNemar: under "no difference" n10 ~ Binomial(4, 1/2); P(X >= 4) = 1/16, two-sided
# p = 2/16 = 0.125. diff = (n10 - n01) / n = 4/6; pass rates 5/6 and 1/6.
PASS_A = [1, 1, 1, 1, 1, 0]
PASS_B = [0, 0, 0, 0, 1, 0]
# Six items, per-item means in [0, 1]:
#   a: .9 .8 .7 .9 1.0 .6     b: .5 .6 .4 .7 .8 .3
# differences d = .4 .2 .3 .2 .2 .3 (sum 1.6, mean 0.26667), all positive.
# Sign-flip by enumeration of the 2^6 = 64 sign patterns: flipping the signs of a non-empty
# subset S lowers the sum by 2 sum_S d > 0, so only the observed pattern is as extreme upwards
# (and only its full flip downwards): p = 2 * 1/64 = 0.03125. The interval inverting it
# (k = floor(64 * 0.05 / 2) = 1) runs from the smallest to the largest subset mean, i.e.
# [min d, max d] = [0.2, 0.4]; the engine's range guard (MOVER) may only widen it.
MEAN_A = [0.9, 0.8, 0.7, 0.9, 1.0, 0.6]
MEAN_B = [0.5, 0.6, 0.4, 0.7, 0.8, 0.3]


def _table(a, b, kind, metric="score"):
    items = [f"t{i}" for i in range(len(a))]
    return pd.DataFrame({"arm": ["a"] * len(a) + ["b"] * len(b), "item": items * 2,
                         "score": [*a, *b], "kind": kind, "metric": metric})


def test_pass_fail_table_by_hand():
    result = compare(_table(PASS_A, PASS_B, "pass_fail"))
    [row] = result.comparisons.to_dict("records")
    assert list(result.comparisons.columns) == COLUMNS
    assert (row["arm_a"], row["arm_b"], row["n"]) == ("a", "b", 6)
    assert row["value_a"] == pytest.approx(5 / 6) and row["value_b"] == pytest.approx(1 / 6)
    assert row["diff"] == pytest.approx(4 / 6)
    assert row["p_value"] == pytest.approx(0.125) and row["p_holm"] == pytest.approx(0.125)
    assert row["method"] == "exact McNemar"
    assert row["ci_low"] < 0 < row["ci_high"]  # p >= 0.05: the interval holds 0
    assert row["mdd"] == mcnemar_mdd(6, 4)
    # not significant: one tier
    assert dict(zip(result.tiers["arm"], result.tiers["rank"])) == {"a": "1=", "b": "1="}
    # Wilson interval of 5 of 6: centre (5/6 + z^2/12) / (1 + z^2/6), z = 1.959964
    z2 = 1.959964**2
    centre = (5 / 6 + z2 / 12) / (1 + z2 / 6)
    half = math.sqrt(z2) * math.sqrt((5 / 36) / 6 + z2 / 144) / (1 + z2 / 6)
    means = result.means.set_index("arm")
    assert means.loc["a", "ci_low"] == pytest.approx(centre - half, abs=1e-6)
    assert means.loc["a", "ci_high"] == pytest.approx(centre + half, abs=1e-6)
    assert means.loc["a", "ci_method"] == "wilson" and means.loc["a", "n"] == 6


def test_mean_table_by_hand():
    result = compare(_table(MEAN_A, MEAN_B, "mean"), (0.0, 1.0))
    [row] = result.comparisons.to_dict("records")
    assert row["diff"] == pytest.approx(1.6 / 6)
    assert row["p_value"] == pytest.approx(2 / 64)
    assert row["ci_high"] == pytest.approx(0.4) and 0 < row["ci_low"] <= 0.2
    assert row["method"] == "sign-flip (exact) with range guard"
    # mdd = factor(6) * sd(d); sd of .4 .2 .3 .2 .2 .3 (ddof 1): mean .26667, squares
    # .017778 .004444 .001111 .004444 .004444 .001111 = .033333 / 5 = .0066667 -> .08165
    assert row["mdd"] == pytest.approx(sign_flip_mdd_factor(6) * math.sqrt(0.0066667), rel=1e-4)
    # p < 0.05 with a positive difference: a ranks above b
    assert dict(zip(result.tiers["arm"], result.tiers["rank"])) == {"a": "1", "b": "2"}


def test_lower_is_better_turns_the_tiers():
    result = compare(_table(MEAN_A, MEAN_B, "mean"), (0.0, 1.0), lower_is_better=["score"])
    assert dict(zip(result.tiers["arm"], result.tiers["rank"])) == {"b": "1", "a": "2"}
    assert result.comparisons["diff"].iloc[0] == pytest.approx(1.6 / 6)  # the pair unchanged


def test_samples_are_averaged_per_item_and_a_disagreeing_pass_fail_becomes_a_share():
    # arm a scores item t0 twice (1 and 0): its item score is 0.5, so the metric is compared
    # as a share; the arm's mean over items is (0.5 + 1) / 2
    table = pd.DataFrame({"arm": ["a", "a", "a", "b", "b"], "item": ["t0", "t0", "t1", "t0",
                                                                    "t1"],
                          "sample": [1, 2, 1, 1, 1], "score": [1, 0, 1, 0, 0],
                          "kind": "pass_fail"})
    result = compare(table)
    assert result.comparisons["method"].iloc[0].startswith("sign-flip")
    assert result.means.set_index("arm").loc["a", "value"] == pytest.approx(0.75)
    assert any("pass share" in note for note in result.notes)
    # agreeing samples keep pass/fail (McNemar)
    agreeing = table.assign(score=[1, 1, 1, 0, 0])
    assert compare(agreeing).comparisons["method"].iloc[0] == "exact McNemar"


@pytest.mark.parametrize("change, message", [
    (lambda t: t.drop(columns="kind"), "lacks columns"),
    (lambda t: t.assign(kind="ratio"), "is not one of"),
    (lambda t: t.assign(score=["x", *t["score"][1:]]), "row 0"),
    (lambda t: pd.concat([t, t.iloc[:1]]), "scored twice"),
    (lambda t: t.assign(score=[0.5, *t["score"][1:]]), "pass_fail scores are 0 or 1"),
])
def test_bad_tables_say_what_is_wrong(change, message):
    with pytest.raises(ValueError, match=message):
        compare(change(_table(PASS_A, PASS_B, "pass_fail")))


def test_a_score_outside_the_range_is_refused():
    with pytest.raises(ValueError, match="leave its range"):
        compare(_table([2.0, *MEAN_A[1:]], MEAN_B, "mean"), (0.0, 1.0))


def test_plan_from_a_table_and_from_a_spread():
    # from the table: sd of the differences 0.08165 (above); items = smallest n with
    # factor(n) * sd <= diff
    frame = plan(0.1, table=_table(MEAN_A, MEAN_B, "mean"), ranges=(0.0, 1.0))
    [row] = frame.to_dict("records")
    sd = math.sqrt(0.0066667)
    assert row["spread"] == pytest.approx(sd, rel=1e-4)
    n = row["items"]
    assert sign_flip_mdd_factor(n) * sd <= 0.1 < sign_flip_mdd_factor(n - 1) * sd
    # pass/fail from a stated discordant share
    [row] = plan(0.3, kind="pass_fail", discordant=0.5).to_dict("records")
    n = row["items"]
    assert mcnemar_mdd(n, round(0.5 * n)) <= 0.3 < mcnemar_mdd(n - 1, round(0.5 * (n - 1)))
    # the pass/fail table: 4 of 6 items discordant
    [row] = plan(0.5, table=_table(PASS_A, PASS_B, "pass_fail")).to_dict("records")
    assert row["spread"] == pytest.approx(4 / 6) and row["kind"] == "pass_fail"
    with pytest.raises(ValueError, match="positive"):
        plan(0.0)


def _score_table(path, benchmark, model, dataset, metric):
    row = {c: "" for c in RESULT_COLUMNS}
    row.update(benchmark=benchmark, dataset=dataset, model=model, condition="", metric=metric,
               value=0.5, n=6)
    pd.DataFrame([row], columns=RESULT_COLUMNS).to_csv(path, index=False)


def test_mean_numbers_equal_the_workflow_path(tmp_path):
    """autogkb's per_case.csv -> the registry's comparisons function -> comparison_table, as
    scripts/comparisons.py runs it, against the API on the same items (f1, range [0, 1])."""
    bench = registry.get("autogkb")
    inputs = {"per_case": [], "table": []}
    for model, values in (("a", MEAN_A), ("b", MEAN_B)):
        per_case, table = tmp_path / f"{model}_per_case.csv", tmp_path / f"{model}.csv"
        pd.DataFrame({"model": model, "condition": "", "case_id": [f"t{i}" for i in range(6)],
                      "f1": values}).to_csv(per_case, index=False)
        _score_table(table, "autogkb", model, "demo", "f1")
        inputs["per_case"].append(str(per_case))
        inputs["table"].append(str(table))
    metrics = registry.resolve(bench.comparisons)(inputs, ["a", "b"], ["f1"], {},
                                                    {"seed": 0}, bench.ranges())
    write_comparisons(tmp_path / "comparisons.csv",
                      comparison_table("autogkb", metrics, {"seed": 0}, ranking="f1"))
    workflow = read_comparisons(tmp_path / "comparisons.csv")  # the file the rule writes
    api = compare(_table(MEAN_A, MEAN_B, "mean", "f1").assign(dataset="demo"),
                  bench.ranges(), benchmark="autogkb").comparisons
    pd.testing.assert_frame_equal(api, workflow, check_dtype=False)
    assert api["p_value"].iloc[0] == pytest.approx(2 / 64)  # the hand-worked value above


def test_pass_fail_numbers_equal_the_workflow_path(tmp_path):
    """waza's graded results -> its comparisons function (pass_rate: per-task pass/fail) ->
    comparison_table, against the API on the same six tasks."""
    bench = registry.get("waza")
    download = tmp_path / "download.json"
    download.write_text(json.dumps({"suites": {"s": {"dataset": "suite s"}}}))
    graded = []
    for model, passes in (("a", PASS_A), ("b", PASS_B)):
        tasks = [{"test_id": f"t{i}", "status": "passed" if p else "failed",
                  "stats": {"avg_weighted_score": float(p), "avg_score": float(p)}}
                 for i, p in enumerate(passes)]
        path = tmp_path / f"{model}.json"
        path.write_text(json.dumps({"suites": {"s": {"tasks": tasks}}}))
        graded.append(str(path))
    metrics = registry.resolve(bench.comparisons)(
        {"download": [str(download)], "graded": graded}, ["a", "b"], ["pass_rate"], {},
        {"seed": 0}, bench.ranges())
    workflow = comparison_table("waza", metrics, {"seed": 0}, ranking="pass_rate")
    api = compare(_table(PASS_A, PASS_B, "pass_fail", "pass_rate").assign(dataset="suite s"),
                  bench.ranges(), benchmark="waza").comparisons
    pd.testing.assert_frame_equal(api, workflow)
    assert api["p_value"].iloc[0] == pytest.approx(0.125)  # the hand-worked value above


def test_item_metrics_is_the_engine_input():
    [metric] = item_metrics(_table(MEAN_A, MEAN_B, "mean"), (0.0, 1.0))
    assert metric.kind == "mean" and metric.span == 1.0 and metric.low == 0.0
    assert np.allclose(metric.values["a"].to_numpy(), MEAN_A)
