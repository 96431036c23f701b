"""Kept runs by id (scievals.interop.run_ids, kept_compare): ``compare RUN_A RUN_B`` pairs two
kept runs item by item per benchmark, model and metric; ``leaderboard`` takes run ids;
``logs`` lists kept imports, which compare beside our runs.

The kept runs are written by the code that keeps them at the end of a workflow run
(:func:`scievals.interop.eee.build_records` + :func:`scievals.interop.runlogs._write`) from
items whose scores are set here, so every figure is worked by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from scievals.cli import main
from scievals.common.io import write_json
from scievals.interop import eee, runlogs

DATA = Path(__file__).parent / "data"
OLD, NEW = "20261128T040000Z-aaaaaa", "20261128T050000Z-bbbbbb"
MODELS = {"gpt": {"provider": "openai", "model": "gpt-4o-mini"},
          "marker_baseline": {"provider": "baseline"}, "late": {"provider": "baseline"}}
# per model, the hierarchy_f1 of cases case0..case5
BEFORE = {"gpt": [0.5, 0.6, 0.4, 0.7, 0.8, 0.3], "marker_baseline": [0.4] * 6}
AFTER = {"gpt": [0.9, 0.8, 0.7, 0.9, 1.0, 0.6], "marker_baseline": [0.4] * 6,
         "late": [1.0] * 6}


def _item(model: str, case: int, score: float) -> dict:
    return {"benchmark": "gating", "model": model, "item": f"case{case}",
            "condition": "minimal_direct", "input": f"panel {case}", "reply": f"tree {score}",
            "parse_status": "ok", "outcome": "scored", "metrics": {"hierarchy_f1": score},
            "rationale": "", "expected": f"truth {case}", "score": score,
            "score_name": "hierarchy_f1", "tokens_in": 100, "tokens_out": 20,
            "cost_usd": 0.001, "latency_s": 1.0}


def _kept(runs: Path, name: str, scores: dict[str, list[float]]) -> None:
    """A kept run of gating as keep_run writes it: records + run.json."""
    rows, samples = [], {}
    for model, values in scores.items():
        rows.append({"benchmark": "gating", "dataset": "OMIP", "dataset_sha256": "ab" * 32,
                     "model": model, "condition": "minimal_direct", "metric": "hierarchy_f1",
                     "value": sum(values) / len(values), "ci_low": 0.0, "ci_high": 1.0,
                     "n": len(values), "ci_method": "wilson-ess", "scievals_version": "0.1.0",
                     "git_commit": "abc", "config_hash": "c0ffee"})
        samples[("gating", model)] = [_item(model, k, s) for k, s in enumerate(values)]
    facts = eee.RunFacts(retrieved_timestamp="1764300000", run_id=name)
    records = eee.build_records(pd.DataFrame(rows), samples, MODELS, facts)
    entries = runlogs._write(runs / name, name, records)
    write_json(runs / name / runlogs.RUN_FILE, {
        "run_id": name, "recorded_utc": "2026-11-28T04:00:00+00:00", "limited": False,
        "records": entries, "digests": {}, "benchmarks": ["gating"],
        "models": sorted(scores)})


@pytest.fixture
def runs(tmp_path) -> Path:
    folder = tmp_path / "runs"
    _kept(folder, OLD, BEFORE)
    _kept(folder, NEW, AFTER)
    return folder


def test_compare_two_kept_runs_by_id_pairs_each_model(runs, tmp_path, capsys):
    pairs_csv = tmp_path / "pairs.csv"
    assert main(["compare", "20261128T04", "latest", "--runs-dir", str(runs), "--json",
                 "--csv", str(pairs_csv)]) == 0
    found = json.loads(capsys.readouterr().out)
    by_model = {row["arm_a"].split(" @ ")[0]: row for row in found["comparisons"]}
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
    assert len(pd.read_csv(pairs_csv)) == 2


def test_compare_by_id_as_text_with_names(runs, capsys):
    assert main(["compare", OLD, NEW, "--runs-dir", str(runs), "--name", "before",
                 "--name", "after"]) == 0
    out = capsys.readouterr().out
    assert "== gating/OMIP / gpt [minimal_direct]" in out
    assert "gpt [minimal_direct] @ after - gpt [minimal_direct] @ before: +0.2667" in out
    assert "all 6 items paired" in out


def test_leaderboard_takes_run_ids(runs, capsys):
    assert main(["leaderboard", OLD, NEW, "--runs-dir", str(runs), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["tables"]
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
