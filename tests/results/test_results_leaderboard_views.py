"""Leaderboard views: waza's suites in one table with a pooled row, the top-N limit with
``show --all``, and ``show --format table|csv|json``."""

from __future__ import annotations

import io
import json
import math

import pandas as pd
from scievals.cli import main
from scievals.common.tables import RESULT_COLUMNS, write_result_table
from scievals.results.leaderboard import (
    TOP_ROWS,
    interval_note,
    leaderboard_markdown,
    sections,
)
from scievals.results.show import write_leaderboard

SHA_A, SHA_B = "a" * 64, "b" * 64


def row(benchmark, dataset, sha, model, metric, value, low, high, n, condition="",
        ci_method="wilson"):
    return {"benchmark": benchmark, "dataset": dataset, "dataset_sha256": sha, "model": model,
            "condition": condition, "metric": metric, "value": value, "ci_low": low,
            "ci_high": high, "n": n, "ci_method": ci_method, "scievals_version": "0.1.0",
            "git_commit": "abc", "config_hash": "0" * 12}


def two_suites() -> pd.DataFrame:
    rows = [
        # suite-a-demo: models m and k, 2 tasks each
        row("waza", "suite-a-demo", SHA_A, "m", "pass_rate", 1.0, 0.342, 1.0, 2),
        row("waza", "suite-a-demo", SHA_A, "m", "weighted_score", 0.9, 0.8, 1.0, 2, ci_method="t"),
        row("waza", "suite-a-demo", SHA_A, "k", "pass_rate", 0.5, 0.095, 0.905, 2),
        row("waza", "suite-a-demo", SHA_A, "k", "weighted_score", 0.6, 0.1, 1.0, 2, ci_method="t"),
        # suite-b: only m, 4 tasks
        row("waza", "suite-b", SHA_B, "m", "pass_rate", 0.25, 0.046, 0.699, 4),
        row("waza", "suite-b", SHA_B, "m", "weighted_score", 0.5, 0.2, 0.8, 4, ci_method="t"),
    ]
    return pd.DataFrame(rows, columns=RESULT_COLUMNS)


def suite_a_pairs(p_holm: float) -> pd.DataFrame:
    return pd.DataFrame([{
        "benchmark": "waza", "dataset": "suite-a-demo", "metric": "pass_rate",
        "family": "models", "scope": "", "arm_a": "m", "arm_b": "k", "n": 2, "value_a": 1.0, "value_b": 0.5, "diff": 0.5, "ci_low": 0.1,
        "ci_high": 0.9, "p_value": p_holm, "p_holm": p_holm, "method": "exact McNemar",
        "mdd": 0.4}])


def test_waza_suites_are_one_table_with_the_suite_column_and_a_pooled_row():
    (waza,) = sections(two_suites(), comparisons=suite_a_pairs(0.01))
    assert waza.dataset_column == "suite" and waza.demo  # suite-a-demo is demo data
    assert waza.datasets == (("suite-a-demo", SHA_A), ("suite-b", SHA_B))
    table = waza.table[["rank", "suite", "model", "pass_rate", "weighted_score", "n"]]
    # ranks within suite-a (m 1.0 beats k 0.5, p 0.01); suite-b has one model: no rank.
    # m pooled over 6 tasks: pass rate (1.0*2 + 0.25*4) / 6 = 3/6 = 0.500, weighted score
    # (0.9*2 + 0.5*4) / 6 = 3.8/6 = 0.633; k ran one suite only: no pooled row.
    assert table.values.tolist() == [
        ["1", "suite-a-demo", "m", "1.000 [0.342, 1.000]", "0.900 [0.800, 1.000]", "2"],
        ["2", "suite-a-demo", "k", "0.500 [0.095, 0.905]", "0.600 [0.100, 1.000]", "2"],
        ["-", "suite-b", "m", "0.250 [0.046, 0.699]", "0.500 [0.200, 0.800]", "4"],
        ["-", "pooled (2 suites)", "m", "0.500", "0.633", "6"],
    ]
    assert waza.footer.startswith("suite-a-demo: With 2 tasks")
    text = leaderboard_markdown([waza])
    assert text.count("\n## ") == 1 and "## waza - dataset per suite (2 suites)" in text
    assert "suite-a-demo (aaaaaaaaaaaa), suite-b (bbbbbbbbbbbb)" in text
    assert "| rank | suite | model | pass_rate | weighted_score | n |" in text


