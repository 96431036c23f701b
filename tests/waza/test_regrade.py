"""Predict makes the output, score judges it: runs recorded once are graded again by the
score stage after a grader change or a new own results file, without executing anything."""

from __future__ import annotations

import base64
import os

import pandas as pd
import pytest
from scievals.common.errors import ScievalsError
from scievals.common.io import read_json, write_json
from scievals.common.jobs import ScoreJob
from scievals.waza import workspaces
from scievals.waza.executors.base import Execution
from scievals.waza.predict import import_predictions, run_suite
from scievals.waza.runs import regrade
from scievals.waza.score import grade, score
from scievals.waza.suites import load_suite

TASK = ("id: t1\nname: t1\ninputs: {prompt: write the report}\ngraders:\n"
        "  - {name: report, type: file, config: {content_patterns: "
        "[{path: out/report.txt, must_match: ['%s']}]}}\n")
GLOBAL = "name: s\nskill: s\nconfig: {trials_per_task: 2}\ntasks: [tasks/*.yaml]\n"


class CountingExecutor:
    """Writes ``out/report.txt`` (plus a binary and an executable file) and counts runs."""

    kind = "test"

    def __init__(self) -> None:
        self.runs = 0

    def execute(self, prompt, workspace, trial):
        self.runs += 1
        (workspace / "out").mkdir()
        (workspace / "out" / "report.txt").write_text("status: green\n")
        (workspace / "blob.bin").write_bytes(bytes(range(256)))
        (workspace / "run.sh").write_text("#!/bin/sh\necho ok\n")
        os.chmod(workspace / "run.sh", 0o755)
        return Execution(output="done")

    def invoked_skills(self, prompt, should_trigger, trial):
        raise AssertionError("no trigger tests in this suite")


def _suite(root, pattern: str):
    (root / "tasks").mkdir(parents=True, exist_ok=True)
    (root / "eval.yaml").write_text(GLOBAL)
    (root / "tasks" / "t1.yaml").write_text(TASK % pattern)


def _job(tmp_path, predictions) -> ScoreJob:
    return ScoreJob(benchmark="waza", model="m", predictions=predictions,
                    truth={"source": tmp_path / "source.json", "suites": tmp_path / "suites"},
                    outputs={"table": tmp_path / "t.csv", "per_case": tmp_path / "pc.csv",
                             "review": tmp_path / "review.md"},
                    bootstrap={"n_resamples": 100, "seed": 0})


def _pass_rate(tmp_path) -> float:
    table = pd.read_csv(tmp_path / "t.csv").set_index("metric")
    return float(table.loc["pass_rate", "value"])


@pytest.fixture
def recorded(tmp_path):
    """The predict stage, once: one task, 2 trials, recorded to predictions/s.json."""
    _suite(tmp_path / "suites" / "s", "green")
    write_json(tmp_path / "source.json", {"suites": {"s": {"dataset": "s", "sha256": "0"}}})
    executor = CountingExecutor()
    results = run_suite(load_suite(tmp_path / "suites" / "s"), "m", executor=executor)
    write_json(tmp_path / "predictions" / "s.json", results)
    assert executor.runs == 2  # 1 task x 2 trials
    return executor, tmp_path / "predictions" / "s.json"


def test_recorded_runs_are_ungraded_and_keep_the_workspace(recorded):
    _, path = recorded
    run = read_json(path)["tasks"][0]["runs"][0]
    assert run["status"] == "recorded" and run["validations"] == {}
    files = run["workspace_files"]
    assert files["out/report.txt"] == {"text": "status: green\n"}
    assert base64.b64decode(files["blob.bin"]["base64"]) == bytes(range(256))
    assert files["run.sh"]["executable"] is True
    assert run["workspace_omitted"] == []


def test_a_grader_change_regrades_without_running_the_agent(tmp_path, recorded):
    executor, path = recorded
    score(_job(tmp_path, [path]))
    assert _pass_rate(tmp_path) == 1.0  # 'green' is in the recorded report.txt
    _suite(tmp_path / "suites" / "s", "red")  # the grader now wants 'red'
    score(_job(tmp_path, [path]))
    assert _pass_rate(tmp_path) == 0.0
    review = (tmp_path / "review.md").read_text()
    # a content pattern is 1 check that the file exists + 1 per pattern: 1 of 2 pass = 0.50
    assert "`report` (file, score 0.50): File out/report.txt missing expected pattern: red" \
        in review
    assert executor.runs == 2  # nothing was executed again


