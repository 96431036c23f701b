"""``python -m scievals leaderboard LOG...`` (scievals.interop.leaderboard): real logs made by
the real tools, every figure worked out by hand from the scripts that made them.

tests/interop/data/leaderboard/ (tests/support/make_leaderboard_logs.py, inspect_ai 0.3.285,
mockllm with scripted replies; 60 samples s01..s60, inspect's ``includes`` scorer):
strong right on s01..s42 (70 %), weak on s01..s33 (55 %), twice two epochs, right in both on
s01..s40 and in the first only on s41 (per-item shares: 40.5 / 60 = 67.5 %).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from scipy.stats import binomtest

from scievals.cli import main

DATA = Path(__file__).parent / "data"
BOARD = DATA / "leaderboard"
LOGS = [str(BOARD / name) for name in ("weak.eval", "twice.eval", "strong.eval")]


@pytest.fixture(autouse=True)
def _zstd():
    pytest.importorskip("zstandard")  # inspect_ai writes .eval entries with zstd


def _markdown_rows(text: str, heading: str) -> list[list[str]]:
    """The body rows of the table under ``### heading``."""
    block = text.split(f"### {heading}\n", 1)[1].strip("\n").split("\n\n", 1)[0]
    return [[c.strip() for c in line.strip().strip("|").split(" | ")]
            for line in block.splitlines()[2:]]


def test_three_inspect_logs_rank_as_the_paired_tests_say(tmp_path, capsys):
    page = tmp_path / "board.html"
    assert main(["leaderboard", *LOGS, "--html", str(page)]) == 0
    out = capsys.readouterr().out
    rows = _markdown_rows(out, "sums / includes")
    # Means by hand: 42/60 = 0.700, 40.5/60 = 0.675, 33/60 = 0.550; the 70 % model first
    # although given last. Paired tests (each pair on its own items; twice's s41 passed in one
    # epoch of two, so the metric is compared as per-item pass shares, sign-flip):
    # strong - weak: +1 on s34..s42 (9 items, all one way): p = 2 / 2^9 = 0.0039;
    # twice - weak: +1 on s34..s40, +0.5 on s41 (8, all one way): p = 2 / 2^8 = 0.0078;
    # strong - twice: +0.5 on s41, +1 on s42: |sum| >= 1.5 in 2 of 4 patterns, p = 0.5.
    # Holm over 3: 3 x 0.0039 = 0.012 and 2 x 0.0078 = 0.016 are below 0.05, 0.5 is not:
    # weak is below both, strong and twice are not told apart -> ranks 1=, 1=, 3.
    assert [(r[0], r[1], r[2].split()[0], r[3]) for r in rows] == [
        ("1=", "mockllm/model (strong.eval)", "0.700", "60"),
        ("1=", "mockllm/model (twice.eval)", "0.675", "60"),
        ("3", "mockllm/model (weak.eval)", "0.550", "60")]
    # strong and weak score every item 0 or 1: their intervals are Wilson's (the engine's
    # effective-sample-size Wilson, within 0.002 of scipy's at n = 60)
    for row, passed in ((rows[0], 42), (rows[2], 33)):
        low, high = (float(x) for x in re.findall(r"[\d.]+", row[2].split(" ", 1)[1]))
        wilson = binomtest(passed, 60).proportion_ci(method="wilson")
        assert low == pytest.approx(wilson.low, abs=0.002)
        assert high == pytest.approx(wilson.high, abs=0.002)
    # tokens and cost: 5 in + 1 out and 0.0001 / 0.0002 / 0.00005 USD per reply; 60 replies
    # each for strong and weak, 120 (two epochs) for twice
    assert [r[4:7] for r in rows] == [["300", "60", "0.0060"], ["600", "120", "0.0240"],
                                      ["300", "60", "0.0030"]]
    assert "differences in includes below" in out  # the detectable-difference line
    assert page.is_file()


def test_the_pairs_behind_the_ranks(capsys):
    assert main(["leaderboard", *LOGS, "--format", "json"]) == 0
    board = json.loads(capsys.readouterr().out)
    pairs = {(p["arm_a"].split("(")[1][:-1], p["arm_b"].split("(")[1][:-1]): p
             for p in board["pairs"]}
    strong_weak = pairs[("strong.eval", "weak.eval")]
    assert strong_weak["diff"] == pytest.approx(0.15) and strong_weak["n"] == 60  # 9 / 60
    # Monte-Carlo sign-flip (60 items > 13) against the exact values above: within 0.003
    assert strong_weak["p_value"] == pytest.approx(2 / 2**9, abs=0.003)
    twice_weak = pairs[("twice.eval", "weak.eval")]
    assert twice_weak["diff"] == pytest.approx(7.5 / 60)
    assert twice_weak["p_value"] == pytest.approx(2 / 2**8, abs=0.003)
    strong_twice = pairs[("strong.eval", "twice.eval")]
    assert strong_twice["diff"] == pytest.approx(1.5 / 60)
    assert strong_twice["p_holm"] > 0.05
    assert max(strong_weak["p_holm"], twice_weak["p_holm"]) < 0.05


