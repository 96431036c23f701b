"""The run record (results/run_manifest.json): what produced a run, and its history copies."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import platform
import sys
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest
import scipy
import snakemake
from scievals.cli import main
from scievals.common.provenance import Provenance
from scievals.common.tables import result_rows, write_result_table
from scievals.report import run_manifest
from scievals.results.history import record_history


def _summary(path: Path, benchmark: str, dataset: str, sha: str) -> Path:
    prov = Provenance(benchmark, dataset, sha, "cfg1", git_commit="abc")
    write_result_table(path, result_rows(prov, "m", "c", [{"metric": "x", "value": 1.0,
                                                           "n": 3}]))
    return path


def _results(tmp_path: Path) -> Path:
    results = tmp_path / "results"
    (results / "gating" / "predictions").mkdir(parents=True)
    (results / "autogkb" / "predictions").mkdir(parents=True)
    _summary(results / "gating" / "summary.csv", "gating", "omip-demo", "a" * 64)
    _summary(results / "autogkb" / "summary.csv", "autogkb", "autogkb-demo", "b" * 64)
    # gating writes {"total": ..., "conditions": ...}; autogkb the summary itself.
    (results / "gating" / "predictions" / "gpt.usage.json").write_text(json.dumps({
        "total": {"model": "gpt", "provider": "openai", "model_id": "gpt-x",
                  "response_models": ["gpt-x-2025-01-01"], "system_fingerprints": ["fp_1"]},
        "conditions": {}}))
    (results / "autogkb" / "predictions" / "gpt.usage.json").write_text(json.dumps({
        "model": "gpt", "provider": "openai", "model_id": "gpt-x",
        "response_models": ["gpt-x-2025-01-01"], "system_fingerprints": ["fp_2"]}))
    (results / "autogkb" / "predictions" / "autogkb_baseline.usage.json").write_text(json.dumps({
        "model": "autogkb_baseline", "provider": "baseline", "requests": 0}))
    return results


def test_manifest_names_packages_platform_datasets_models_and_prompts(tmp_path):
    results = _results(tmp_path)
    config = {"benchmarks": ["gating", "autogkb"], "bootstrap": {"seed": 0}}
    out = run_manifest.write_manifest(
        "success", "2026-01-01T00:00:00Z", ["snakemake", "--cores", "2", "gating"], {"gating"},
        config, ["gating", "autogkb"], out=results / "run_manifest.json",
        history_dir=results / "history")
    record = json.loads(out.read_text())
    assert record["status"] == "success"
    assert record["command"] == ["snakemake", "--cores", "2", "gating"]
    assert record["targets"] == ["gating"]
    assert record["config"] == config
    # Versions as each package reports itself (not through importlib.metadata).
    assert record["packages"]["pandas"] == pd.__version__
    assert record["packages"]["scipy"] == scipy.__version__
    assert record["packages"]["snakemake"] == snakemake.__version__
    assert record["platform"]["python"] == ".".join(map(str, sys.version_info[:3]))
    assert record["platform"]["os"] == platform.platform()
    assert record["datasets"] == [
        {"benchmark": "autogkb", "dataset": "autogkb-demo", "sha256": "b" * 64},
        {"benchmark": "gating", "dataset": "omip-demo", "sha256": "a" * 64},
    ]
    # One entry per LLM model over both benchmarks; the baseline has none.
    assert list(record["llm_models"]) == ["gpt"]
    gpt = record["llm_models"]["gpt"]
    assert (gpt["model_id"], gpt["response_models"], gpt["system_fingerprints"]) == (
        "gpt-x", ["gpt-x-2025-01-01"], ["fp_1", "fp_2"])
    # The sha256 of each prompt module's source, as hashlib computes it from the file.
    root = Path(run_manifest.__file__).resolve().parents[1]
    for benchmark, module in (("gating", "gating/prompts.py"), ("autogkb", "autogkb/prompts.py")):
        (name, digest), = record["prompt_templates"][benchmark].items()
        assert digest == hashlib.sha256((root / module).read_bytes()).hexdigest()


def test_the_record_lists_only_the_llm_models_of_this_runs_jobs(tmp_path, monkeypatch):
    """Issue 29 point 5: a usage.json an earlier run left (autogkb's gpt here) is not a model
    this run used; the jobs of this run (run or up to date) are Snakemake's DAG."""
    _results(tmp_path)
    monkeypatch.chdir(tmp_path)
    (Path("results") / "gating" / "predictions" / "claude.usage.json").write_text(json.dumps({
        "model": "claude", "provider": "anthropic", "model_id": "claude-x"}))
    record = run_manifest.build_manifest(
        "success", "2026-01-01T00:00:00Z", ["snakemake", "gating"], {"gating"}, {},
        ["gating", "autogkb"],
        in_run={"results/gating/predictions/gpt.usage.json", "results/gating/summary.csv"})
    assert list(record["llm_models"]) == ["gpt"]
    assert record["llm_models"]["gpt"]["usage_files"] == [
        "results/gating/predictions/gpt.usage.json"]


def test_every_registered_prompt_module_resolves_to_a_file():
    from scievals import registry

    modules = [m for b in registry.REGISTRY for m in b.prompt_modules]
    assert modules, "the LLM benchmarks name their prompt templates"
    digests = run_manifest.prompt_templates(registry.NAMES)
    assert sorted(m for d in digests.values() for m in d) == sorted(modules)


def test_history_keeps_one_record_per_entry_and_lists_it(tmp_path, capsys):
    results = _results(tmp_path)
    history = results / "history"
    summary = _summary(results / "summary.csv", "gating", "omip-demo", "a" * 64)
    entry = record_history(summary, history, now=datetime(2026, 1, 2, tzinfo=UTC))
    first = run_manifest.write_manifest("success", "t1", ["snakemake"], set(), {}, ["gating"],
                                        out=results / "run_manifest.json", history_dir=history)
    kept = history / (entry.stem + ".manifest.json")
    assert kept.read_text() == first.read_text()
    # A later run that recorded no new summary does not replace the record of the first.
    run_manifest.write_manifest("success", "t2", ["snakemake", "again"], set(), {}, ["gating"],
                                out=results / "run_manifest.json", history_dir=history)
    assert json.loads(kept.read_text())["command"] == ["snakemake"]
    assert main(["history", "--history-dir", str(history)]) == 0
    out = capsys.readouterr().out
    assert "run_record" in out and out.splitlines()[1].split()[-2] == "yes"  # the table says
    # there is one; --json names it (the table fits a terminal: issue 36, point 4)
    assert main(["history", "--history-dir", str(history), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["run_record"] == kept.name


def test_package_versions_match_the_parsed_metadata_of_every_installed_distribution():
    """The header-only read gives what importlib.metadata's full parse gives (its Name and
    Version fields), for every distribution installed here, scievals' own included."""
    expected: dict[str, str] = {}
    for dist in importlib.metadata.distributions():
        if dist.metadata["Name"]:
            expected.setdefault(dist.metadata["Name"].lower(), dist.version)
    found = run_manifest.package_versions()
    assert found == dict(sorted(expected.items()))
    assert found["snakemake"] == importlib.metadata.version("snakemake")


def test_package_versions_skip_folded_lines_and_stop_at_the_header_end():
    class Dist:
        def read_text(self, name):
            return ("Metadata-Version: 2.1\nName: toy-pkg\nSummary: a\n  folded: line\n"
                    "Version: 1.2.3\n\nName: body-is-not-header\nVersion: 9\n")

    assert run_manifest._name_and_version(Dist()) == {"Name": "toy-pkg", "Version": "1.2.3"}
