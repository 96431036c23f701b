"""What re-runs after a change: a scorer's version re-runs exactly its score jobs; a copied or
moved checkout re-runs nothing (issue 9 item 2, issue 14 item 13)."""

from __future__ import annotations

import re

import pytest

from .conftest import copy_default_run, snakemake

pytestmark = pytest.mark.slow

JOB = re.compile(r"^\s*(?:local)?rule (\w+):", re.MULTILINE)  # grouped jobs are indented


def planned_rules(workdir) -> list[str]:
    proc = snakemake(workdir, "-n", "--cores", "2", "results/summary.csv")
    return JOB.findall(proc.stdout)


def test_bumping_the_abdev_metrics_version_reruns_abdev_scoring_and_nothing_else(
        default_run_template, tmp_path):
    workdir = copy_default_run(default_run_template, tmp_path / "copy")
    assert planned_rules(workdir) == []  # the copy is up to date
    metrics = workdir / "scripts" / "scievals" / "abdev" / "metrics.py"
    text = metrics.read_text()
    assert 'METRICS_VERSION = "abdev-metrics-v4"' in text
    metrics.write_text(text.replace('"abdev-metrics-v4"', '"abdev-metrics-v5"'))
    planned = planned_rules(workdir)
    # only the scorer's jobs (one per model), the comparisons that read their tables and
    # the merges of their tables
    assert sorted(r for r in planned if r != "summarize_benchmark") == [
        "abdev_comparisons", "abdev_score", "abdev_score", "summarize_all"], planned
    assert planned.count("summarize_benchmark") == 1
    proc = snakemake(workdir, "-n", "--cores", "2", "results/summary.csv")
    assert "Params have changed since last execution" in proc.stdout


def test_a_moved_checkout_is_up_to_date_where_it_lands(default_run_template, tmp_path):
    # also what makes the session's shared default run usable by copying (support.default_run)
    moved = copy_default_run(default_run_template, tmp_path / "elsewhere" / "scievals")
    assert planned_rules(moved) == [], "a copied checkout re-ran jobs (absolute input paths?)"