def many_models(count: int) -> pd.DataFrame:
    """``count`` gating models; model_i has hierarchy_f1 i/100 (so model_{count-1} is best)."""
    rows = [row("gating", "OMIP", SHA_A, f"model_{i:02d}", "hierarchy_f1", i / 100, 0.0, 1.0,
                15, condition="base", ci_method="t") for i in range(count)]
    return pd.DataFrame(rows, columns=RESULT_COLUMNS)


def test_the_top_rows_are_shown_and_the_rest_counted(tmp_path, capsys):
    (gating,) = sections(many_models(TOP_ROWS + 5))
    assert TOP_ROWS == 20
    assert len(gating.table) == 20 and gating.hidden == 5
    # best first: model_24 (0.24) down to model_05 (0.05); model_00..04 are not shown
    assert gating.table["model"].iloc[0] == "model_24"
    assert gating.table["model"].iloc[-1] == "model_05"
    text = leaderboard_markdown([gating])
    assert "5 more not shown; every row: python -m scievals show --all gating" in text
    path = tmp_path / "summary.csv"
    write_result_table(path, many_models(TOP_ROWS + 5))
    assert main(["show", "--summary", str(path), "--format", "csv", "--all"]) == 0
    everything = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert sorted(everything["model"]) == [f"model_{i:02d}" for i in range(25)]
    assert main(["show", "--summary", str(path), "--format", "csv"]) == 0
    assert len(pd.read_csv(io.StringIO(capsys.readouterr().out))) == 20
    assert main(["show", "--summary", str(path), "--all"]) == 0
    out = capsys.readouterr().out
    assert "model_00" in out and "more not shown" not in out


def test_show_table_fits_the_terminal_and_keeps_every_value(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    frame = pd.concat([two_suites(), many_models(3)], ignore_index=True)
    path = tmp_path / "summary.csv"
    write_result_table(path, frame)
    assert main(["show", "--summary", str(path)]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "|" not in out  # no Markdown table lines
    for cell in ("1.000 [0.342, 1.000]", "0.250 [0.046, 0.699]", "0.633", "0.020 [0.000, 1.000]"):
        assert cell in out, cell


def test_show_json_and_csv_give_the_raw_values(tmp_path, capsys):
    path = tmp_path / "summary.csv"
    write_result_table(path, two_suites())
    assert main(["show", "waza", "--summary", str(path), "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    # six summary rows, each once, with its own numbers and interval method
    assert len(records) == 6
    first = records[0]
    assert (first["dataset"], first["model"], first["metric"]) == ("suite-a-demo", "m",
                                                                   "pass_rate")
    assert (first["value"], first["ci_low"], first["n"], first["ci_method"]) == (
        1.0, 0.342, 2, "wilson")
    assert main(["show", "waza", "--summary", str(path), "--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    b = table[(table["dataset"] == "suite-b") & (table["metric"] == "weighted_score")]
    assert b[["value", "ci_low", "ci_high", "n"]].values.tolist() == [[0.5, 0.2, 0.8, 4]]
    assert not math.isnan(table["value"].sum())


def test_the_report_says_only_the_interval_methods_the_summary_uses(tmp_path):
    frame = pd.concat([two_suites(), many_models(3)], ignore_index=True)
    frame.loc[len(frame)] = {**row("gating", "OMIP", SHA_A, "model_00", "tokens_in", 100.0,
                                   math.nan, math.nan, 15, ci_method=""), "condition": "base"}
    note = interval_note(frame, {"n_resamples": 1000, "seed": 0})
    # two_suites: 3 wilson (pass_rate) + 3 t (weighted_score); many_models(3): 3 t
    assert "t in 6 rows: the Student-t interval of a mean over items" in note
    assert "wilson in 3 rows: the Wilson score interval" in note
    assert "bootstrap" not in note  # no row used one, so the text does not claim it
    assert "1 rows (counts, costs, single values) have no interval" in note
    abdev = pd.DataFrame([row("abdev", "GDPa1", SHA_A, "ridge", "HIC:spearman", 0.6, 0.5, 0.7,
                              246, ci_method="percentile-cluster")], columns=RESULT_COLUMNS)
    assert ("percentile-cluster in 1 rows: a percentile bootstrap resampling sequence "
            "clusters (1000 resamples, seed 0)") in interval_note(abdev, {"n_resamples": 1000,
                                                                         "seed": 0})
    # the fragment on the report's first page ends with it
    path = tmp_path / "summary.csv"
    write_result_table(path, frame)
    write_leaderboard(path, fragment_out=tmp_path / "fragment.html", comparisons=[],
                      bootstrap={"n_resamples": 1000, "seed": 0})
    html = (tmp_path / "fragment.html").read_text()
    assert "About the intervals" in html and "wilson in 3 rows" in html
