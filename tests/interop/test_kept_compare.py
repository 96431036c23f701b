"""Kept runs by id (scievals.interop.run_ids, kept_compare): ``compare RUN_A RUN_B`` pairs two
kept runs item by item per benchmark, model and metric; ``leaderboard`` takes run ids;
``logs`` lists kept imports, which compare beside our runs.

The kept runs are written by the code that keeps them at the end of a workflow run
(tests/support/kept_runs.py) from items whose scores are set there, so every figure is
worked by hand."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from support.kept_runs import AFTER, BEFORE, NEW, OLD, kept

from scievals.cli import main
from scievals.interop import imported_store

DATA = Path(__file__).parent / "data"
@pytest.fixture
def runs(tmp_path) -> Path:
    folder = tmp_path / "runs"
    kept(folder, OLD, BEFORE)
    kept(folder, NEW, AFTER)
    return folder


def test_compare_two_kept_runs_by_id_pairs_each_model(runs, tmp_path, capsys):
    pairs_csv = tmp_path / "pairs.csv"
    assert main(["compare", "20261128T04", "latest", "--runs-dir", str(runs), "--json",
                 "--csv", str(pairs_csv)]) == 0
    found = json.loads(capsys.readouterr().out)
    # per model and metric: hierarchy_f1 (the rows' score) and structure_accuracy (carried
    # in the rows' metadata and reported by the record); extra_only is not reported: left out
    assert {row["metric"] for row in found["comparisons"]} == {"hierarchy_f1",
                                                                "structure_accuracy"}
    structure = {row["arm_a"].split(" @ ")[0]: row for row in found["comparisons"]
                 if row["metric"] == "structure_accuracy"}
    # structure_accuracy = 1 - hierarchy_f1 per case: the old run is higher by the same
    # amounts, so the same exact p = 2 / 2^6, the old run's arm first
    assert structure["gpt [minimal_direct]"]["arm_a"] == f"gpt [minimal_direct] @ {OLD}"
    assert structure["gpt [minimal_direct]"]["diff"] == pytest.approx(1.6 / 6)
    assert structure["gpt [minimal_direct]"]["p_value"] == pytest.approx(2 / 64)
    by_model = {row["arm_a"].split(" @ ")[0]: row for row in found["comparisons"]
                if row["metric"] == "hierarchy_f1"}
    assert set(by_model) == {"gpt [minimal_direct]", "marker_baseline [minimal_direct]"}
    gpt = by_model["gpt [minimal_direct]"]
    # arms named by run id, the higher mean first (the engine's order)
    assert gpt["arm_a"] == f"gpt [minimal_direct] @ {NEW}"
    assert gpt["arm_b"] == f"gpt [minimal_direct] @ {OLD}"
    # per case the new run is higher by 0.4, 0.2, 0.3, 0.2, 0.2, 0.3: diff 1.6 / 6; all six
    # one way, so the exact sign-flip test (6 items) gives p = 2 / 2^6
    assert gpt["diff"] == pytest.approx(1.6 / 6) and gpt["n"] == 6
    assert gpt["p_value"] == pytest.approx(2 / 64)
    same = by_model["marker_baseline [minimal_direct]"]
    assert same["diff"] == 0 and same["p_value"] == pytest.approx(1.0)
    # "late" is only in the newer run: said, not compared
    assert any("late" in note and "not compared" in note for note in found["notes"])
    assert len(pd.read_csv(pairs_csv)) == 4  # 2 models x 2 metrics


def test_compare_by_id_as_text_with_names(runs, capsys):
    assert main(["compare", OLD, NEW, "--runs-dir", str(runs), "--name", "before",
                 "--name", "after"]) == 0
    out = capsys.readouterr().out
    assert "== gating/OMIP / gpt [minimal_direct]" in out
    assert "gpt [minimal_direct] @ after - gpt [minimal_direct] @ before: +0.2667" in out
    assert "all 6 items paired" in out


def test_leaderboard_takes_run_ids(runs, tmp_path, capsys):
    page = tmp_path / "board.html"
    assert main(["leaderboard", OLD, NEW, "--runs-dir", str(runs), "--format", "json",
                 "--html", str(page)]) == 0
    rows = json.loads(capsys.readouterr().out)["tables"]
    # the page's side-by-side holds each record's items: input, expected answer, reply
    html = page.read_text(encoding="utf-8")
    data = json.loads(html.split('id="items">', 1)[1].split("</script>", 1)[0])
    [task] = data
    entry = data[task]["arms"][f"gpt [minimal_direct] ({OLD})"]["case2#1"]
    assert entry == {"item": "case2", "sample": 1, "input": "panel 2", "target": "truth 2",
                     "answer": "tree 0.4",
                     "scores": {"hierarchy_f1": 0.4, "structure_accuracy": 0.6}}
    # five arms of one task: the model with 1.0 everywhere first; tokens 6 x 100 per arm
    assert rows[0]["arm"] == "late [minimal_direct]"
    assert {r["arm"] for r in rows} >= {f"gpt [minimal_direct] ({OLD})",
                                        f"gpt [minimal_direct] ({NEW})"}
    assert all(r["tokens_in"] == 600 and r["tokens_out"] == 120 for r in rows)
    assert all(r["cost_usd"] == pytest.approx(0.006) for r in rows)


def test_kept_imports_are_listed_and_compared_beside_runs(tmp_path, capsys):
    pytest.importorskip("zstandard")
    imported = tmp_path / "imported"
    assert main(["import", str(DATA / "inspect" / "c.eval"), "--out", str(imported)]) == 0
    capsys.readouterr()
    assert main(["logs", "--runs-dir", str(tmp_path / "none"), "--imported-dir",
                 str(imported)]) == 0
    listing = capsys.readouterr().out.splitlines()
    [line] = [ln for ln in listing if ln.startswith("imported:")]
    ref = line.split()[0]
    assert line.split()[1:] == ["mockllm-model", "capitals"]
    # the kept import against a log of its task: the same answer as the log itself gives
    assert main(["compare", ref, str(DATA / "inspect" / "a.eval"), "--imported-dir",
                 str(imported), "--json"]) == 0
    kept = json.loads(capsys.readouterr().out)["comparisons"]
    assert main(["compare", str(DATA / "inspect" / "c.eval"), str(DATA / "inspect" / "a.eval"),
                 "--json"]) == 0
    direct = json.loads(capsys.readouterr().out)["comparisons"]
    assert [(r["metric"], r["diff"], r["p_value"]) for r in kept] == [
        (r["metric"], r["diff"], r["p_value"]) for r in direct]


def test_unknown_or_repeated_runs_are_one_line(runs, capsys):
    assert main(["compare", OLD, "20991231", "--runs-dir", str(runs)]) == 1
    err = capsys.readouterr().err
    assert "no single kept run '20991231'" in err and err.count("\n") == 1
    assert main(["compare", OLD, OLD, "--runs-dir", str(runs)]) == 1
    assert "the same run twice" in capsys.readouterr().err
    assert main(["compare", OLD, NEW, "--runs-dir", str(runs), "--tolerance", "0.1"]) == 1
    assert "applies to result summaries" in capsys.readouterr().err
    assert main(["compare", OLD, NEW, "--runs-dir", str(runs), "--benchmark", "abdev"]) == 1
    assert "--benchmark: abdev: in no task both runs hold" in capsys.readouterr().err


def test_compare_by_id_keeps_to_a_benchmark(runs, capsys):
    assert main(["compare", OLD, NEW, "--runs-dir", str(runs), "--benchmark", "gating"]) == 0
    assert capsys.readouterr().out.count("== gating/OMIP / ") == 2  # gpt, marker_baseline


def test_kept_imports_are_bounded_sparing_the_ones_just_written(tmp_path):
    folder = tmp_path / "imported"
    folder.mkdir()
    tables = []
    for k in range(5):  # five tables, written one second apart, oldest first
        table = folder / f"m__task__{k:08x}.csv"
        table.write_text("x" * 100)
        os.utime(table, (1_000_000 + k, 1_000_000 + k))
        tables.append(table)
    # keep 2: the three oldest go, but table 0 was written by this import and stays, so
    # the next oldest (3) goes in its place
    removed = imported_store.prune_imported(folder, {tables[0]}, {"keep": 2, "max_mb": 500})
    assert removed == tables[1:4]
    assert imported_store.imported_tables(folder) == [tables[0], tables[4]]


def test_exported_records_rank_like_the_kept_run(runs, tmp_path, capsys):
    out = tmp_path / "eee"
    assert main(["export", "eee", "--run", OLD, "--runs-dir", str(runs), "--out",
                 str(out)]) == 0
    capsys.readouterr()
    assert main(["leaderboard", str(out), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["tables"]
    means = {(r["arm"], r["metric"]): r["value"] for r in rows}
    # BEFORE: gpt's hierarchy_f1 mean 3.3 / 6, structure_accuracy 1 - that; the baseline 0.4
    # (arms are the records' model ids with the condition their evaluation_id names,
    # gating@minimal_direct/..., as `logs` labels a kept run's arms)
    gpt, baseline = "openai/gpt-4o-mini [minimal_direct]", "scievals/marker_baseline [minimal_direct]"
    assert means[(gpt, "hierarchy_f1")] == pytest.approx(3.3 / 6)
    assert means[(gpt, "structure_accuracy")] == pytest.approx(2.7 / 6)
    assert means[(baseline, "hierarchy_f1")] == pytest.approx(0.4)


def test_arms_without_a_shared_metric_are_said(tmp_path, capsys):
    imported = tmp_path / "imported"
    imported.mkdir()
    for digest, metric in (("aaaa1111", "x"), ("bbbb2222", "y")):
        (imported / f"m__t__{digest}.csv").write_text(
            "arm,dataset,metric,item,sample,score,kind,low,high,lower_is_better\n"
            + "".join(f"m,t,{metric},i{k},1,{k % 2},pass_fail,0,1,False\n" for k in range(4)))
    assert main(["compare", "imported:aaaa", "imported:bbbb", "--imported-dir",
                 str(imported)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "t / m: not compared" in err
