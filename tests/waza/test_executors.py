"""Executors: waza's exact mock output, and the LLM agent loop (scripted mock provider)
recording waza-shaped session events that the graders read."""

from __future__ import annotations

import json

import pytest
from scievals.llm.base import ModelSpec
from scievals.llm.settings import LLMSettings
from scievals.waza import session
from scievals.waza.executors.agent import Agent, AgentSettings, find_skills
from scievals.waza.data import DEMO_DIR, demo_suites
from scievals.waza.suites import load_suite
from scievals.waza.executors.agent import AgentExecutor
from scievals.waza.executors.base import Execution
from scievals.waza.predict import run_suite


def _tool(name, **arguments):
    return "```tool\n" + json.dumps({"tool": name, "arguments": arguments}) + "\n```"


def _agent(tmp_path, replies: dict[str, str], skills=None, **settings) -> Agent:
    spec = ModelSpec(name="scripted", provider="mock", responses=replies)
    llm = LLMSettings(cache_dir=tmp_path / "cache", cache_mode="off")
    return Agent(spec, llm, AgentSettings(**settings), skills or {})


def test_mock_output_is_waza_exact():
    outcome = run_suite(load_suite(demo_suites()["code-explainer"]), "waza_mock", trials=1)
    runs = {t["test_id"]: t["runs"][0] for t in outcome["tasks"]}
    assert runs["explain-python-recursion-001"]["final_output"] == (
        "Mock response for: Explain this code to me\nAnalyzed 1 file(s)")
    showcase = run_suite(load_suite(demo_suites()["grader-showcase"]), "waza_mock")
    runs = {t["test_id"]: t["runs"][0] for t in showcase["tasks"]}
    assert runs["regex-demo-001"]["final_output"] == (
        "Mock response for: List 3 popular programming languages for web development")
    assert runs["code-demo-001"]["final_output"].endswith("\nAnalyzed 2 file(s)")
    # no events, tool calls or usage
    assert runs["code-demo-001"]["transcript"] == []
    assert runs["code-demo-001"]["session_digest"]["tool_call_count"] == 0
    assert runs["code-demo-001"]["session_digest"]["usage"] is None


def test_mock_trigger_tests_are_perfect(run_and_grade):
    outcome = run_and_grade(load_suite(demo_suites()["code-explainer"]), "waza_mock", trials=1)
    assert outcome["trigger_metrics"]["accuracy"] == 1.0
    # should-trigger prompts: 6 high (1.0 each) + 2 medium (0.5 each) = 7.0
    assert outcome["trigger_metrics"]["true_positives"] == 7
    assert outcome["metrics"]["trigger_accuracy"]["passed"] is True


def test_agent_reads_a_file_and_answers(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "factorial.py").write_text("def factorial(n): ...\n")
    agent = _agent(tmp_path, {
        "c/turn0": "Let me look.\n" + _tool("read", path="factorial.py"),
        "c/turn1": "It is a recursive factorial.",
    })
    run = agent.run("Explain this code", workspace, "c", 0, timeout_s=60)
    assert run.error == ""
    digest = session.digest(run.events)
    assert digest.tools_used == ["read"]
    assert digest.tool_calls[0].arguments == {"path": "factorial.py"}
    # Go's shape: Copilot's result object, not its content string
    assert digest.tool_calls[0].result == {"content": "def factorial(n): ...\n"}
    assert digest.tool_calls[0].success is True
    assert digest.usage["turns"] == 2
    # waza's output: every assistant message's content, joined without a separator
    assert session.final_output(run.events) == "Let me look.It is a recursive factorial."