def test_an_own_results_file_is_graded_by_the_score_stage(tmp_path, recorded):
    executor, path = recorded
    own = read_json(path)
    # the user's agent wrote 'red' in the first run only: 1 of 2 runs passes, task fails
    own["tasks"][0]["runs"][0]["workspace_files"]["out/report.txt"]["text"] = "status: red\n"
    write_json(tmp_path / "mine.json", own)
    _suite(tmp_path / "suites" / "s", "red")
    import_predictions(tmp_path / "mine.json", tmp_path / "suites", ["s"],
                       tmp_path / "imported.json")
    graded = grade(_job(tmp_path, [tmp_path / "imported.json"]))["s"]
    assert [r["status"] for r in graded["tasks"][0]["runs"]] == ["passed", "failed"]
    assert graded["tasks"][0]["stats"]["pass_rate"] == 0.5
    assert executor.runs == 2


def test_rebuilt_workspaces_are_exact_and_confined(tmp_path):
    source = tmp_path / "ws"
    (source / "a").mkdir(parents=True)
    (source / "a" / "x.txt").write_bytes(b"line\r\nnext")
    (source / "big.txt").write_bytes(b"x" * (workspaces.MAX_FILE_BYTES + 1))
    files, omitted = workspaces.snapshot(source)
    assert omitted == [{"path": "big.txt", "bytes": workspaces.MAX_FILE_BYTES + 1}]
    target = workspaces.rebuild(files, tmp_path / "copy", "results")
    assert (target / "a" / "x.txt").read_bytes() == b"line\r\nnext"
    with pytest.raises(ScievalsError, match="is not inside the workspace"):
        workspaces.rebuild({"../escape.txt": {"text": "x"}}, tmp_path / "c2", "results")
    with pytest.raises(ScievalsError, match="results: workspace_files: must be an object"):
        workspaces.rebuild(["a.txt"], tmp_path / "c3", "results")
    with pytest.raises(ScievalsError, match=r"workspace_files\['a.txt'\]: needs text or base64"):
        workspaces.rebuild({"a.txt": "plain"}, tmp_path / "c4", "results")
    with pytest.raises(ScievalsError, match=r"\['b.bin'\].base64: not base64"):
        workspaces.rebuild({"b.bin": {"base64": "@@"}}, tmp_path / "c5", "results")


def test_a_file_over_the_recording_limit_makes_the_run_an_error(tmp_path, recorded):
    _, path = recorded
    results = read_json(path)
    for run in results["tasks"][0]["runs"]:
        run["workspace_omitted"] = [{"path": "huge.csv", "bytes": 9 << 20}]
    write_json(path, results)
    graded = grade(_job(tmp_path, [path]))["s"]
    run = graded["tasks"][0]["runs"][0]
    assert run["status"] == "error"
    assert "huge.csv (9437184 bytes) were over the recording limit" in run["error_msg"]


def test_an_agent_job_writes_usage_and_the_score_table_gets_its_rows(tmp_path):
    """An LLM agent's predict job writes ``<suite>.usage.json`` (the LLM layer's record) and
    the score table gets the token/cost rows every LLM benchmark has."""
    from scievals.waza.predict import predict_job

    _suite(tmp_path / "suites" / "s", "green")
    write_json(tmp_path / "source.json", {"suites": {"s": {"dataset": "s", "sha256": "0"}}})
    # the mock provider counts words: each reply "All done here" is 3 output tokens;
    # priced 1 USD per output token (1e6 per million) and nothing per input token
    config = {"models": {"agent": {"provider": "mock", "responses": {"*": "All done here"},
                                   "price_in_per_mtok": 0.0,
                                   "price_out_per_mtok": 1_000_000.0}},
              "llm": {"cache_dir": str(tmp_path / "cache"), "cache_mode": "off"},
              "waza": {}}
    out = tmp_path / "predictions" / "s.json"
    predict_job(str(tmp_path / "suites" / "s"), "agent", config, str(out),
                str(tmp_path / "predictions" / "s.llm.jsonl"),
                str(tmp_path / "predictions" / "s.usage.json"))
    usage = read_json(tmp_path / "predictions" / "s.usage.json")
    # 2 trials x 1 turn (the first reply has no tool block: the final answer)
    assert (usage["requests"], usage["tokens_out"], usage["cost_usd"]) == (2, 6, 6.0)
    table = score(_job(tmp_path, [out])).set_index("metric")
    assert table.loc["tokens_out", "value"] == 6 and table.loc["tokens_out", "n"] == 2
    assert table.loc["cost_usd", "value"] == 6.0
    assert table.loc["failed_requests", "value"] == 0


