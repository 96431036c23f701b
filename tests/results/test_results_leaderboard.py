"""The leaderboard (python -m scievals show, results/leaderboard.md, the report page)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from scievals.cli import main
from scievals.common.errors import ScievalsError
from scievals.common.tables import RESULT_COLUMNS, write_result_table
from scievals.results.leaderboard import (
    leaderboard_fragment,
    leaderboard_html,
    leaderboard_markdown,
    sections,
)
from scievals.results.show import write_leaderboard

SHA_DEMO = "d" * 64
SHA_REAL = "a" * 64


def row(benchmark, dataset, sha, model, condition, metric, value, low, high, n):
    return {"benchmark": benchmark, "dataset": dataset, "dataset_sha256": sha, "model": model,
            "condition": condition, "metric": metric, "value": value, "ci_low": low,
            "ci_high": high, "n": n, "scievals_version": "0.1.0", "git_commit": "abc",
            "config_hash": "0" * 12}


def summary() -> pd.DataFrame:
    rows = [
        # abdev: only fold=average rows are headline; fold=0 must not leak in.
        row("abdev", "GDPa1-demo_cross_validation", SHA_DEMO, "random", "fold=average",
            "HIC:spearman", -0.0517, -0.1721, 0.0599, 242),
        row("abdev", "GDPa1-demo_cross_validation", SHA_DEMO, "random", "fold=0",
            "HIC:spearman", 0.9, 0.8, 0.95, 54),
        row("abdev", "GDPa1-demo_cross_validation", SHA_DEMO, "ridge", "fold=average",
            "HIC:spearman", 0.63483, 0.539015, 0.703177, 242),
        row("abdev", "GDPa1-demo_cross_validation", SHA_DEMO, "ridge", "fold=average",
            "Tm2:spearman", 0.349303, 0.21397, 0.466317, 193),
        # not a headline metric
        row("abdev", "GDPa1-demo_cross_validation", SHA_DEMO, "ridge", "fold=average",
            "HIC:top_10_recall_tie_robust", 0.355, 0.165, 0.555, 242),
        # gating: two conditions of one model, so rows are (model, condition)
        row("gating", "OMIP-verified", SHA_REAL, "llm", "standard/direct", "hierarchy_f1",
            0.5, 0.4, 0.6, 15),
        row("gating", "OMIP-verified", SHA_REAL, "llm", "rich/cot", "hierarchy_f1",
            0.7, math.nan, math.nan, 15),
        row("gating", "OMIP-verified", SHA_REAL, "llm", "rich/cot", "synonym_f1",
            0.1, 0.0, 0.2, 15),
    ]
    return pd.DataFrame(rows, columns=RESULT_COLUMNS)


def test_abdev_table_ranks_by_first_headline_metric_and_formats_ci():
    abdev, gating = sections(summary())
    assert (abdev.benchmark, abdev.dataset, abdev.demo) == ("abdev", "GDPa1-demo_cross_validation",
                                                            True)
    assert abdev.condition == "fold=average"
    assert list(abdev.table.columns) == ["model", "HIC:spearman", "Tm2:spearman", "n"]
    # ridge 0.635 > random -0.052, so ridge first; fold=0's 0.9 is not shown.
    assert abdev.table.to_dict("records") == [
        {"model": "ridge", "HIC:spearman": "0.635 [0.539, 0.703]",
         "Tm2:spearman": "0.349 [0.214, 0.466]", "n": "193-242"},
        {"model": "random", "HIC:spearman": "-0.052 [-0.172, 0.060]", "Tm2:spearman": "-",
         "n": "242"},
    ]
    assert not gating.demo
    assert gating.table.to_dict("records") == [
        {"model": "llm", "condition": "rich/cot", "hierarchy_f1": "0.700", "n": "15"},
        {"model": "llm", "condition": "standard/direct", "hierarchy_f1": "0.500 [0.400, 0.600]",
         "n": "15"},
    ]


def test_markdown_flags_demo_data_and_names_dataset_and_sha():
    text = leaderboard_markdown(sections(summary()))
    assert "## abdev - dataset GDPa1-demo_cross_validation (sha256 dddddddddddd)" in text
    assert text.count("DEMO DATA") == 1  # gating's real dataset is not flagged
    assert "| ridge | 0.635 [0.539, 0.703] | 0.349 [0.214, 0.466] | 193-242 |" in text
    html = leaderboard_html(sections(summary()))
    assert "DEMO DATA" in html and "<table" in html and "0.635 [0.539, 0.703]" in html


def test_unknown_benchmark_lists_the_known_ones():
    with pytest.raises(ScievalsError, match=r"no results for benchmark waza \(pick one of: "
                       r"abdev, gating\)"):
        sections(summary(), ["waza"])


def test_unlisted_benchmark_shows_every_metric():
    frame = summary().assign(benchmark="newbench")
    (section,) = sections(frame[frame["dataset"] == "OMIP-verified"])
    assert list(section.table.columns) == ["model", "condition", "hierarchy_f1", "synonym_f1", "n"]


def test_show_prints_one_benchmark_and_write_leaderboard_matches(tmp_path, capsys):
    path = tmp_path / "summary.csv"
    write_result_table(path, summary())
    assert main(["show", "gating", "--summary", str(path), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "## gating - dataset OMIP-verified" in out and "abdev" not in out
    write_leaderboard(path, markdown_out=tmp_path / "leaderboard.md")
    assert main(["show", "--summary", str(path), "--format", "markdown"]) == 0
    assert capsys.readouterr().out == (tmp_path / "leaderboard.md").read_text()


def test_show_without_a_summary_is_one_line(tmp_path, capsys):
    assert main(["show", "--summary", str(tmp_path / "none.csv")]) == 1
    assert capsys.readouterr().err.strip().endswith("none.csv: file not found (check the path)")


def test_headlines_come_from_the_registry_entries():
    """autogkb and waza rows: only their registered headline metrics, in registry order."""
    rows = [
        row("autogkb", "autogkb-demo", SHA_DEMO, "base", "evidence", "f1", 0.683, 0.559, 0.791,
            17),
        row("autogkb", "autogkb-demo", SHA_DEMO, "base", "evidence", "score", 76.931, 65.006,
            87.008, 17),
        row("autogkb", "autogkb-demo", SHA_DEMO, "base", "evidence", "precision", 0.7, 0.6, 0.8,
            17),
        row("waza", "suite-demo", SHA_DEMO, "mock", "", "trigger_accuracy", 1.0, math.nan,
            math.nan, 12),
        row("waza", "suite-demo", SHA_DEMO, "mock", "", "pass_rate", 0.5, 0.0, 1.0, 2),
        row("waza", "suite-demo", SHA_DEMO, "mock", "", "run_pass_rate", 0.4, math.nan, math.nan,
            6),
    ]
    autogkb, waza = sections(pd.DataFrame(rows, columns=RESULT_COLUMNS))
    # registry order score, one_to_one_score, f1; one_to_one_score absent here, precision
    # is no headline
    assert autogkb.table.to_dict("records") == [
        {"model": "base", "score": "76.931 [65.006, 87.008]", "f1": "0.683 [0.559, 0.791]",
         "n": "17"}]
    assert waza.table.to_dict("records") == [
        {"model": "mock", "pass_rate": "0.500 [0.000, 1.000]", "trigger_accuracy": "1.000",
         "n": "2-12"}]


def test_cost_tokens_latency_and_parse_rate_per_model():
    """An LLM on autogkb (one condition) and on gating (two conditions): the quality columns
    sum tokens/cost/failures and weight rates by n over the rows each table row covers."""
    base = ("autogkb", "autogkb-demo", SHA_DEMO)
    rows = [
        row(*base, "gpt", "llm", "score", 40.0, 30.0, 50.0, 17),
        row(*base, "gpt", "llm", "parse_success_rate", 3 / 17, math.nan, math.nan, 17),
        row(*base, "gpt", "llm", "tokens_in", 17000, math.nan, math.nan, 17),
        row(*base, "gpt", "llm", "tokens_out", 3400, math.nan, math.nan, 17),
        row(*base, "gpt", "llm", "cost_usd", 0.102, math.nan, math.nan, 17),
        row(*base, "gpt", "llm", "failed_requests", 1, math.nan, math.nan, 17),
        row(*base, "gpt", "llm", "latency_mean_s", 1.25, math.nan, math.nan, 17),
        row(*base, "autogkb_baseline", "baseline", "score", 70.0, 60.0, 80.0, 17),
        row(*base, "autogkb_baseline", "baseline", "parse_success_rate", 1.0, math.nan,
            math.nan, 17),
    ]
    (section,) = sections(pd.DataFrame(rows, columns=RESULT_COLUMNS))
    table = section.table.set_index("model")
    # Two conditions (llm, baseline): rows are (model, condition); only "score" of the
    # headline is present; the quality columns follow n in QUALITY_COLUMNS order.
    assert list(table.columns) == ["condition", "score", "n", "parsed", "failed requests",
                                   "tokens in", "tokens out", "cost USD", "mean latency s"]
    gpt = table.loc["gpt"]
    assert gpt["parsed"] == "0.176"  # 3 of 17 replies parsed
    assert (gpt["tokens in"], gpt["tokens out"]) == ("17,000", "3,400")
    assert (gpt["cost USD"], gpt["failed requests"], gpt["mean latency s"]) == (
        "0.1020", "1", "1.25")
    baseline = table.loc["autogkb_baseline"]
    assert baseline["parsed"] == "1.000" and baseline["cost USD"] == "-"
    assert section.n_meaning.startswith("articles")
    text = leaderboard_markdown([section])
    assert "n = articles" in text
    assert "| model | condition | score | n | parsed | failed requests |" in text


def test_gating_conditions_keep_their_own_quality_figures():
    base = ("gating", "OMIP-verified", SHA_REAL)
    rows = [
        row(*base, "llm", "minimal_direct", "hierarchy_f1", 0.5, 0.4, 0.6, 15),
        row(*base, "llm", "rich_cot", "hierarchy_f1", 0.7, 0.6, 0.8, 15),
        row(*base, "llm", "minimal_direct", "parse_success_rate", 1.0, math.nan, math.nan, 15),
        row(*base, "llm", "rich_cot", "parse_success_rate", 0.6, math.nan, math.nan, 15),
        row(*base, "llm", "minimal_direct", "cost_usd", 0.01, math.nan, math.nan, 15),
        row(*base, "llm", "rich_cot", "cost_usd", 0.03, math.nan, math.nan, 15),
    ]
    (section,) = sections(pd.DataFrame(rows, columns=RESULT_COLUMNS))
    got = {r["condition"]: (r["parsed"], r["cost USD"]) for r in section.table.to_dict("records")}
    assert got == {"minimal_direct": ("1.000", "0.0100"), "rich_cot": ("0.600", "0.0300")}


def test_a_rate_over_several_conditions_is_weighted_by_n():
    from scievals.results.leaderboard import quality_columns

    base = ("autogkb", "autogkb-demo", SHA_DEMO)
    rows = pd.DataFrame([
        row(*base, "gpt", "a", "parse_success_rate", 1.0, math.nan, math.nan, 30),
        row(*base, "gpt", "b", "parse_success_rate", 0.0, math.nan, math.nan, 10),
        row(*base, "gpt", "a", "tokens_in", 100, math.nan, math.nan, 30),
        row(*base, "gpt", "b", "tokens_in", 50, math.nan, math.nan, 10),
    ], columns=RESULT_COLUMNS)
    (line,) = quality_columns(rows, ["model"]).to_dict("records")
    # (1.0 * 30 + 0.0 * 10) / 40 = 0.75; tokens 100 + 50
    assert (line["parsed"], line["tokens in"]) == ("0.750", "150")


def _pairs(p_holm_ab, p_holm_ac, p_holm_bc):
    """gating comparisons of the three arms of the summary below (hierarchy_f1)."""
    rows = []
    for (a, b), p, diff in zip([("llm [rich/cot]", "other [base]"), ("llm [rich/cot]",
                                "llm [standard/direct]"), ("other [base]",
                                                           "llm [standard/direct]")],
                               (p_holm_ab, p_holm_ac, p_holm_bc), (0.05, 0.2, 0.15)):
        rows.append({"benchmark": "gating", "dataset": "OMIP-verified", "metric": "hierarchy_f1",
                     "family": "models", "scope": "",
                     "arm_a": a, "arm_b": b, "n": 15, "value_a": 0, "value_b": 0, "diff": diff,
                     # CI [0.0, 0.2]: SE = 0.1 / t(0.975, 14) -> MDD = (2.144787 + 0.868209)
                     # * 0.1 / 2.144787 = 0.1405
                     "ci_low": 0.0, "ci_high": 0.2, "p_value": p, "p_holm": p,
                     "method": "paired t", "mdd": 0.14048})
    return pd.DataFrame(rows)


def _three_arms() -> pd.DataFrame:
    frame = summary()
    extra = row("gating", "OMIP-verified", SHA_REAL, "other", "base", "hierarchy_f1", 0.65, 0.5,
                0.8, 15)
    return pd.concat([frame, pd.DataFrame([extra], columns=RESULT_COLUMNS)], ignore_index=True)


def test_ranks_share_the_top_tier_and_say_the_detectable_difference():
    # llm [rich/cot] 0.70 and other 0.65 are not told apart (p_holm 0.3); llm [standard/
    # direct] 0.50 differs from the leader (0.01) but not from other (0.2): no boundary
    # holds (other may not be ranked above standard/direct), so all three share rank 1
    _, gating = sections(_three_arms(), comparisons=_pairs(0.3, 0.01, 0.2))
    assert gating.table[["rank", "model", "condition"]].values.tolist() == [
        ["1=", "llm", "rich/cot"], ["1=", "other", "base"], ["1=", "llm", "standard/direct"]]
    assert gating.footer == ("With 15 cases, differences in hierarchy_f1 below 0.14 cannot be "
                             "told apart (80 % power, 5 % level, from the observed paired "
                             "variance).")
    text = leaderboard_markdown([gating])
    assert "| rank | model | condition |" in text and "| 1= | other | base |" in text
    assert gating.footer in text
    # every pair significant: 1, 2, 3 by value
    _, gating = sections(_three_arms(), comparisons=_pairs(0.01, 0.001, 0.02))
    assert gating.table["rank"].tolist() == ["1", "2", "3"]
    # other also beats standard/direct: {rich/cot, other} then standard/direct ranked 3
    _, gating = sections(_three_arms(), comparisons=_pairs(0.3, 0.01, 0.02))
    assert gating.table["rank"].tolist() == ["1=", "1=", "3"]


def test_show_reads_the_comparisons_beside_the_summary(tmp_path, capsys):
    path = tmp_path / "summary.csv"
    write_result_table(path, _three_arms())
    markdown = ["--format", "markdown"]
    assert main(["show", "gating", "--summary", str(path), *markdown]) == 0
    assert "| rank |" not in capsys.readouterr().out  # no comparisons.csv: no ranks
    (tmp_path / "gating").mkdir()
    _pairs(0.3, 0.01, 0.2).to_csv(tmp_path / "gating" / "comparisons.csv", index=False)
    assert main(["show", "gating", "--summary", str(path), *markdown]) == 0
    out = capsys.readouterr().out
    assert "| 1= | llm | rich/cot |" in out and "cannot be told apart" in out
    (tmp_path / "gating" / "comparisons.csv").write_text("a,b\n1,2\n")
    assert main(["show", "gating", "--summary", str(path)]) == 1
    assert "comparisons.csv: lacks columns" in capsys.readouterr().err


def test_the_report_page_lists_the_ranking_comparisons():
    parts = sections(_three_arms(), comparisons=_pairs(0.3, 0.01, 0.2))
    # the leaderboard page and the report's first page (the fragment) both list them
    for html in (leaderboard_html(parts), leaderboard_fragment(parts)):
        assert "Paired comparisons (results/gating/comparisons.csv)" in html
        # rich/cot - standard/direct: diff 0.2 with CI [0, 0.2], p 0.01 -> formatted cell
        # and 3 significant digits; the family column names the family
        assert "0.200 [0.000, 0.200]" in html and "<td>0.01</td>" in html
        assert "<th>family</th>" in html
        assert "rich/cot" in html and "cannot be told apart" in html


def test_the_leaderboard_page_links_each_model_to_its_items_in_the_sample_viewer():
    parts = sections(_three_arms(), comparisons=_pairs(0.3, 0.01, 0.2))
    html = leaderboard_html(parts)
    # the viewer's address of a model x condition: samples.html#<benchmark>/<model>/<condition>
    # with each part %-encoded ("/" inside a condition becomes %2F)
    assert '<a href="samples.html#gating/llm/rich%2Fcot">llm</a>' in html
    assert '<a href="samples.html#gating/other/base">other</a>' in html
    assert "scievals-link" not in html


def _many_arms(count: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """gating: ``count`` models m00, m01, ... with hierarchy_f1 0.90, 0.89, ... and every
    pair of them compared, each significant (so the ranks are 1, 2, 3, ...)."""
    names = [f"m{i:02d}" for i in range(count)]
    frame = pd.DataFrame([row("gating", "OMIP-verified", SHA_REAL, name, "base", "hierarchy_f1",
                              0.9 - 0.01 * i, 0.85 - 0.01 * i, 0.95 - 0.01 * i, 15)
                          for i, name in enumerate(names)], columns=RESULT_COLUMNS)
    pairs = pd.DataFrame([
        {"benchmark": "gating", "dataset": "OMIP-verified", "metric": "hierarchy_f1",
         "family": "models", "scope": "", "arm_a": a, "arm_b": b, "n": 15, "value_a": 0,
         "value_b": 0, "diff": 0.01 * (j - i), "ci_low": 0.0, "ci_high": 0.2,
         "p_value": 0.001, "p_holm": 0.001, "method": "paired t", "mdd": 0.01}
        for i, a in enumerate(names) for j, b in enumerate(names) if i < j])
    return frame, pairs


def test_with_many_arms_the_report_lists_only_the_pairs_of_the_rows_it_shows():
    # 30 arms: 30 * 29 / 2 = 435 pairs. The page shows the top 20 rows, so the pairs between
    # two of them, 20 * 19 / 2 = 190, and counts the other 435 - 190 = 245 (at 300 arms the
    # 45,000 pairs made the report's leaderboard 10 MB).
    frame, pairs = _many_arms(30)
    (gating,) = sections(frame, comparisons=pairs)
    assert gating.table["model"].tolist() == [f"m{i:02d}" for i in range(20)]
    assert (gating.hidden, len(gating.pairs), gating.hidden_pairs) == (10, 190, 245)
    assert set(gating.pairs["arm a"]) | set(gating.pairs["arm b"]) == set(gating.table["model"])
    for html in (leaderboard_fragment([gating]), leaderboard_html([gating])):
        assert ("Paired comparisons (results/gating/comparisons.csv): the 190 between rows "
                "shown above; 245 more in that file") in html
        assert "Top 20 rows shown, 10 more not shown" in html
        assert "m20" not in html and "m29" not in html
    # every row asked for: every pair, none counted as left out
    (everything,) = sections(frame, comparisons=pairs, top=None)
    assert (len(everything.table), len(everything.pairs), everything.hidden_pairs) == (30, 435, 0)


def test_a_limited_section_says_so_and_names_the_kept_full_run(tmp_path, monkeypatch):
    """A smoke run's section opens with one line; the last full result stays findable in the
    kept run logs (results/runs/, scievals.interop.runlogs)."""
    import json

    monkeypatch.chdir(tmp_path)
    frame = summary()
    limited = frame["benchmark"] == "gating"
    frame.loc[limited, "dataset"] = "OMIP-verified (limited to 2 items)"
    text = leaderboard_markdown(sections(frame))
    assert "LIMITED RUN" not in text.split("## gating")[0]  # abdev is a full result
    assert ("**LIMITED RUN: this table shows a smoke run on a few items (--limit), not a full "
            "result; no full gating result is kept in results/runs/.**") in text
    run = tmp_path / "results" / "runs" / "20261128T040000Z-0a0b0c"
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({
        "run_id": run.name, "records": [{"benchmark": "gating", "model": "llm",
                                         "condition": "", "label": "llm", "limited": False}]}))
    text = leaderboard_markdown(sections(frame))
    assert (f"the last full gating result is kept in results/runs/{run.name} (python -m "
            f"scievals logs; export it with python -m scievals export eee --run {run.name})"
            ) in text
    assert leaderboard_markdown(sections(summary())).count("LIMITED RUN") == 0


def test_every_table_scrolls_in_its_box_and_no_code_gets_backticks(tmp_path):
    """issue 46 item 7: the paired comparisons were cut at the right, and the report's prose
    style drew a literal backtick around every <code> of the leaderboard."""
    import re

    parts = sections(_three_arms(), comparisons=_pairs(0.3, 0.01, 0.2))
    for html in (leaderboard_html(parts), leaderboard_fragment(parts)):
        tables = html.count("<table")
        assert tables >= 2  # the headline table and the paired comparisons
        assert len(re.findall(r'<div class="wide"><table', html)) == tables
    # in Chromium, inside a page styled as the Snakemake report's prose (Tailwind typography
    # puts content: "`" before and after each code element)
    from report.browser import find_chromium, visit

    if not find_chromium():
        pytest.skip("no chromium on PATH (tests/report/test_report_browser.py says how to "
                    "install it)")
    page = tmp_path / "report.html"
    page.write_text(
        '<!DOCTYPE html><html><head><style>.prose code::before,.prose code::after'
        '{content:"`"} body{width:600px}</style></head><body><div class="prose">'
        + leaderboard_fragment(parts) + "</div></body></html>")
    probe = ("[[...document.querySelectorAll('code')].map(c => [getComputedStyle(c, '::before')"
             ".content, getComputedStyle(c, '::after').content]),"
             " [...document.querySelectorAll('details')].map(d => (d.open = true)),"
             " [...document.querySelectorAll('table')].map(t => getComputedStyle("
             "t.parentElement).overflowX + ' ' + (t.parentElement.getBoundingClientRect()"
             ".right <= 600 + 8))]")
    visited = visit(page.as_uri(), tmp_path / "profile", settle_s=0.5, probe=probe)
    assert not visited.errors, visited.errors
    codes, _, boxes = visited.probe
    assert codes and all(c == ["none", "none"] for c in codes)
    assert boxes and all(b == "auto true" for b in boxes)  # each box scrolls, within the page