def test_agent_workspace_confinement_and_bad_tool_blocks(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    agent = _agent(tmp_path, {
        "c/turn0": _tool("read", path="../secret.txt"),
        "c/turn1": "```tool\n{not json}\n```",
        "c/turn2": _tool("write", path="out/notes.md", content="hello"),
        "c/turn3": "done",
    })
    run = agent.run("x", workspace, "c", 0, timeout_s=60)
    calls = session.digest(run.events).tool_calls
    assert calls[0].success is False and "outside the workspace" in calls[0].result["content"]
    assert [c.name for c in calls] == ["read", "write"]  # the unparsable block is no call
    assert (workspace / "out" / "notes.md").read_text() == "hello"


def test_shell_has_no_api_keys_a_time_limit_and_a_switch(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    replies = {"c/turn0": _tool("shell", command="env; pwd"),
               "c/turn1": _tool("shell", command="sleep 5"), "c/turn2": "ok"}
    run = _agent(tmp_path, replies, shell_timeout_s=0.5).run("x", workspace, "c", 0, 60)
    env_call, sleep_call = session.digest(run.events).tool_calls
    env_text = env_call.result["content"]
    assert "sk-secret-value" not in env_text and "API_KEY" not in env_text
    assert str(workspace.resolve()) in env_call.result["content"]
    assert sleep_call.success is False and "timed out after 0.5 s" in sleep_call.result["content"]
    off = _agent(tmp_path, replies, allow_shell=False).run("x", workspace, "c", 0, 60)
    call = session.digest(off.events).tool_calls[0]
    assert call.success is False and "shell tool is turned off" in call.result["content"]


def test_skill_loading_records_skill_invoked(tmp_path):
    skills = find_skills([DEMO_DIR / "suites" / "code-explainer"])
    assert list(skills) == ["code-explainer"]
    agent = _agent(tmp_path, {"c/turn0": _tool("skill", skill="code-explainer"),
                              "c/turn1": "Explained."}, skills=skills)
    run = agent.run("Explain this code", tmp_path, "c", 0, 60)
    invoked = session.skill_invocations(run.events)
    assert [s.name for s in invoked] == ["code-explainer"]
    event = next(e for e in run.events if e["type"] == "skill.invoked")
    assert event["data"]["content"].startswith("# Code Explainer")  # the body, no front matter


def test_agent_runs_feed_every_grader(tmp_path, run_and_grade):
    """A whole suite through the agent: action_sequence, behavior and file graders see
    the recorded tool calls, token usage and workspace."""
    suite_dir = tmp_path / "suite"
    (suite_dir / "tasks").mkdir(parents=True)
    (suite_dir / "eval.yaml").write_text(
        "name: s\nskill: s\nconfig: {trials_per_task: 1}\ntasks: [tasks/*.yaml]\n")
    (suite_dir / "tasks" / "t.yaml").write_text(
        "id: t\nname: t\ninputs: {prompt: write it}\ngraders:\n"
        "  - {name: seq, type: action_sequence, config: {matching_mode: exact_match,"
        " expected_actions: [list, write]}}\n"
        "  - {name: beh, type: behavior, config: {max_tool_calls: 2, required_tools: [write]}}\n"
        "  - {name: file, type: file, config: {must_exist: [README.md]}}\n")
    agent = _agent(tmp_path, {"suite/scripted/t/run1/turn0": _tool("list", path="."),
                              "suite/scripted/t/run1/turn1": _tool("write", path="README.md",
                                                               content="# hi"),
                              "suite/scripted/t/run1/turn2": "Wrote README.md"})
    # graded after the run from the recorded workspace (README.md rebuilt for the file grader)
    outcome = run_and_grade(load_suite(suite_dir), "scripted", executor=AgentExecutor(agent))
    run = outcome["tasks"][0]["runs"][0]
    assert run["status"] == "passed", run
    assert {k: v["score"] for k, v in run["validations"].items()} == {
        "seq": 1.0, "beh": 1.0, "file": 1.0}
    assert run["session_digest"]["tools_used"] == ["list", "write"]


def test_no_final_answer_within_max_turns_is_an_error(tmp_path):
    agent = _agent(tmp_path, {"c/turn0": _tool("list", path=".")}, max_turns=1)
    run = agent.run("x", tmp_path, "c", 0, 60)
    assert run.error == "no final answer after 1 turns"


def _one_task_suite(tmp_path, config: str):
    suite_dir = tmp_path / "suite"
    (suite_dir / "tasks").mkdir(parents=True)
    (suite_dir / "eval.yaml").write_text(
        f"name: s\nskill: s\nconfig: {config}\ntasks: [tasks/*.yaml]\n")
    (suite_dir / "tasks" / "t.yaml").write_text(
        "id: t\nname: t\ninputs: {prompt: go}\ngraders:\n"
        "  - {name: says_ok, type: text, config: {contains: ['ok']}}\n")
    return suite_dir


def test_failed_runs_are_retried_up_to_max_attempts(tmp_path, run_and_grade):
    suite_dir = _one_task_suite(tmp_path, "{trials_per_task: 2, max_attempts: 3}")
    # run 1: attempt 1 fails, attempt 2 passes; run 2: all three attempts fail
    agent = _agent(tmp_path, {"suite/a/t/run1/turn0": "no", "suite/a/t/run1/attempt2/turn0": "ok",
                              "suite/a/t/run2/turn0": "no", "suite/a/t/run2/attempt2/turn0": "no",
                              "suite/a/t/run2/attempt3/turn0": "nope"})
    outcome = run_and_grade(load_suite(suite_dir), "a", executor=AgentExecutor(agent))
    first, second = outcome["tasks"][0]["runs"]
    assert (first["status"], first["attempts"], first["final_output"]) == ("passed", 2, "ok")
    assert (second["status"], second["attempts"], second["final_output"]) == (
        "failed", 3, "nope")


def test_required_skills_are_checked_before_any_run(tmp_path):
    from scievals.common.errors import ScievalsError

    suite_dir = _one_task_suite(tmp_path, "{required_skills: [helper]}")
    with pytest.raises(ScievalsError, match=r"skill\(s\) \['helper'\] not found"):
        run_suite(load_suite(suite_dir), "waza_mock")
    (suite_dir / "skills" / "helper").mkdir(parents=True)
    (suite_dir / "skills" / "helper" / "SKILL.md").write_text(
        "---\nname: helper\ndescription: helps\n---\nBody\n")
    (suite_dir / "eval.yaml").write_text(
        "name: s\nskill: s\nconfig: {required_skills: [helper], skill_directories: [skills]}\n"
        "tasks: [tasks/*.yaml]\n")
    assert run_suite(load_suite(suite_dir), "waza_mock")["tasks"][0]["runs"]


def test_shell_timeout_ends_background_processes_too(tmp_path):
    import time
    from pathlib import Path

    from scievals.waza.executors.agent import Workspace

    workspace = Workspace(tmp_path, AgentSettings(shell_timeout_s=0.5))
    with pytest.raises(ValueError, match="timed out after 0.5 s"):
        workspace.shell("sleep 30 & echo $! > child.pid; wait")
    pid = int((tmp_path / "child.pid").read_text())
    time.sleep(0.2)
    status = Path(f"/proc/{pid}/status")
    # gone, or a zombie waiting for a reaper (containers' init may not reap at once)
    if status.exists():
        state = next(line for line in status.read_text().splitlines()
                     if line.startswith("State:"))
        assert "Z" in state.split()[1], state


def test_skip_graders_marks_runs_and_tasks_skipped(run_and_grade):
    outcome = run_and_grade(load_suite(demo_suites()["grader-showcase"]), "waza_mock",
                        skip_graders=True)
    assert {r["status"] for t in outcome["tasks"] for r in t["runs"]} == {"skipped"}
    assert {t["status"] for t in outcome["tasks"]} == {"skipped"}
    assert outcome["summary"]["skipped"] == 6 and outcome["summary"]["failed"] == 0
    assert all(r["validations"] == {} for t in outcome["tasks"] for r in t["runs"])


class _FailsOnTriggers:
    """An executor whose trigger prompts all end in a model error."""

    kind = "test"

    def execute(self, prompt, workspace, trial):
        if "trigger" in trial.case_id:
            return Execution(error="model error: boom")
        return Execution(output="Here is an explanation of the code.")

    def invoked_skills(self, prompt, should_trigger, trial):
        return [], self.execute(prompt, None, trial).error


def test_trigger_engine_errors_count_as_wrong(run_and_grade):
    outcome = run_and_grade(load_suite(demo_suites()["code-explainer"]), "x",
                            executor=_FailsOnTriggers(), trials=1)
    results = outcome["trigger_results"]
    assert all(r["did_trigger"] is (not r["should_trigger"]) for r in results)
    assert outcome["trigger_metrics"]["accuracy"] == 0.0
    assert outcome["trigger_metrics"]["errors"] == 16
    assert outcome["metrics"]["trigger_accuracy"]["passed"] is False


def test_skill_invoked_by_the_agent_counts_as_triggered(tmp_path, run_and_grade):
    skills = find_skills([DEMO_DIR / "suites" / "code-explainer"])
    # loads the skill for "Explain ..." prompts only (case ids start with the suite folder)
    replies = {f"code-explainer/a/trigger{i}/turn0": _tool("skill", skill="code-explainer")
               for i in (0, 1)}
    replies["*"] = "Sure."
    agent = _agent(tmp_path, replies, skills=skills)
    suite = load_suite(demo_suites()["code-explainer"])
    outcome = run_and_grade(suite, "a", executor=AgentExecutor(agent), trials=1)
    did = [r["did_trigger"] for r in outcome["trigger_results"]]
    assert did == [True, True] + [False] * 14
    # TP 2 (high), FN 4 high + 2 medium = 5, TN 6 high + 2 medium = 7, FP 0
    m = outcome["trigger_metrics"]
    assert (m["true_positives"], m["false_negatives"], m["true_negatives"]) == (2, 5, 7)
    assert m["accuracy"] == round(9 / 14, 4)