def test_the_page_holds_the_tables_and_every_item_of_every_arm(tmp_path, capsys):
    page = tmp_path / "board.html"
    assert main(["leaderboard", *LOGS, "--name", "weak", "--name", "twice", "--name",
                 "strong", "--html", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "overflow-x: auto" in html and "white-space: pre-wrap" in html  # scroll, wrap
    assert not re.search(r"(src|href)=\"?https?:", html)  # self-contained: nothing fetched
    data = json.loads(re.search(r'<script type="application/json" id="items">(.*?)</script>',
                                html, re.S).group(1))
    arms = data["sums"]["arms"]
    assert set(arms) == {"strong", "weak", "twice"}
    # s42 = "What is 42 plus 42?": strong answers 84 (C), weak does not know (I)
    assert arms["strong"]["s42#1"] | {"scores": None} == {
        "item": "s42", "sample": 1, "input": "What is 42 plus 42?", "target": "84",
        "answer": "84", "scores": None}
    assert arms["strong"]["s42#1"]["scores"] == {"includes": 1.0}
    assert arms["weak"]["s42#1"]["answer"] == "I do not know"
    assert arms["weak"]["s42#1"]["scores"] == {"includes": 0.0}
    # twice: s41 right in epoch 1 only; 60 items x 2 epochs
    assert arms["twice"]["s41#1"]["scores"] == {"includes": 1.0}
    assert arms["twice"]["s41#2"]["scores"] == {"includes": 0.0}
    assert len(arms["twice"]) == 120 and len(arms["strong"]) == 60
    table = html.split("<h3>sums / includes</h3>", 1)[1]
    assert table.index(">strong<") < table.index(">twice<") < table.index(">weak<")


def _lm_eval_counts() -> tuple[dict, int, int]:
    """Each lm-eval run's exact_match per doc, and the discordant counts, read from the
    samples files with nothing but json."""
    scores = {}
    for run in ("a", "b"):
        [samples] = (DATA / "lm_eval" / run).glob("samples_tiny_sums_*.jsonl")
        scores[run] = {json.loads(line)["doc_id"]: json.loads(line)["exact_match"]
                       for line in samples.read_text().splitlines() if line.strip()}
    only_a = sum(scores["a"][d] == 1 and scores["b"][d] == 0 for d in scores["a"])
    only_b = sum(scores["a"][d] == 0 and scores["b"][d] == 1 for d in scores["a"])
    return scores, only_a, only_b


def test_an_lm_eval_output_folder_is_a_board_of_its_runs(capsys):
    scores, only_a, only_b = _lm_eval_counts()
    assert main(["leaderboard", str(DATA / "lm_eval"), "--format", "json"]) == 0
    board = json.loads(capsys.readouterr().out)
    rows = board["tables"]
    # the same model in two runs of one task: told apart by lm-eval's output folder
    assert [r["arm"].rsplit(" ", 1)[1] for r in rows] == ["(a)", "(b)"]
    assert [r["value"] for r in rows] == [sum(scores["a"].values()) / 10,
                                          sum(scores["b"].values()) / 10]
    [pair] = board["pairs"]
    # exact McNemar: the discordant docs as a binomial test at 1/2
    assert pair["p_value"] == pytest.approx(binomtest(only_a, only_a + only_b).pvalue)
    assert [r["rank"] for r in rows] == (["1", "2"] if pair["p_holm"] < 0.05 else ["1=", "1="])
    assert all(r["tokens_in"] is None and r["cost_usd"] is None for r in rows)  # not logged


def test_tasks_are_grouped_and_names_given(capsys):
    logs = [str(DATA / "inspect" / "a.eval"), str(DATA / "lm_eval" / "a"),
            str(DATA / "lm_eval" / "b"), str(DATA / "inspect" / "c.eval")]
    assert main(["leaderboard", *logs, "--name", "A", "--name", "lm-a", "--name", "lm-b",
                 "--format", "csv"]) == 0
    out = capsys.readouterr().out.splitlines()
    header = out[0].split(",")
    rows = [dict(zip(header, line.split(","))) for line in out[1:]]
    by_task = {}
    for row in rows:
        by_task.setdefault(row["task"], set()).add(row["arm"])
    # capitals (inspect) and tiny_sums (lm-eval) never share a table; the fourth log has no
    # --name and keeps its model's name
    assert by_task == {"capitals": {"A", "mockllm/model"}, "tiny_sums": {"lm-a", "lm-b"}}


def test_bad_names_and_unreadable_logs_are_one_line(tmp_path, capsys):
    assert main(["leaderboard", *LOGS, "--name", "x", "--name", "x"]) == 1
    assert capsys.readouterr().err.strip().count("\n") == 0
    assert main(["leaderboard", LOGS[0], "--name", "a", "--name", "b"]) == 1
    err = capsys.readouterr().err
    assert "2 names for 1 arguments" in err and err.count("\n") == 1
    cut = tmp_path / "cut.eval"
    cut.write_bytes(Path(LOGS[0]).read_bytes()[:5000])
    assert main(["leaderboard", LOGS[0], str(cut)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {cut}") and err.count("\n") == 1
    assert main(["leaderboard", LOGS[0], LOGS[1], LOGS[0]]) == 1
    assert "the same log is given twice" in capsys.readouterr().err
    assert main(["leaderboard", "20991231T000000Z"]) == 1  # no kept run of that id
    assert "no single kept run" in capsys.readouterr().err
    out = tmp_path / "board.html"
    out.mkdir()
    assert main(["leaderboard", LOGS[0], "--html", str(out)]) == 1  # a folder: refused
    assert capsys.readouterr().err.startswith("error:")


def test_compare_names_the_arms_of_logs(capsys):
    scores, only_a, only_b = _lm_eval_counts()
    [a] = (DATA / "lm_eval" / "a").glob("results_*.json")
    [b] = (DATA / "lm_eval" / "b").glob("results_*.json")
    assert main(["compare", str(a), str(b), "--name", "good", "--name", "worse"]) == 0
    out = capsys.readouterr().out
    diff = (sum(scores["a"].values()) - sum(scores["b"].values())) / 10
    assert f"good - worse: {diff:+.4g}" in out
    assert f"p {binomtest(only_a, only_a + only_b).pvalue:.3g}" in out
    assert "qdpv68r5 (" not in out.split("tiny_sums / exact_match", 1)[1]  # no long labels
