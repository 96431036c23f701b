"""The README's main command, end to end, on the embedded default data."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from scievals import registry
from scievals.stats.intervals import metric_range
from scievals.common.tables import RESULT_COLUMNS
from scievals.common.workflow import byo_batches
from support.snakemake_log import complete_log

from .conftest import copy_default_run, copy_workflow, quick_start_output, snakemake

pytestmark = pytest.mark.slow


def test_summary_has_every_benchmark_with_provenance(default_run):
    summary = pd.read_csv(default_run / "results" / "summary.csv", dtype={"git_commit": str})
    assert list(summary.columns) == RESULT_COLUMNS
    config_benchmarks = re.search(r"^benchmarks: \[(.*)\]", (default_run / "config/config.yaml").read_text(), re.MULTILINE)
    expected = {b.strip() for b in config_benchmarks.group(1).split(",")}
    assert set(summary["benchmark"]) == expected
    assert summary["git_commit"].eq("testcommit").all()
    assert summary["dataset_sha256"].str.fullmatch(r"[0-9a-f]{64}").all()
    assert summary["config_hash"].str.fullmatch(r"[0-9a-f]{12}").all()
    assert summary["scievals_version"].notna().all()
    assert not summary.duplicated(["benchmark", "dataset", "model", "condition", "metric"]).any()


def test_abdev_rows_say_demo_and_ridge_beats_random(default_run):
    summary = pd.read_csv(default_run / "results" / "summary.csv")
    abdev = summary[summary["benchmark"] == "abdev"]
    # Offline, the public GDPa1 cannot be fetched: the demo must be named as such.
    assert abdev["dataset"].str.contains("demo").all()
    avg = abdev[(abdev["condition"] == "fold=average") & abdev["metric"].str.endswith(":spearman")]
    by_model = avg.groupby("model")["value"].mean()
    assert set(by_model.index) == {"random", "ridge_descriptors"}
    assert by_model["ridge_descriptors"] > by_model["random"] + 0.1
    spearman = abdev[abdev["metric"].str.endswith(":spearman")]["value"].dropna()
    assert spearman.between(-1, 1).all()
    rows = abdev[abdev["metric"].str.endswith(":spearman") & abdev["ci_low"].notna()]
    assert (rows["ci_low"] <= rows["ci_high"]).all()


def test_every_interval_holds_its_value_inside_the_declared_range(default_run):
    """Issue 27's invariants over all embedded data: no interval is zero-width, none leaves
    its metric's declared range (METRIC_RANGES), none excludes its own point value; every
    pair's difference interval lies within +-(range width)."""
    summary = pd.read_csv(default_run / "results" / "summary.csv")
    rows = summary.dropna(subset=["ci_low", "ci_high"])
    assert len(rows) > 200  # the default run's intervals (abdev alone has 210)
    for row in rows.itertuples(index=False):
        low, high = metric_range(registry.get(row.benchmark).ranges(), row.metric)
        where = f"{row.benchmark} {row.model} {row.condition} {row.metric}"
        assert row.ci_high - row.ci_low > 0, where
        assert low - 1e-12 <= row.ci_low <= row.value <= row.ci_high <= high + 1e-12, where
    for bench in registry.NAMES:
        pairs = pd.read_csv(default_run / "results" / bench / "comparisons.csv")
        for row in pairs.itertuples(index=False):
            low, high = metric_range(registry.get(bench).ranges(), row.metric)
            span = high - low
            assert -span - 1e-12 <= row.ci_low <= row.diff <= row.ci_high <= span + 1e-12, row
            assert row.ci_high - row.ci_low > 0, row


def test_leaderboard_is_written_and_flags_the_demo(default_run):
    text = (default_run / "results" / "leaderboard.md").read_text()
    assert "## abdev - dataset GDPa1-demo_cross_validation" in text
    assert "DEMO DATA" in text
    assert "| ridge_descriptors |" in text and "| marker_baseline |" in text


def test_every_headline_metric_is_in_the_default_summary_and_leaderboard(default_run):
    """The registry's headline metrics name rows the default run really writes, so no
    leaderboard column is silently empty (the contract's headline check)."""
    summary = pd.read_csv(default_run / "results" / "summary.csv", keep_default_na=False,
                          na_values=[""])
    leaderboard = (default_run / "results" / "leaderboard.md").read_text()
    for bench in registry.REGISTRY:
        rows = summary[summary["benchmark"] == bench.name]
        if bench.headline_condition is not None:
            rows = rows[rows["condition"] == bench.headline_condition]
        missing = set(bench.headline_metrics) - set(rows["metric"])
        assert not missing, f"{bench.name}: headline metrics not in the default run: {missing}"
        assert rows[rows["metric"].isin(bench.headline_metrics)]["value"].notna().any()
        columns = {column.strip() for part in leaderboard.split("\n## ")
                   if part.startswith(f"{bench.name} - dataset ")
                   for line in part.splitlines()
                   if line.startswith(("| model |", "| rank | model |", "| suite | model |",
                                       "| rank | suite | model |"))
                   for column in line.strip("|").split("|")}
        assert set(bench.headline_metrics) <= columns, bench.name


