"""Issue 20's done-when check: the default run plus a second model per benchmark (own
prediction files) gives every benchmark a comparisons.csv whose numbers agree with the
per-item tables, Wilson pass-rate intervals and shared ranks on the leaderboard."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scievals.stats.comparisons import COLUMNS

from .conftest import copy_default_run, snakemake

pytestmark = pytest.mark.slow


def _own_files(workdir):
    """A second model for each benchmark, derived from the first run's outputs."""
    pred = workdir / "predictions"
    # abdev: the truth plus noise (a decent model), for every headline assay
    truth = pd.read_csv(workdir / "data/raw/abdev/GDPa1.csv")
    rng = np.random.default_rng(3)
    own = truth[["antibody_name"]].copy()
    for assay in ("HIC", "Tm2", "Titer", "PR_CHO", "AC-SINS_pH7.4"):
        values = truth[assay].to_numpy(dtype=float)
        own[assay] = values + rng.normal(0, np.nanstd(values), len(values))
    (pred / "abdev").mkdir(parents=True)
    own.to_csv(pred / "abdev" / "noisy_truth.csv", index=False)
    # gating: the baseline's hierarchies, but a bare root for every other case
    lines = (workdir / "results/gating/predictions/marker_baseline.jsonl").read_text().splitlines()
    records = []
    for i, line in enumerate(lines):
        record = json.loads(line)
        hierarchy = record["hierarchy"] if i % 2 else {"name": "All events", "markers": [],
                                                       "children": []}
        records.append(json.dumps({"case_id": record["case_id"], "hierarchy": hierarchy}))
    (pred / "gating").mkdir()
    (pred / "gating" / "half_baseline.jsonl").write_text("\n".join(records) + "\n")
    # autogkb: the baseline's annotations with every third article left out (scores 0)
    baseline = workdir / "results/autogkb/predictions/autogkb_baseline.jsonl"
    lines = baseline.read_text().splitlines()
    articles = {}
    for i, line in enumerate(lines):
        record = json.loads(line)
        if i % 3:
            articles[record["case_id"]] = record["annotations"]
    (pred / "autogkb").mkdir()
    (pred / "autogkb" / "fewer_articles.json").write_text(json.dumps(articles))
    # waza: the mock's results re-graded without a workspace (file graders score 0)
    suites = sorted((workdir / "results/waza/predictions/waza_mock").glob("*.json"))
    (pred / "waza").mkdir()
    (pred / "waza" / "regraded.json").write_text(
        json.dumps([json.loads(p.read_text()) for p in suites]))


@pytest.fixture(scope="module")
def two_models(default_run_template, tmp_path_factory):
    """The default run (the session's, copied), then again with a second model each."""
    workdir = copy_default_run(default_run_template, tmp_path_factory.mktemp("cmp") / "scievals")
    _own_files(workdir)
    snakemake(workdir, "--cores", "2", "results/summary.csv")
    return workdir


def test_every_benchmark_has_comparisons_with_the_issue_columns(two_models):
    for name in ("abdev", "gating", "autogkb", "waza"):
        frame = pd.read_csv(two_models / "results" / name / "comparisons.csv")
        assert list(frame.columns) == COLUMNS, name
        assert len(frame) > 0, name
        assert (frame["benchmark"] == name).all()
        # p_holm >= p_value (Holm only raises p-values)
        finite = frame["p_value"].notna()
        assert (frame.loc[finite, "p_holm"] >= frame.loc[finite, "p_value"] - 1e-12).all()


def test_per_item_mean_diff_is_the_mean_of_per_case_differences(two_models):
    cmp = pd.read_csv(two_models / "results/gating/comparisons.csv")
    row = cmp[(cmp["metric"] == "hierarchy_f1")].iloc[0]
    scores = two_models / "results/gating/scores"
    per_case = {m: pd.read_csv(scores / f"{m}.per_case.csv").groupby("case_id")["hierarchy_f1"]
                .mean() for m in ("marker_baseline", "half_baseline")}
    # arm labels carry the condition ("marker_baseline [baseline]"): strip it to the model
    a, b = (row["arm_a"].split(" [")[0], row["arm_b"].split(" [")[0])
    differences = (per_case[a] - per_case[b]).dropna()
    assert row["n"] == len(differences) == 15
    assert row["diff"] == pytest.approx(differences.mean(), abs=1e-12)
    # the row is the engine's call of the sign-flip test (unit-tested against enumeration
    # in tests/stats/test_stats_paired.py) on exactly these per-case values
    from scievals.stats.paired import paired_mean_tests

    values = np.column_stack([per_case[a][differences.index], per_case[b][differences.index]])
    test = paired_mean_tests(values, [0], [1], span=1.0)
    assert row["p_value"] == pytest.approx(test.p_value[0], rel=1e-9)
    assert row["method"].startswith("sign-flip")


def test_waza_pass_rate_intervals_are_exact_up_to_5_tasks_then_wilson(two_models):
    summary = pd.read_csv(two_models / "results/summary.csv")
    rows = summary[(summary["benchmark"] == "waza") & (summary["metric"] == "pass_rate")]
    assert len(rows) >= 8  # 4 suites x 2 models
    for row in rows.itertuples():
        k = round(row.value * row.n)
        # bootstrap.proportion auto: Clopper-Pearson ("exact") up to 5 tasks, Wilson above
        method = "exact" if row.n <= 5 else "wilson"
        ci = stats.binomtest(k, int(row.n)).proportion_ci(0.95, method=method)
        assert (row.ci_low, row.ci_high) == pytest.approx((ci.low, ci.high), abs=1e-12)
        assert row.ci_method == ("clopper-pearson" if row.n <= 5 else "wilson")
    waza = pd.read_csv(two_models / "results/waza/comparisons.csv")
    assert set(waza[waza["metric"] == "pass_rate"]["method"]) == {"exact McNemar"}


def test_leaderboard_ranks_and_footer(two_models):
    text = (two_models / "results/leaderboard.md").read_text()
    assert "| rank | model |" in text
    assert "cannot be told apart" in text
    # abdev, HIC Spearman: ridge 0.635 and the noisy truth 0.582 are not told apart (paired
    # cluster bootstrap p 0.26), both beat random (-0.05): the two share rank 1, random is
    # third (two arms placed before it)
    abdev = text.split("## abdev")[1].split("\n## ")[0]
    assert "| 1= | ridge_descriptors |" in abdev and "| 1= | noisy_truth |" in abdev
    assert "| 3 | random |" in abdev
    # gating: the baseline beats its half-empty copy (hierarchy F1 0.413 vs 0.200, p < 0.01)
    gating = text.split("## gating")[1].split("\n## ")[0]
    assert "| 1 | marker_baseline | baseline |" in gating and "| 2 | half_baseline |" in gating
    shown = snakemake(two_models, "--cores", "1", "-n", "results/summary.csv")  # complete
    assert "Nothing to be done" in shown.stdout + shown.stderr
