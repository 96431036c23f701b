"""Issue 35's run logs end to end: the default run, then a `--limit 2` LLM smoke run against
the local fake server, leave two kept logs; the second leaves the first as it was; the
leaderboard says it shows the limited run and where the full one is kept; `export eee`
passes Every Eval Ever 0.3.0 validation; `abdev export-submission` writes the leaderboard's
CV file; and the sample viewer opens either run and puts the two side by side."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pandas as pd
import pytest
from support.eee_check import check_tree
from support.fake_server import FakeLLMServer

from .conftest import ROOT, copy_default_run, snakemake

pytestmark = pytest.mark.slow


def _scievals(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit",
               PYTHONPATH=os.pathsep.join([str(workdir / "scripts"), str(ROOT / "tests")]))
    return subprocess.run([sys.executable, "-m", "scievals", *args], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=900, check=False)


def _hashes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def two_runs(default_run_template, tmp_path_factory):
    """The default run (the session's, copied), its kept log's file hashes, then a --limit 2
    smoke run of gating."""
    workdir = copy_default_run(default_run_template,
                               tmp_path_factory.mktemp("runlogs") / "scievals")
    runs = sorted(p for p in (workdir / "results" / "runs").iterdir() if p.is_dir())
    assert len(runs) == 1, runs
    before = _hashes(runs[0])
    summary = pd.read_csv(workdir / "results" / "summary.csv")
    with FakeLLMServer() as server:
        proc = _scievals(workdir, "run", "gating", "--model", "openai/fake", "--base-url",
                         server.openai_base_url, "--limit", "2", "--cores", "2")
    assert proc.returncode == 0, proc.stderr[-4000:]
    return workdir, runs[0], before, summary


def test_two_runs_leave_two_logs_and_the_second_leaves_the_first_alone(two_runs):
    workdir, first, before, default_summary = two_runs
    runs = sorted(p for p in (workdir / "results" / "runs").iterdir() if p.is_dir())
    assert [p.name for p in runs][0] == first.name and len(runs) == 2
    assert _hashes(first) == before
    full, limited = (json.loads((p / "run.json").read_text()) for p in runs)
    assert (full["limited"], limited["limited"]) == (False, True)
    assert full["benchmarks"] == ["abdev", "autogkb", "gating", "waza"]
    assert limited["benchmarks"] == ["gating"]
    # The full log holds the default run's rows: every summary row with a value is a result
    # of one record, with the same value and n.
    results = {}
    for entry in full["records"]:
        aggregate = json.loads((first / entry["aggregate"]).read_text())
        for r in aggregate["evaluation_results"]:
            if "derived_from" in r["source_data"]["additional_details"]:
                continue  # the instance rows' own mean (eee.py), said to be no summary row
            key = (entry["benchmark"], entry["model"], r["metric_config"]["metric_id"],
                   r["source_data"]["dataset_name"],
                   r["source_data"]["additional_details"].get("condition", entry["condition"]))
            results[key] = r["score_details"]
    rows = default_summary.dropna(subset=["value"])
    assert len(results) == len(rows)
    for row in rows.head(40).itertuples():
        condition = row.condition if isinstance(row.condition, str) else ""
        model, _, arm = row.model.partition(" [")
        score = results[(row.benchmark, model, row.metric, row.dataset,
                         arm.rstrip("]") or condition)]
        assert score["score"] == pytest.approx(row.value)
        assert score.get("uncertainty", {}).get("num_samples") == int(row.n)
    # the 15 embedded gating cases as instance rows, 2 in the smoke run's baseline record
    counts = {(e["benchmark"], e["label"]): e["items"] for r in (full, limited)
              for e in r["records"]}
    assert counts[("gating", "marker_baseline [baseline]")] == 2  # the later one wins here
    assert [e["items"] for e in full["records"] if e["benchmark"] == "gating"] == [15]
    listing = _scievals(workdir, "logs")
    assert listing.returncode == 0
    lines = listing.stdout.splitlines()
    assert lines[1].split()[2] == "full" and lines[2].split()[2] == "limited"
    # named as the results name them: the model, with how many conditions it ran (issue 46)
    assert lines[2].endswith("gating: fake (6 conditions), marker_baseline")


def test_the_leaderboard_says_it_shows_the_smoke_run_and_where_the_full_one_is(two_runs):
    workdir, first, _, _ = two_runs
    board = (workdir / "results" / "leaderboard.md").read_text()
    gating = board[board.index("## gating"):]
    assert "(limited to 2 items)" in gating.splitlines()[0]
    assert (f"LIMITED RUN: this table shows a smoke run on a few items (--limit), not a full "
            f"result; the last full gating result is kept in results/runs/{first.name}") in gating
    assert "LIMITED RUN" not in board[:board.index("## gating")]  # the others are full


def test_export_eee_of_the_default_run_passes_validation(two_runs, tmp_path):
    workdir, first, _, _ = two_runs
    proc = _scievals(workdir, "export", "eee", "--run", first.name[:15], "--out",
                     str(tmp_path / "kept"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    # 6 records: abdev x 2, autogkb, gating, waza and waza's no-skill arm
    assert out[0].startswith("wrote 6 Every Eval Ever 0.3.0 record(s)")
    assert out[1] == ("not carried by the Every Eval Ever schema: paired differences between "
                      "models (comparisons.csv), Holm-adjusted p (p_holm), ranks and tiers")
    aggregates, rows, errors = check_tree(tmp_path / "kept")
    assert errors == [] and aggregates == 6
    # items: 5 + 5 abdev folds, 17 autogkb articles, 15 gating cases, 34 waza task runs and
    # the 8 runs of csv-explainer's no-skill arm (4 tasks x 2 runs)
    assert rows == 5 + 5 + 17 + 15 + 34 + 8
    # issue 45: every row joins its aggregate result by id, and every record imports back
    for aggregate in (tmp_path / "kept").rglob("*.json"):
        ids = {r["evaluation_result_id"] for r in
               json.loads(aggregate.read_text())["evaluation_results"]}
        lines = aggregate.with_name(aggregate.stem + "_samples.jsonl").read_text().splitlines()
        assert lines and all(json.loads(line)["evaluation_result_id"] in ids for line in lines)
    proc = _scievals(workdir, "import", str(tmp_path / "kept"), "--out", str(tmp_path / "in"))
    assert proc.returncode == 0, proc.stderr
    assert "mean_spearman_5_assays" in proc.stdout and "AC-SINS_pH7.4:spearman" not in proc.stdout
    proc = _scievals(workdir, "export", "eee", "--out", str(tmp_path / "latest"))
    assert proc.returncode == 0, proc.stderr
    aggregates, rows, errors = check_tree(tmp_path / "latest")
    # the latest results: gating now holds the smoke run (marker_baseline + 6 fake arms)
    assert errors == [] and aggregates == 6 - 1 + 7


def test_compare_of_the_two_kept_runs_by_id_pairs_the_smoke_runs_items(two_runs):
    # issue 45 Done-when: `compare ID_A ID_B` of two kept runs as `logs` lists them
    workdir, first, _, _ = two_runs
    proc = _scievals(workdir, "compare", first.name[:15], "latest", "--json")
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    gating = "gating/OMIP-verified+OMIP-staging+flowkit-wsp"
    # the one arm in both runs: marker_baseline [baseline], on the smoke run's 2 cases; a
    # deterministic baseline scores the same cases the same: difference 0 on each metric
    assert found["comparisons"] and {r["dataset"] for r in found["comparisons"]} == {gating}
    assert all(r["arm_a"].startswith("marker_baseline [baseline] @ ") and r["n"] == 2
               and r["diff"] == 0 for r in found["comparisons"])
    assert {r["metric"] for r in found["comparisons"]} >= {"hierarchy_f1",
                                                           "structure_accuracy"}
    notes = "\n".join(found["notes"])
    assert f"{gating}: limited to 2 items in " in notes
    assert "fake [minimal_cot]" in notes and "not compared" in notes


def test_the_exported_default_run_is_a_leaderboard_and_imports(two_runs, tmp_path):
    # board's items 3-5 on the merged code: abdev under its own metric, waza per suite,
    # the no-skill record with its rows, every record imported at exit 0
    workdir, first, _, _ = two_runs
    out = tmp_path / "eee"
    assert _scievals(workdir, "export", "eee", "--run", first.name, "--out",
                     str(out)).returncode == 0
    proc = _scievals(workdir, "leaderboard", str(out), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["tables"]
    tables = {(r["task"], r["metric"]) for r in rows}
    assert ("abdev/GDPa1-demo_cross_validation", "mean_spearman_5_assays") in tables
    waza = {r["task"] for r in rows if r["task"].startswith("waza/")}
    assert "waza" not in waza and len(waza) == 6  # the six demo suites
    arms = {r["arm"] for r in rows if r["task"] == "waza/csv-explainer-demo"}
    assert arms == {"scievals/waza_mock", "scievals/waza_mock [no-skill]"}
    imported = _scievals(workdir, "import", str(out), "--out", str(tmp_path / "in"))
    assert imported.returncode == 0, imported.stderr
    assert imported.stderr == "" and "mean_spearman_5_assays" in imported.stdout


def test_abdev_export_submission_writes_the_cv_file(two_runs, tmp_path):
    workdir, _, _, _ = two_runs
    proc = _scievals(workdir, "abdev", "export-submission", "--model", "ridge_descriptors",
                     "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    cv = pd.read_csv(tmp_path / "ridge_descriptors_cv.csv")
    truth = pd.read_csv(workdir / "data" / "raw" / "abdev" / "GDPa1.csv")
    fold = "hierarchical_cluster_IgG_isotype_stratified_fold"
    assert list(cv.columns) == ["antibody_name", "HIC", "Tm2", "Titer", "PR_CHO",
                                "AC-SINS_pH7.4", fold]
    assert cv["antibody_name"].tolist() == truth["antibody_name"].tolist()
    assert not cv["antibody_name"].duplicated().any()
    assert cv[fold].tolist() == truth[fold].astype(int).tolist()


def test_the_viewer_opens_either_run_and_compares_them(two_runs, tmp_path):
    from report.browser import find_chromium, visit

    workdir, first, _, _ = two_runs
    snakemake(workdir, "--cores", "2", "results/report/samples.html")
    if not find_chromium():
        if os.environ.get("CI", "").lower() in ("1", "true", "yes") or \
                os.environ.get("SCIEVALS_BROWSER_TEST") == "1":
            pytest.fail("chromium is not installed: apt-get install -y chromium")
        pytest.skip("no chromium on PATH (test_report_browser.py says how to install it)")
    runs = sorted(p.name for p in (workdir / "results" / "runs").iterdir() if p.is_dir())
    assert len(runs) == 2  # building the page changed no result: no third log
    page = (workdir / "results" / "report" / "samples.html").as_uri()
    rows = ("[...document.querySelectorAll('#items tbody tr')].map(r => [...r.cells]"
            ".map(c => c.textContent))")
    probe = (f"[{rows}, document.getElementById('count').textContent,"
             " [...document.getElementById('filter-run').options].map(o => o.textContent),"
             " document.getElementById('detail').innerText]")

    def fragment(*parts: str) -> str:
        return "#" + "/".join(quote(p, safe="") for p in parts)

    # either run alone
    for run, n in ((runs[0], 15), (runs[1], 2)):
        visited = visit(page + fragment(f"run:{run}", "gating", "marker_baseline"),
                        tmp_path / f"p-{run}", settle_s=1.5, probe=probe)
        assert not visited.errors, visited.errors
        assert visited.probe[1] == f"{n} of {n} items"
    # each run labelled with its benchmarks and models (issue 46 item 7)
    current, full, limited = visited.probe[2]
    assert current == "current results"
    assert full.startswith(f"{runs[0]} (full) abdev: ") and len(full) <= 110
    assert limited == f"{runs[1]} (limited) gating: fake, marker_baseline"
    # side by side: the baseline is deterministic, so the 2 cases both runs scored pair with
    # a difference of 0
    visited = visit(page + fragment("compare", f"run:{runs[0]}", f"runb:{runs[1]}", "gating",
                                    "marker_baseline", "marker_baseline"),
                    tmp_path / "pair", settle_s=1.5, clicks=("css:#items tbody tr",),
                    probe=probe)
    assert not visited.errors, visited.errors
    pairs, count, _, detail = visited.probe
    assert count == "2 of 2 paired items; mean B - A 0.0000 (B higher on 0, lower on 0)"
    assert [r[4] for r in pairs] == ["0.0000", "0.0000"]
    assert f"@ {runs[0]} (A)" in detail and f"@ {runs[1]} (B)" in detail