def test_fail_fast_stops_recording_after_a_task_that_did_not_pass(tmp_path, run_and_grade):
    """fail_fast needs a verdict during the run: task a fails ('green' is not 'red'), so task
    b is never executed; the score stage grades the one recorded task."""
    root = tmp_path / "suites" / "s"
    (root / "tasks").mkdir(parents=True)
    (root / "eval.yaml").write_text(
        "name: s\nskill: s\nconfig: {trials_per_task: 1, fail_fast: true}\ntasks: [tasks/*.yaml]\n")
    for task in ("a", "b"):
        (root / "tasks" / f"{task}.yaml").write_text((TASK % "red").replace("t1", task))
    executor = CountingExecutor()
    outcome = run_and_grade(load_suite(root), "m", executor=executor)
    assert executor.runs == 1
    assert [t["test_id"] for t in outcome["tasks"]] == ["a"]
    assert outcome["tasks"][0]["status"] == "failed"


class _AnswersBySample:
    """Answers 'no' on a first attempt and 'ok' on a retry (sample index 1)."""

    kind = "test"

    def __init__(self) -> None:
        self.runs = 0

    def execute(self, prompt, workspace, trial):
        self.runs += 1
        return Execution(output="ok" if trial.sample_index else "no")

    def invoked_skills(self, prompt, should_trigger, trial):
        raise AssertionError("no trigger tests in this suite")


def test_recorded_attempts_are_chosen_again_under_new_graders(tmp_path, run_and_grade):
    """max_attempts 2: attempt 1 ('no') fails the 'ok' grader, so attempt 2 ('ok') is run
    and both are recorded. Graded for 'no' instead, the score stage takes attempt 1 (the
    first that did not fail), without executing anything."""
    root = tmp_path / "suites" / "s"
    (root / "tasks").mkdir(parents=True)
    (root / "eval.yaml").write_text(
        "name: s\nskill: s\nconfig: {trials_per_task: 1, max_attempts: 2}\n"
        "tasks: [tasks/*.yaml]\n")
    task = ("id: t\nname: t\ninputs: {prompt: go}\ngraders:\n"
            "  - {name: says, type: text, config: {contains: ['%s']}}\n")
    (root / "tasks" / "t.yaml").write_text(task % "ok")
    executor = _AnswersBySample()
    first = run_and_grade(load_suite(root), "m", executor=executor)["tasks"][0]["runs"][0]
    assert (first["status"], first["attempts"], first["final_output"]) == ("passed", 2, "ok")
    recorded = run_suite(load_suite(root), "m", executor=executor)
    assert executor.runs == 4  # two suite runs x two attempts
    (root / "tasks" / "t.yaml").write_text(task % "no")
    again = regrade(load_suite(root), recorded)["tasks"][0]["runs"][0]
    assert (again["status"], again["attempts"], again["final_output"]) == ("passed", 1, "no")
    assert executor.runs == 4


def test_the_recorded_runs_of_a_predict_job_hold_no_key(tmp_path, monkeypatch):
    """A key value that reaches a recorded run (here the agent's reply quotes it) is
    replaced before the predict job writes its file, as the score stage does."""
    from scievals.waza.predict import predict_job

    fake_key = "sk-test-fake-openai-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", fake_key)
    _suite(tmp_path / "suites" / "s", "green")
    config = {"models": {"agent": {"provider": "mock",
                                   "responses": {"*": f"Done; the key was {fake_key}"}}},
              "llm": {"cache_dir": str(tmp_path / "cache"), "cache_mode": "off"},
              "waza": {}}
    out = tmp_path / "predictions" / "s.json"
    predict_job(str(tmp_path / "suites" / "s"), "agent", config, str(out))
    text = out.read_text()
    assert fake_key not in text and "[OPENAI_API_KEY redacted]" in text