def test_the_quick_start_prints_progress_notes_and_links_not_job_detail(default_run):
    # Snakemake's per-job detail (17 lines for each of the 32 jobs: ~550 lines before the
    # notes) stays in the complete log; the terminal has a progress line per quarter of the
    # jobs, the jobs' own log lines (about 15) and the end-of-run notes (about 10)
    text = quick_start_output(default_run)
    lines = text.splitlines()
    assert len(lines) <= 45, f"{len(lines)} lines:\n{text}"
    assert not [line for line in lines if re.match(r"\s*(local)?rule \w+:", line)]
    assert "Select jobs to execute" not in text and "Finished jobid" not in text
    progress = re.findall(r"^(\d+) of (\d+) steps \(\d+%\) done$", text, re.MULTILINE)
    total = int(progress[-1][1])
    assert progress[-1] == (str(total), str(total)) and 2 <= len(progress) <= 5
    assert "scievals: where to look next:" in text
    # the complete log named on the last lines has every job's rule block
    blocks = re.findall(r"^(?:local)?rule (\w+):$", complete_log(text), re.MULTILINE)
    assert len(blocks) == total


def test_rerun_is_a_no_op_and_history_records_once(default_run_template, tmp_path):
    # on a copy (the session's run is read by tests in both workers): the copy must be, for
    # Snakemake, the run the README's command left
    workdir = copy_default_run(default_run_template, tmp_path / "copy")
    record = (workdir / "results" / "run_manifest.json").read_bytes()
    proc = snakemake(workdir, "--cores", "2", "results/summary.csv")
    assert "Nothing to be done" in proc.stdout + proc.stderr
    # Snakemake calls no onsuccess then; the exit hook still says where the results are,
    # once, after Snakemake's last line, and leaves the last real run's record as it was
    tail = proc.stderr[proc.stderr.index("Nothing to be done"):]
    assert "scievals: every result is up to date; where to look:" in tail
    assert re.search(r"\n  leaderboard +results/leaderboard\.md", tail)
    assert tail.count("where to look") == 1
    assert (workdir / "results" / "run_manifest.json").read_bytes() == record
    # a dry run says nothing of the kind
    dry = snakemake(workdir, "-n", "--cores", "2", "results/summary.csv")
    assert "Nothing to be done" in dry.stdout + dry.stderr
    assert "where to look" not in dry.stdout + dry.stderr
    index = pd.read_csv(workdir / "results" / "history" / "index.csv")
    assert len(index) == 1
    assert (workdir / "results" / "history" / index["file"].iloc[0]).exists()


def test_bring_your_own_prediction_file_is_scored(default_run_template, tmp_path):
    # on a copy: the session's default run stays as the README's command left it for the
    # tests that read it (with `-n 2` any of them may run after this one)
    workdir = copy_default_run(default_run_template, tmp_path / "copy")
    own = workdir / "predictions" / "abdev"
    own.mkdir(parents=True, exist_ok=True)
    ridge = pd.read_csv(workdir / "results/abdev/predictions/ridge_descriptors.csv")
    ridge.to_csv(own / "my_model.csv", index=False)
    snakemake(workdir, "--cores", "2", "abdev")
    table = pd.read_csv(workdir / "results/abdev/scores/my_model.csv")
    reference = pd.read_csv(workdir / "results/abdev/scores/ridge_descriptors.csv")
    mine = table.set_index(["condition", "metric"])["value"]
    theirs = reference.set_index(["condition", "metric"])["value"]
    pd.testing.assert_series_equal(mine.sort_index(), theirs.sort_index())


def test_malformed_prediction_file_fails_with_one_clear_line(tmp_path):
    workdir = copy_workflow(tmp_path / "wf")
    own = workdir / "predictions" / "abdev"
    own.mkdir(parents=True)
    (own / "broken.csv").write_text("name,HIC\nx,1.0\n")
    proc = snakemake(workdir, "--cores", "1", "abdev", check=False)
    assert proc.returncode != 0
    (batch,) = byo_batches(["broken"], 8)  # own files are scored a batch per job
    log = (workdir / f"logs/abdev_score_own/{batch}.log").read_text()
    assert "Missing required column 'antibody_name'" in log
    assert "predictions/abdev/broken.csv" in log
    assert not (workdir / "results/abdev/scores/broken.csv").exists()
    assert not (workdir / "results/summary.csv").exists()


def test_run_record_names_the_installed_packages_and_is_linked(default_run):
    """results/run_manifest.json after the default run: snakemake, pandas and scipy as each
    reports its own version, every dataset of the summary, linked from run_report.json."""
    import json

    import scipy
    import snakemake as snakemake_package
    from snakemake.cli import get_argument_parser

    # The record of the default run (tests that run more work on copies of it).
    record = json.loads((default_run / "results" / "run_manifest.json").read_text())
    assert record["status"] == "success" and record["command"][1:3] == ["--cores", "2"]
    assert record["targets"] == sorted(get_argument_parser().parse_args(
        record["command"][1:]).targets)
    assert record["packages"]["snakemake"] == snakemake_package.__version__
    assert record["packages"]["pandas"] == pd.__version__
    assert record["packages"]["scipy"] == scipy.__version__
    summary = pd.read_csv(default_run / "results" / "summary.csv")
    assert {(d["dataset"], d["sha256"]) for d in record["datasets"]} == set(
        zip(summary["dataset"], summary["dataset_sha256"]))
    assert record["config"]["bootstrap"] == {"n_resamples": 1000, "seed": 0, "method": "auto",
                                             "proportion": "auto"}
    report = json.loads((default_run / "results" / "run_report.json").read_text())
    assert report["links"]["run record"] == "results/run_manifest.json"
    assert report["links"]["leaderboard"].startswith("results/leaderboard.md")
    history = default_run / "results" / "history"
    entry = pd.read_csv(history / "index.csv")["file"].iloc[0]
    assert (history / entry.replace(".csv", ".manifest.json")).is_file()
