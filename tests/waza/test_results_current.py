"""Own results written by current waza (schemaVersion 1.5 and later minors, issue 30 "waza
today") are read and graded. The fixture is built here from the results keys
specs/waza-current.md §5.1 lists (schema 1.1-1.5: tool_events, checkpoints, snapshot_path,
command_invocations, tool policy, Wilson intervals, pass_hat_k, evaluation_usage, ai_credits),
declared as 1.8; keys this reader does not know are ignored, as waza warns and ignores them
within a major."""

from __future__ import annotations

import copy
import json

import pytest
from scievals.cli import main
from scievals.common.errors import ScievalsError
from scievals.common.io import write_json
from scievals.waza.own_results import read_results
from scievals.waza.predict import import_predictions
from scievals.waza.runs import regrade
from scievals.waza.suites import load_suite


def _suite(root):
    """Two tasks whose code graders read the session digest: a passes when the first tool
    call's result object has content "ok" (Go's {content, detailedContent} shape), b wants
    two tool calls and the run has one."""
    suite = root / "suites" / "digest"
    (suite / "tasks").mkdir(parents=True)
    (suite / "eval.yaml").write_text("name: digest\nskill: s\ntasks: ['tasks/*.yaml']\n")
    for task_id, assertion in (("a", "tool_calls[0]['result']['content'] == 'ok'"),
                               ("b", "len(tool_calls) == 2")):
        (suite / "tasks" / f"{task_id}.yaml").write_text(
            f"id: {task_id}\nname: {task_id}\ninputs: {{prompt: p}}\n"
            f"graders: [{{type: code, name: c, config: {{assertions: [\"{assertion}\"]}}}}]\n")
    return suite


def _run(verdict: bool) -> dict:
    return {
        "run_number": 1, "attempts": 1, "status": "passed" if verdict else "failed",
        "duration_ms": 1200, "final_output": "done", "prompt": "p",
        "validations": {"c": {"identifier": "c", "type": "code", "score": float(verdict),
                              "weight": 1, "passed": verdict, "feedback": "", "duration_ms": 3}},
        "session_digest": {
            "tool_call_count": 1, "tools_used": ["bash"], "errors": [],
            "tool_calls": [{"name": "bash", "arguments": {"command": "ls"}, "success": True,
                            "result": {"content": "ok", "detailedContent": "ok (3 files)"}}],
            "usage": {"turns": 2, "input_tokens": 10, "output_tokens": 5,
                      "cache_read_tokens": 0, "cache_write_tokens": 0,
                      "premium_requests": 1, "ai_credits": 0.5},
            "tool_policy_mode": "allow_list",                       # 1.3
            "tool_policy_denials": [{"tool": "rm", "kind": "deny", "reason": "policy"}]},
        "transcript": [{"type": "tool.execution_start", "tool_name": "bash",
                        "tool_call_id": "t1", "arguments": {"command": "ls"}}],
        "checkpoints": [],                                          # 1.1
        "tool_events": [{"turn": 1, "sequence": 1, "tool_call_id": "t1",  # 1.1
                         "tool_name": "bash", "success": True, "duration_ms": 4}],
        "snapshot_path": "snapshots/a-1.json",                      # 1.2
        "command_invocations": [{"command": "ls", "exit_code": 0,   # 1.4
                                 "response_index": 0}],
        "failure_artifacts": None, "workspace_dir": "/tmp/x", "grader_sessions": [],
    }


def _results_18() -> dict:
    return {
        "schemaVersion": "1.8", "eval_id": "run-1", "skill": "s", "eval_name": "digest",
        "timestamp": "2026-11-20T10:00:00Z",
        "config": {"runs_per_test": 1, "model_id": "gpt-x", "engine_type": "copilot-sdk",
                   "timeout_sec": 300, "reasoning_effort": "high"},
        "summary": {"total_tests": 2, "succeeded": 1, "failed": 1, "errors": 0, "skipped": 0,
                    "success_rate": 0.5, "aggregate_score": 0.5, "weighted_score": 0.5,
                    "statistics": {"success_rate_ci": {"lower": 0.0945, "upper": 0.9055},
                                   "pass_hat_k": [0.5]}},
        "metrics": {},
        "evaluation_usage": {"sessions": [{"session_id": "s1", "usage_revision": 2}]},
        "tasks": [
            {"test_id": "a", "display_name": "a", "status": "passed", "cached": False,
             "golden": True, "stats": {"pass_rate": 1.0, "pass_rate_ci": {"lower": 0.2065,
                                                                          "upper": 1.0}},
             "runs": [_run(True)]},
            {"test_id": "b", "display_name": "b", "status": "failed", "cached": False,
             "stats": {"pass_rate": 0.0}, "runs": [_run(False)]},
        ],
    }


def test_a_18_results_file_is_read(tmp_path):
    path = tmp_path / "r.json"
    write_json(path, _results_18())
    assert read_results(path)["schemaVersion"] == "1.8"


def test_a_18_results_file_is_graded_against_its_suite(tmp_path):
    suite = _suite(tmp_path)
    user = tmp_path / "mine.json"
    write_json(user, _results_18())
    filed = import_predictions(user, tmp_path / "suites", ["digest"],
                               tmp_path / "imported.json")["digest"]
    graded = regrade(load_suite(suite), filed)
    # a: the result object's content is "ok" -> pass; b: 1 tool call, not 2 -> fail
    assert [t["status"] for t in graded["tasks"]] == ["passed", "failed"]
    assert graded["summary"]["success_rate"] == 0.5
    assert graded["tasks"][0]["golden"] is True


def test_grade_recorded_recomputes_a_18_file(tmp_path, capsys):
    path = tmp_path / "r.json"
    write_json(path, _results_18())
    out = tmp_path / "again.json"
    # one task failed: exit 1 (waza's code for a failed task)
    assert main(["waza", "grade", "--recorded", str(path), "-o", str(out)]) == 1
    capsys.readouterr()
    again = json.loads(out.read_text())
    # statuses from the verdicts: a passed, b failed -> 1 of 2
    assert [t["status"] for t in again["tasks"]] == ["passed", "failed"]
    assert again["summary"]["success_rate"] == 0.5


def test_another_major_is_still_refused(tmp_path):
    data = copy.deepcopy(_results_18())
    data["schemaVersion"] = "2.0"
    write_json(tmp_path / "r.json", data)
    with pytest.raises(ScievalsError, match="only 1.x results are read"):
        read_results(tmp_path / "r.json")
