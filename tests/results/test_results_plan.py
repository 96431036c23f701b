"""python -m scievals plan: items needed to detect a difference (scievals.results.plan)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from scievals.cli import main
from scievals.common.errors import ScievalsError
from scievals.stats.paired import mcnemar_mdd, sign_flip_mdd_factor
from scievals.results.plan import plan_text


def _write(tmp_path, benchmark, rows):
    folder = tmp_path / benchmark
    folder.mkdir(parents=True)
    pd.DataFrame(rows).to_csv(folder / "comparisons.csv", index=False)


def test_default_spread_without_a_run(tmp_path):
    # sd 0.25, diff 0.1: the normal rule (1.96 + 0.84)^2 (0.25 / 0.1)^2 = 49 items; the
    # sign-flip needs the smallest n with factor(n) * 0.25 <= 0.1
    text = plan_text("gating", 0.1, results=tmp_path)
    n = int(text.split("about ")[1].split()[0])
    assert sign_flip_mdd_factor(n) * 0.25 <= 0.1 < sign_flip_mdd_factor(n - 1) * 0.25
    assert 45 <= n <= 60 and "default 0.25" in text and "cases" in text


def test_observed_sd_read_back_from_mdd(tmp_path):
    # a pair at n = 15 with sd 0.2 carries mdd = factor(15) * 0.2
    mdd = sign_flip_mdd_factor(15) * 0.2
    _write(tmp_path, "autogkb", [{"metric": "f1", "n": 15, "ci_low": -0.1, "ci_high": 0.2,
                                  "method": "sign-flip (exact) with range guard",
                                  "mdd": mdd, "value_a": 0.5, "value_b": 0.45}])
    text = plan_text("autogkb", 0.1, metric="f1", results=tmp_path)
    assert "sd of per-item differences 0.2 " in text
    n = int(text.split("about ")[1].split()[0])
    assert sign_flip_mdd_factor(n) * 0.2 <= 0.1 < sign_flip_mdd_factor(n - 1) * 0.2


def test_pass_fail_uses_mcnemar(tmp_path):
    # pass rates 0.5 and 0.5, independent errors: discordant share 0.5 * 0.5 * 2 = 0.5
    _write(tmp_path, "waza", [{"metric": "pass_rate", "n": 4, "ci_low": -0.5, "ci_high": 0.5,
                               "method": "exact McNemar", "mdd": math.inf,
                               "value_a": 0.5, "value_b": 0.5}])
    text = plan_text("waza", 0.3, results=tmp_path)
    n = int(text.split("about ")[1].split()[0])
    assert "0.50 of tasks discordant" in text
    assert mcnemar_mdd(n, round(0.5 * n)) <= 0.3 < mcnemar_mdd(n - 1, round(0.5 * (n - 1)))


def test_set_statistic_scales_with_sqrt_n(tmp_path):
    # SE 0.1 at 246 antibodies (interval width 2 * 1.959964 * 0.1); diff 0.1:
    # n = 246 * (2.801585 * 0.1 / 0.1)^2 = 246 * 7.848878 = 1930.8 -> 1931
    _write(tmp_path, "abdev", [{"metric": "HIC:spearman", "n": 246, "ci_low": 0.0,
                                "ci_high": 2 * 1.959964 * 0.1,
                                "method": "paired cluster bootstrap (percentile)",
                                "mdd": 0.28, "value_a": 0.5, "value_b": 0.4}])
    text = plan_text("abdev", 0.1, results=tmp_path)
    assert "about 1931 antibodies" in text


def test_cli_says_one_line_on_bad_input(tmp_path, capsys):
    assert main(["plan", "gating", "--diff", "-1", "--results", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: --diff") and err.count("\n") == 1
    assert main(["plan", "gating", "--diff", "0.2", "--results", str(tmp_path)]) == 0
    assert "about" in capsys.readouterr().out


@pytest.mark.parametrize("benchmark", ["abdev", "gating", "autogkb", "waza"])
def test_every_benchmark_answers(benchmark, tmp_path):
    if benchmark == "abdev":  # a set statistic needs the run's bootstrap
        _write(tmp_path, "abdev", [{"metric": "HIC:spearman", "n": 246, "ci_low": -0.1,
                                    "ci_high": 0.3, "method": "paired cluster bootstrap",
                                    "mdd": 0.3, "value_a": 0.5, "value_b": 0.4}])
    assert plan_text(benchmark, 0.1, results=tmp_path).startswith(benchmark)


def _mean_pair(arm_a, arm_b, family, sd, n=15):
    mdd = sign_flip_mdd_factor(n) * sd if sd > 0 else 0.0  # a copy: 0 in a former run's table
    return {"dataset": "d", "metric": "f1", "family": family, "arm_a": arm_a, "arm_b": arm_b,
            "n": n, "ci_low": -0.1, "ci_high": 0.2, "value_a": 0.5, "value_b": 0.45,
            "method": "sign-flip (exact) with range guard", "mdd": mdd}


def test_observed_spread_counts_each_pair_once_and_leaves_out_copies(tmp_path):
    # pair (x, y) sd 0.2 in two families, pair (x, z) sd 0.4, and a copy (x, x2) with spread
    # 0: one spread per pair and no 0 is median(0.2, 0.4) = 0.3; per row with the 0 it was
    # median(0, 0.2, 0.2, 0.4) = 0.2
    _write(tmp_path, "autogkb", [_mean_pair("x", "y", "models", 0.2),
                                 _mean_pair("y", "x", "models pooled", 0.2),
                                 _mean_pair("x", "z", "models", 0.4),
                                 _mean_pair("x", "x2", "models", 0.0)])
    text = plan_text("autogkb", 0.1, metric="f1", results=tmp_path)
    assert "sd of per-item differences 0.3 " in text and "median of 2 pairs" in text


def test_only_copies_observed_is_refused(tmp_path):
    _write(tmp_path, "autogkb", [_mean_pair("x", "x2", "models", 0.0)])
    with pytest.raises(ScievalsError, match="observed spread of 0"):
        plan_text("autogkb", 0.1, metric="f1", results=tmp_path)
    # a stated spread still answers
    assert "about" in plan_text("autogkb", 0.1, metric="f1", results=tmp_path, sd=0.2)


@pytest.mark.parametrize(("args", "why"), [
    (["--sd", "nan"], "--sd: nan is not a finite number"),
    (["--diff", "inf"], "--diff: inf is not a finite number"),
    (["--diff", "2"], "exceeds the whole range [0, 1]"),
    (["--sd", "0"], "a spread of 0"),
    (["--sd", "1.5"], "at most 1"),
    (["--discordant", "0"], "not a share in (0, 1]"),
])
def test_unusable_inputs_get_one_line(tmp_path, capsys, args, why):
    argv = ["plan", "gating", "--results", str(tmp_path)]
    argv += args if "--diff" in args else ["--diff", "0.2", *args]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert why in err and err.count("\n") == 1


def test_unbounded_metric_without_a_run_asks_for_sd(tmp_path):
    # autogkb's reference score is [0, inf): there is no range to scale a default spread by
    with pytest.raises(ScievalsError, match="no upper bound"):
        plan_text("autogkb", 5, metric="score", results=tmp_path)
    assert "about" in plan_text("autogkb", 5, metric="score", results=tmp_path, sd=20)


def test_a_guessed_spread_is_said_first_beside_the_items_the_data_hold(tmp_path):
    """issue 46 item 7: "about 51 cases" from the default spread said it was a guess only in
    a parenthesis at the end, and not that the embedded data have 15 cases."""
    text = plan_text("gating", 0.1, results=tmp_path)
    assert text.startswith("gating hierarchy_f1: A GUESS from an assumed spread (no "
                           "comparisons.csv: the default 0.25 x range 1; give --sd, or run "
                           "two models to measure it): about ")
    assert "The last run" not in text  # no run, nothing to say about its data
    # the default run: one gating model, so a comparisons.csv with no pair for the metric,
    # and a summary of 15 cases per condition
    folder = tmp_path / "gating"
    folder.mkdir()
    (folder / "comparisons.csv").write_text("metric,n,ci_low,ci_high,method\n")
    pd.DataFrame({"dataset": ["OMIP-demo"] * 3, "metric": ["hierarchy_f1", "hierarchy_f1",
                                                            "structure_accuracy"],
                  "n": [15, 12, 40]}).to_csv(folder / "summary.csv", index=False)
    text = plan_text("gating", 0.1, results=tmp_path)
    assert text.startswith("gating hierarchy_f1: A GUESS from an assumed spread (no pair of "
                           f"models compared on hierarchy_f1 in {folder / 'comparisons.csv'}")
    assert text.endswith(f"The last run scored 15 cases (OMIP-demo, {folder / 'summary.csv'}).")
    # several datasets (waza's suites): the largest, said as such
    (folder.parent / "waza").mkdir()
    pd.DataFrame({"dataset": ["s1", "s2"], "metric": ["pass_rate"] * 2, "n": [4, 6]}).to_csv(
        folder.parent / "waza" / "summary.csv", index=False)
    assert plan_text("waza", 0.2, results=tmp_path).endswith(
        f"The last run scored at most 6 tasks per dataset (2 datasets, "
        f"{folder.parent / 'waza' / 'summary.csv'}).")
    # pass/fail guesses name their own flag; a measured spread is no guess
    assert "give --discordant" in plan_text("waza", 0.2, results=tmp_path)
    assert "GUESS" not in plan_text("gating", 0.1, results=tmp_path, sd=0.2)
