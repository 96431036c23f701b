"""`snakemake waza` on a workflow copy, offline: the mock executor, an LLM agent (the mock
provider with a scripted reply, so the whole llm path runs without a network) and a
bring-your-own results file, down to results/waza/summary.csv and the report figure."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from .conftest import copy_workflow, snakemake

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def waza_run(tmp_path_factory):
    workdir = copy_workflow(tmp_path_factory.mktemp("wf") / "scievals")
    config = yaml.safe_load((workdir / "config/config.yaml").read_text())
    config["benchmarks"] = ["waza"]
    config["models"]["agent-mock"] = {
        "provider": "mock",
        "responses": {"*": "This code is recursive: factorial calls itself until n <= 1."}}
    config["waza"].update(models=["waza_mock", "agent-mock"],
                          suites=["code-explainer", "azure-deploy"])
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    # Bring your own: another agent's code-explainer results, one run with a short answer.
    snakemake(workdir, "--cores", "2", "results/waza/predictions/waza_mock/code-explainer.json")
    mine = json.loads(
        (workdir / "results/waza/predictions/waza_mock/code-explainer.json").read_text())
    mine["tasks"][0]["runs"][0]["final_output"] = "short"
    (workdir / "predictions/waza").mkdir(parents=True)
    (workdir / "predictions/waza/my-agent.json").write_text(json.dumps(mine))
    snakemake(workdir, "--cores", "2", "waza", "results/report/waza/suite_comparison.png")
    return workdir


def test_summary_rows_per_suite_and_model(waza_run):
    summary = pd.read_csv(waza_run / "results/waza/summary.csv")
    assert set(summary["model"]) == {"waza_mock", "agent-mock", "my-agent"}
    assert set(summary["dataset"]) == {"code-explainer-demo", "azure-deploy-demo"}
    value = summary.set_index(["dataset", "model", "metric"])["value"]
    assert value[("code-explainer-demo", "waza_mock", "pass_rate")] == 1.0
    # my-agent: 1 of code-explainer's 4 tasks has a run failing has_explanation
    assert value[("code-explainer-demo", "my-agent", "pass_rate")] == 0.75
    # agent-mock never loads the skill: every should-trigger prompt is a miss.
    # code-explainer: TN 6 + 2*0.5 = 7 of 14 weighted -> accuracy 0.5
    assert value[("code-explainer-demo", "agent-mock", "trigger_accuracy")] == 0.5
    assert (waza_run / "results/report/waza/suite_comparison.png").stat().st_size > 0


def test_llm_agent_results_and_records(waza_run):
    results = json.loads(
        (waza_run / "results/waza/predictions/agent-mock/code-explainer.json").read_text())
    run = results["tasks"][0]["runs"][0]
    assert run["final_output"].startswith("This code is recursive")
    assert run["session_digest"]["usage"]["turns"] == 1
    assert results["config"]["engine_type"] == "llm"
    records = (waza_run / "results/waza/predictions/agent-mock/code-explainer.llm.jsonl")
    assert len(records.read_text().splitlines()) >= 3 * 4  # 3 trials x 4 tasks, 1 turn each
    # usage.json beside the runs, and its rows in the table: code-explainer asks one turn
    # per run and per trigger prompt, 3 trials x 4 tasks + 16 trigger prompts = 28 requests
    usage = json.loads(
        (waza_run / "results/waza/predictions/agent-mock/code-explainer.usage.json").read_text())
    assert usage["requests"] == 3 * 4 + 16 and usage["errors"] == 0
    summary = pd.read_csv(waza_run / "results/waza/summary.csv")
    tokens = summary[(summary["model"] == "agent-mock") & (summary["metric"] == "tokens_out")
                     & (summary["dataset"] == "code-explainer-demo")]
    assert list(tokens["value"]) == [usage["tokens_out"]] and list(tokens["n"]) == [28]
    assert not ((summary["model"] == "waza_mock") & (summary["metric"] == "tokens_out")).any()
    review = (waza_run / "results/waza/review/my-agent.md").read_text()
    assert "`has_explanation` (code, score 0.00): Failed: len(output) > 10" in review


def test_rerun_is_a_no_op(waza_run):
    proc = snakemake(waza_run, "--cores", "2", "waza", "-n")
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_bumping_a_version_reruns_exactly_its_jobs(waza_run, tmp_path):
    import re
    import shutil

    job = re.compile(r"^\s*(?:local)?rule (\w+):", re.MULTILINE)

    def planned_after(module: str, old: str, new: str) -> list[str]:
        """Jobs a fresh copy of the finished run plans after one version bump (without the
        target rule `waza` itself and refresh_summary, which every re-run of the target
        plans after its summary: rules/summary.smk)."""
        workdir = tmp_path / module
        shutil.copytree(waza_run, workdir, symlinks=True)
        path = workdir / "scripts/scievals/waza" / f"{module}.py"
        path.write_text(path.read_text().replace(f'"{old}"', f'"{new}"'))
        out = snakemake(workdir, "-n", "--cores", "2", "waza").stdout
        return sorted(r for r in job.findall(out) if r not in ("waza", "refresh_summary"))

    # 3 models (waza_mock, agent-mock, my-agent): every score job, then the merge
    # (and the suite comparisons, which read every model's per-task table)
    assert planned_after("metrics", "waza-metrics-v4", "waza-metrics-v5") == [
        "summarize_benchmark", "waza_comparisons"] + ["waza_score"] * 3
    # a grader change: the score stage grades, so every score job and nothing else (no agent
    # or mock run, no import)
    assert planned_after("graders/base", "waza-graders-v4", "waza-graders-v5") == [
        "summarize_benchmark", "waza_comparisons"] + ["waza_score"] * 3
    # the agent loop: its 2 suites and its score, not the mock runs nor the import
    assert planned_after("executors/agent", "waza-agent-v4", "waza-agent-v5") == [
        "summarize_benchmark", "waza_comparisons", "waza_predict_llm", "waza_predict_llm",
        "waza_score"]
    # the mock executor: its 2 suites and its score (the import only files own results)
    assert planned_after("executors/mock", "waza-mock-v3", "waza-mock-v4") == sorted(
        ["summarize_benchmark", "waza_comparisons", "waza_predict_baseline",
         "waza_predict_baseline", "waza_score"])
