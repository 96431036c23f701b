"""Static checks of the workflow: dry runs of every target, lint, config errors."""

from __future__ import annotations

import re

import pytest

from .conftest import ROOT, copy_workflow, snakemake

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return copy_workflow(tmp_path_factory.mktemp("checks") / "scievals")


def _targets():
    import yaml

    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    benchmarks = config["benchmarks"]
    return ["results/summary.csv", "all"] + benchmarks + [f"results/{b}/summary.csv" for b in benchmarks]


@pytest.mark.parametrize("target", _targets())
def test_dry_run_every_target(workdir, target):
    proc = snakemake(workdir, "-n", "--cores", "2", target)
    assert "This was a dry-run" in proc.stdout + proc.stderr


def test_lint_is_clean(workdir):
    proc = snakemake(workdir, "--lint")
    assert "Congratulations, your workflow is in a good condition!" in proc.stdout + proc.stderr


def test_bad_config_stops_before_any_job_with_one_line(workdir):
    bad = workdir / "bad.yaml"
    bad.write_text("abdev:\n  source: web\n")
    proc = snakemake(workdir, "-n", "--cores", "1", "--configfile", str(bad), check=False)
    assert proc.returncode == 1
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        ("error: config: abdev.source: 'web' is not allowed "
         "(allowed values: ['auto', 'remote', 'file', 'demo'])")
    ]


def test_yaml_syntax_error_in_the_config_names_file_and_line(tmp_path):
    """issue 14 item 12: the workflow's own config file is read before Snakemake reads it."""
    workdir = copy_workflow(tmp_path / "wf")
    config = workdir / "config" / "config.yaml"
    lines = config.read_text().splitlines()
    at = lines.index("  seed: 42") + 1
    lines.insert(at, "  broken: a: b")  # "mapping values are not allowed here"
    config.write_text("\n".join(lines) + "\n")
    proc = snakemake(workdir, "-n", "--cores", "1", check=False)
    assert proc.returncode == 1
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: config/config.yaml:"), proc.stderr
    assert errors[0].split(":")[2] == str(at + 1)  # the inserted line, counted from 1
    # PyYAML's words; libyaml (the loader used when PyYAML has it) says "in this context"
    assert re.search(r"mapping values are not allowed (here|in this context)", errors[0])


def test_a_benchmark_left_out_of_benchmarks_loads_none_of_its_rules(workdir):
    proc = snakemake(workdir, "--list-rules", "--config", "benchmarks=[gating]")
    rules = set(proc.stdout.split())
    assert {"gating_download", "gating_score", "summarize_all"} <= rules
    assert not {r for r in rules if r.startswith("abdev")}, rules


def test_missing_api_key_stops_the_run_before_any_job(workdir, monkeypatch):
    cfg = workdir / "llm.yaml"
    cfg.write_text(
        "models:\n  gpt:\n    provider: openai\n    model: gpt-4o-2024-08-06\n"
        "    api_key_env: SCIEVALS_TEST_UNSET_KEY\n"
        "gating:\n  models: [marker_baseline, gpt]\n"
    )
    monkeypatch.delenv("SCIEVALS_TEST_UNSET_KEY", raising=False)
    proc = snakemake(workdir, "gating", "--cores", "1", "--configfile", str(cfg), check=False)
    assert proc.returncode == 1
    assert "error: model 'gpt': environment variable SCIEVALS_TEST_UNSET_KEY is not set" in proc.stderr
    assert not (workdir / "data" / "raw").exists()  # no job ran
