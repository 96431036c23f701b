"""Kept run logs (scievals.interop.runlogs): listing, pruning within its bounds without ever
removing the last full result, finding a run, and one line for what is wrong."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pandas as pd
import pytest

from scievals.common.tables import RESULT_COLUMNS

from scievals.common.errors import ScievalsError
from scievals.interop import runlogs


def _run(runs: Path, name: str, *, limited: bool, benchmark: str = "gating",
         size: int = 0) -> Path:
    """A kept run with one record of ``benchmark`` (and ``size`` bytes of data)."""
    folder = runs / name
    folder.mkdir(parents=True)
    entry = {"benchmark": benchmark, "model": "m", "condition": "", "label": "m",
             "limited": limited, "items": 2, "viewer": "viewer/0000.js",
             "viewer_key": f"{name}/{benchmark}/m/", "aggregate": "", "samples": ""}
    (folder / runlogs.RUN_FILE).write_text(json.dumps({
        "run_id": name, "recorded_utc": "2026-11-28T04:00:00+00:00", "limited": limited,
        "records": [entry], "digests": {f"{benchmark}/m": name}}))
    if size:
        (folder / "data.bin").write_bytes(b"x" * size)
    return folder


NAMES = [f"20261128T04000{i}Z-00000{i}" for i in range(5)]


def test_pruning_keeps_the_newest_and_the_last_full_run_of_each_benchmark(tmp_path):
    runs = tmp_path / "runs"
    _run(runs, NAMES[0], limited=False)  # the last full gating run
    _run(runs, NAMES[1], limited=False, benchmark="abdev")  # the last full abdev run
    for name in NAMES[2:]:
        _run(runs, name, limited=True)
    # keep 2: runs 2 and 3 go (oldest unprotected first); 0 and 1 are the last full runs of
    # their benchmarks, 4 is the newest, so 3 stay although keep says 2.
    removed = runlogs.prune(runs, {"keep": 2, "max_mb": 500})
    assert removed == [NAMES[2], NAMES[3]]
    assert [r["run_id"] for r in runlogs.list_runs(runs)] == [NAMES[0], NAMES[1], NAMES[4]]
    assert runlogs.last_full_run("gating", runs) == NAMES[0]
    assert runlogs.last_full_run("abdev", runs) == NAMES[1]
    assert runlogs.last_full_run("waza", runs) is None


def test_pruning_by_size_removes_the_oldest_until_under_the_bound(tmp_path):
    runs = tmp_path / "runs"
    for name in NAMES[:4]:
        _run(runs, name, limited=False, size=400_000)
    # 4 runs of ~0.4 MB each, max 1 MB: the two oldest go (1.6 -> 1.2 -> 0.8 MB); the
    # newest full run of gating is the newest run, protected anyway.
    assert runlogs.prune(runs, {"keep": 20, "max_mb": 1}) == NAMES[:2]
    assert sum(r["bytes"] for r in runlogs.list_runs(runs)) < 1_000_000


def test_listing_says_limited_or_full_and_the_size(tmp_path):
    runs = tmp_path / "runs"
    _run(runs, NAMES[0], limited=False, size=2_000_000)
    _run(runs, NAMES[1], limited=True)
    lines = runlogs.lines(runlogs.list_runs(runs))
    assert lines[1].split()[:3] == [NAMES[0], "2026-11-28T04:00:00", "full"]
    assert float(lines[1].split()[3]) == pytest.approx(2.0, abs=0.01)  # 2,000,000 bytes
    assert lines[2].split()[2] == "limited" and lines[2].endswith("gating: m")
    assert runlogs.lines([])[0].startswith("no kept runs")


def test_a_damaged_or_foreign_folder_is_left_out_and_a_run_is_found_by_prefix(tmp_path):
    runs = tmp_path / "runs"
    _run(runs, NAMES[0], limited=False)
    (runs / NAMES[1]).mkdir()
    (runs / NAMES[1] / runlogs.RUN_FILE).write_text("{not json")
    (runs / "notes").mkdir()
    assert [r["run_id"] for r in runlogs.list_runs(runs)] == [NAMES[0]]
    assert runlogs.find_run(NAMES[0][:12], runs)["run_id"] == NAMES[0]
    assert runlogs.find_run("latest-full", runs)["runs"] == [NAMES[0]]
    with pytest.raises(ScievalsError) as caught:
        runlogs.find_run("1999", runs)
    assert "no single kept run '1999'" in caught.value.one_line()
    assert "\n" not in caught.value.one_line()


def test_run_names_sort_by_time():
    from datetime import UTC, datetime

    early = runlogs.run_name(datetime(2026, 11, 28, 4, 0, 59, tzinfo=UTC))
    late = runlogs.run_name(datetime(2026, 11, 28, 4, 1, 0, tzinfo=UTC))
    assert runlogs.RUN_NAME.fullmatch(early) and early < late


def test_a_run_larger_than_max_mb_is_not_kept_and_leaves_nothing(tmp_path):
    """A log over the size bound is refused before anything is read (the score tables alone
    are larger) or while it is written (extrapolated from its first records): one line, no
    folder."""
    from scievals.interop import eee

    results = tmp_path / "results"
    scores = results / "abdev" / "scores"
    scores.mkdir(parents=True)
    (scores / "m.csv").write_bytes(b"x" * 2_000_000)  # 2 MB of score table, max 1 MB
    with pytest.raises(ScievalsError) as caught:
        runlogs.keep_run(results, ["abdev"], None, {"run_logs": {"keep": 5, "max_mb": 1}})
    assert ("would take more than run_logs.max_mb (1 MB; its score tables alone take 2.0 MB): "
            "not kept") in caught.value.one_line()
    assert not (results / "runs").exists()
    # while writing: 100 records of ~30 kB each (~3 MB) against 1 MB: after the first 20
    # (~0.6 MB written) the extrapolation 0.6 MB / 20 x 100 = 3 MB stops it
    made = eee.Record("gating", "m", "", {"model_info": {"developer": "d", "name": "m"},
                                          "evaluation_results": [], "pad": "x" * 30_000},
                      [], "", [])
    records = [eee.Record(**{**made.__dict__, "uuid": f"{i:08d}-0000-4000-8000-000000000000"})
               for i in range(100)]
    folder = tmp_path / "runs" / ".x.partial"
    with pytest.raises(ScievalsError) as caught:
        runlogs._write(folder, "x", records, 1e6, {"max_mb": 1})
    assert "(1 MB; about 3 MB from its first 20 of 100 records)" in caught.value.one_line()
    assert len(list(folder.rglob("*.json"))) == runlogs.SIZE_PROBE == 20


def test_exporting_a_damaged_kept_run_is_one_line(tmp_path, capsys):
    from scievals.cli import main

    runs = tmp_path / "runs"
    folder = _run(runs, NAMES[0], limited=False)
    run = json.loads((folder / runlogs.RUN_FILE).read_text())
    run["records"][0]["aggregate"] = "data/gating/scievals/m/missing.json"
    (folder / runlogs.RUN_FILE).write_text(json.dumps(run))
    code = main(["export", "eee", "--run", "latest", "--runs-dir", str(runs),
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1
    assert f"kept run {NAMES[0]} is damaged (FileNotFoundError" in err[0]
    assert not (tmp_path / "out" / "data").exists()


def _score_table(results: Path, model: str, value: float) -> None:
    row = {"benchmark": "abdev", "dataset": "GDPa1_cross_validation", "dataset_sha256": "a" * 64,
           "model": model, "condition": "fold=average", "metric": "HIC:spearman",
           "value": value, "ci_low": value - 0.1, "ci_high": value + 0.1, "n": 246,
           "ci_method": "percentile-cluster", "scievals_version": "0.1.0",
           "git_commit": "abc", "config_hash": "0" * 12}
    path = results / "abdev" / "scores" / f"{model}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame([row], columns=RESULT_COLUMNS).to_csv(path, index=False)


def test_a_log_keeps_this_runs_tables_once_and_only_what_changed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the samples readers read results/ under the working folder
    results = tmp_path / "results"
    _score_table(results, "a", 0.3)
    _score_table(results, "b", 0.4)
    (results / "abdev" / "scores" / "a.reference.csv").write_text("not a model\n")
    config = {"run_logs": {"keep": 5, "max_mb": 10}, "models": {}}
    # the run's jobs made a's table only: b's is an older run's
    first = runlogs.keep_run(results, ["abdev"], {"results/abdev/scores/a.csv"}, config)
    run = json.loads((first / runlogs.RUN_FILE).read_text())
    assert [e["model"] for e in run["records"]] == ["a"]
    aggregate = json.loads((first / run["records"][0]["aggregate"]).read_text())
    assert aggregate["evaluation_results"][0]["score_details"]["score"] == 0.3
    # the same tables again: nothing new to keep
    assert runlogs.keep_run(results, ["abdev"], None, config).name != first.name  # b is new
    assert runlogs.keep_run(results, ["abdev"], None, config) is None
    # a changes: the next log holds a alone, and the first is as it was
    before = (first / run["records"][0]["aggregate"]).read_bytes()
    _score_table(results, "a", 0.35)
    third = runlogs.keep_run(results, ["abdev"], None, config)
    assert [e["model"] for e in json.loads((third / runlogs.RUN_FILE).read_text())["records"]] \
        == ["a"]
    assert (first / run["records"][0]["aggregate"]).read_bytes() == before
    index = (results / "runs" / runlogs.VIEWER_INDEX).read_text()
    assert index.startswith("scievalsRuns([") and index.count('"run": ') == 3


def test_a_staging_folder_of_a_dead_run_goes_and_a_live_ones_stays(tmp_path, monkeypatch):
    """issue 46 item 4: `kill -9` while a log is staged left `.<id>.partial` forever."""
    import subprocess
    import sys

    monkeypatch.chdir(tmp_path)
    results = tmp_path / "results"
    runs = results / "runs"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    host = runlogs.socket.gethostname()
    stale = runs / f".{NAMES[0]}.partial"
    live = runs / f".{NAMES[1]}.partial"
    for folder, pid in [(stale, int(dead.stdout)), (live, os.getpid())]:
        (folder / "data").mkdir(parents=True)
        (folder / "data" / "x.json").write_bytes(b"x" * 1000)
        (folder / runlogs.OWNER_FILE).write_text(json.dumps({"pid": pid, "host": host}))
    # one without an owner (a version that wrote none): stale after an hour untouched
    old = runs / f".{NAMES[2]}.partial"
    old.mkdir()
    (old / "run.json").write_text("{}")
    two_hours_ago = time.time() - 7200
    os.utime(old / "run.json", (two_hours_ago, two_hours_ago))
    os.utime(old, (two_hours_ago, two_hours_ago))
    fresh = runs / f".{NAMES[3]}.partial"
    fresh.mkdir()
    _score_table(results, "a", 0.3)
    kept = runlogs.keep_run(results, ["abdev"], None, {"run_logs": {"keep": 5, "max_mb": 10},
                                                       "models": {}})
    assert kept is not None and (kept / runlogs.RUN_FILE).is_file()
    assert not stale.exists() and not old.exists()
    assert live.is_dir() and fresh.is_dir()  # a live run's (or one just begun) is not touched
    assert not (kept / runlogs.OWNER_FILE).exists()
    # ... and a run that keeps nothing new cleans up too
    live_owner = json.loads((live / runlogs.OWNER_FILE).read_text())
    (live / runlogs.OWNER_FILE).write_text(json.dumps({**live_owner, "pid": int(dead.stdout)}))
    assert runlogs.keep_run(results, ["abdev"], None, {"run_logs": {"keep": 0}}) is None
    assert not live.exists()


def test_a_symlink_in_the_runs_folder_neither_stops_pruning_nor_is_followed(tmp_path):
    """issue 46 item 4: a run-like symlink made pruning fail at every later run."""
    runs = tmp_path / "runs"
    elsewhere = _run(tmp_path / "elsewhere", NAMES[0], limited=True, size=2_000_000)
    runs.mkdir()
    (runs / NAMES[0]).symlink_to(elsewhere, target_is_directory=True)
    (runs / "20261128T040009Z-00000f").symlink_to(tmp_path / "gone")  # dangling, run-like
    for name in NAMES[1:4]:
        _run(runs, name, limited=True, size=400_000)
    # 3 real runs of 0.4 MB, max 1 MB: the oldest real run goes (1.2 -> 0.8 MB); the link
    # is neither counted (its 2 MB would have removed every unprotected run) nor removed
    assert runlogs.prune(runs, {"keep": 20, "max_mb": 1}) == [NAMES[1]]
    assert [r["run_id"] for r in runlogs.list_runs(runs)] == NAMES[2:4]
    assert (runs / NAMES[0]).is_symlink() and (elsewhere / runlogs.RUN_FILE).is_file()


def test_a_log_is_kept_and_said_so_when_pruning_fails(tmp_path, monkeypatch, caplog):
    monkeypatch.chdir(tmp_path)
    results = tmp_path / "results"
    _score_table(results, "a", 0.3)

    def broken(*args):
        raise PermissionError(13, "Permission denied", "results/runs/old")

    monkeypatch.setattr(runlogs, "prune", broken)
    kept = runlogs.keep_run(results, ["abdev"], None, {"run_logs": {"keep": 5, "max_mb": 10},
                                                       "models": {}})
    assert kept is not None and (kept / runlogs.RUN_FILE).is_file()
    assert f"{kept} was kept, but pruning the older runs" in caplog.text


def test_logs_names_models_as_the_results_do_and_wraps_on_a_terminal(tmp_path):
    """issue 46 item 7: `logs` printed 359-character lines, one `fake [minimal_cot]` per
    record."""
    runs = tmp_path / "runs"
    folder = _run(runs, NAMES[0], limited=False)
    run = json.loads((folder / runlogs.RUN_FILE).read_text())
    conditions = [f"{c}_{s}" for c in ("minimal", "standard", "rich") for s in ("direct", "cot")]
    run["records"] = [{**run["records"][0], "model": "a-rather-long-model-name", "condition": c,
                       "label": f"a-rather-long-model-name [{c}]", "conditions": [c]}
                      for c in conditions] + [
        {**run["records"][0], "model": f"baseline_{i}", "condition": "baseline",
         "label": f"baseline_{i} [baseline]", "conditions": ["baseline"]} for i in range(6)]
    (folder / runlogs.RUN_FILE).write_text(json.dumps(run))
    [one_line] = runlogs.lines(runlogs.list_runs(runs))[1:]
    assert one_line.endswith("gating: a-rather-long-model-name (6 conditions), baseline_0, "
                             "baseline_1, baseline_2, baseline_3, baseline_4, baseline_5")
    wrapped = runlogs.lines(runlogs.list_runs(runs), width=99)[1:]
    assert len(wrapped) == 1 and "\n" in wrapped[0]
    shown = wrapped[0].splitlines()
    assert all(len(line) <= 99 for line in shown) and len(shown) == 2
    assert all(line.startswith("    ") for line in shown[1:])
    assert " ".join(shown).split() == one_line.split()  # the same words, wrapped


def test_latest_full_is_the_last_complete_result_gathered_from_the_runs(tmp_path):
    """issue 46 item 7: after a full run and `snakemake gating`, `--run latest-full` exported
    the one-benchmark run (1 record), not the last complete result."""
    runs = tmp_path / "runs"
    _run(runs, NAMES[0], limited=False, benchmark="abdev")  # a full run: abdev and gating
    full = json.loads((runs / NAMES[0] / runlogs.RUN_FILE).read_text())
    full["records"].append({**full["records"][0], "benchmark": "gating", "model": "g"})
    (runs / NAMES[0] / runlogs.RUN_FILE).write_text(json.dumps(full))
    _run(runs, NAMES[1], limited=False, benchmark="gating")  # then gating alone (model m)
    _run(runs, NAMES[2], limited=True, benchmark="abdev")  # then a smoke run
    whole = runlogs.find_run("latest-full", runs)
    # abdev/m and gating/g from the first run, gating/m from the second; the smoke run's
    # abdev/m is not a full result, so the first run's stands
    assert sorted((r["benchmark"], r["model"], Path(r["folder"]).name)
                  for r in whole["records"]) == [("abdev", "m", NAMES[0]),
                                                 ("gating", "g", NAMES[0]),
                                                 ("gating", "m", NAMES[1])]
    assert whole["runs"] == NAMES[:2] and not whole["limited"]
    assert runlogs.find_run("latest", runs)["run_id"] == NAMES[2]
    only_limited = tmp_path / "only-limited"
    _run(only_limited, NAMES[0], limited=True)
    with pytest.raises(ScievalsError, match="no single kept run 'latest-full'"):
        runlogs.find_run("latest-full", only_limited)
