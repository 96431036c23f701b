"""A mistyped target answers with the valid targets, in one line, exit 1."""

from __future__ import annotations

import pytest

from .conftest import copy_workflow, snakemake

pytestmark = pytest.mark.slow


def test_unknown_target_lists_the_valid_targets(tmp_path):
    workdir = copy_workflow(tmp_path / "scievals")
    proc = snakemake(workdir, "--cores", "1", "gatng", check=False)
    assert proc.returncode == 1
    err = proc.stderr.strip().splitlines()
    assert "MissingRuleException" not in proc.stderr and "Traceback" not in proc.stderr
    assert err[-1].startswith("error: snakemake targets: no rule makes 'gatng'")
    for target in ("abdev", "gating", "autogkb", "waza", "results/summary.csv"):
        assert target in err[-1]
    # A real target still works (dry run).
    assert snakemake(workdir, "-n", "gating").returncode == 0


def test_the_viewer_target_builds_the_leaderboard_page_beside_it(tmp_path):
    # issue 36, point 7: results/report/leaderboard.html (its models link into the viewer)
    # was left stale by `snakemake results/report/samples.html`
    workdir = copy_workflow(tmp_path / "scievals")
    proc = snakemake(workdir, "--cores", "1", "-n", "results/report/samples.html")
    jobs = proc.stdout + proc.stderr
    assert "rule report_samples:" in jobs and "rule report_leaderboard:" in jobs
