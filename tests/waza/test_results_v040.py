"""Own results of waza v0.40 and later (results schema 1.8; issue 30 "waza today").

The results file below is written here, from what waza documents (docs/waza.md, "Results
of waza v0.40 and later", lists the pages): the EvaluationOutcome keys of schema 1.0-1.5
(site/.../reference/schema-changes.md), ``schemaVersion: "1.8"`` (the v0.40.0 release
notes: "New results use schema 1.8"), and waza's own A/B layout (``is_baseline``,
``baseline_outcome``: the whole no-skill outcome). The v0.40 release names what 1.6-1.8
added (task-level MCP mocks, recorded host lifecycle events, program-grader context) but no
reachable source gives their key names: ``host_lifecycle_events`` and
``program_grader_context`` below stand in for them, to show that unknown keys are said,
not silently used. Every expected value is worked by hand in the comments.
"""

from __future__ import annotations

import copy
import json

import pytest
from scievals.cli import main
from scievals.common.errors import ScievalsError
from scievals.common.io import write_json
from scievals.waza.own_results import newer_minor_notes, read_results
from scievals.waza.predict import import_predictions
from scievals.waza.runs import regrade
from scievals.waza.suites import check_report, load_suite


def _suite(root):
    """Three tasks, two graders' worth of checks each, every weight 1:
    t1: text contains "report.md" + code ``len(tool_calls) >= 1``;
    t2: text regex ``^Done``; t3: code ``tool_calls[0]['result']['content'] == 'ok'``
    (Go's tool result object {content, detailedContent})."""
    suite = root / "suites" / "inventory"
    (suite / "tasks").mkdir(parents=True)
    (suite / "eval.yaml").write_text(
        "name: inventory\nskill: inv\nconfig: {trials_per_task: 2}\ntasks: ['tasks/*.yaml']\n")
    graders = {
        "t1": '[{type: text, name: file, config: {contains: ["report.md"]}}, '
              '{type: code, name: tools, config: {assertions: ["len(tool_calls) >= 1"]}}]',
        "t2": '[{type: text, name: done, config: {regex_match: ["^Done"]}}]',
        "t3": "[{type: code, name: ok, config: {assertions: "
              "[\"tool_calls[0]['result']['content'] == 'ok'\"]}}]",
    }
    for task_id, spec in graders.items():
        (suite / "tasks" / f"{task_id}.yaml").write_text(
            f"id: {task_id}\nname: {task_id}\ninputs: {{prompt: p}}\ngraders: {spec}\n")
    return suite


def _verdict(name, kind, passed):
    return {"identifier": name, "type": kind, "score": float(passed), "weight": 1,
            "passed": passed, "feedback": "", "duration_ms": 2}


def _run(number, output, tool_result, verdicts):
    """One 1.8 run: the 1.1-1.5 keys (tool_events, snapshot_path, command_invocations,
    tool policy) and a stand-in for the 1.6-1.8 host lifecycle events."""
    calls = [] if tool_result is None else [
        {"name": "bash", "arguments": {"command": "ls"}, "success": True,
         "result": {"content": tool_result, "detailedContent": tool_result + " (long)"}}]
    return {
        "run_number": number, "attempts": 1,
        "status": "passed" if all(v["passed"] for v in verdicts.values()) else "failed",
        "duration_ms": 900, "final_output": output, "prompt": "p", "validations": verdicts,
        "session_digest": {"tool_call_count": len(calls), "tools_used": ["bash"] * len(calls),
                           "tool_calls": calls, "errors": [], "tool_policy_mode": "unrestricted",
                           "usage": {"turns": 1, "input_tokens": 10, "output_tokens": 5,
                                     "ai_credits": 0.25}},
        "transcript": [], "tool_events": [], "snapshot_path": f"snap/{number}.json",
        "command_invocations": [],
        "host_lifecycle_events": [{"event": "session.start"}],  # stand-in (1.6-1.8)
    }


def _arm(runs_by_task):
    return [{"test_id": t, "display_name": t, "status": "failed", "cached": False,
             "program_grader_context": {"path": "ctx.json"},  # stand-in (1.6-1.8)
             "runs": runs} for t, runs in runs_by_task.items()]


def _results_v040() -> dict:
    """With skills (tasks): t1 run 1 writes report.md with one tool call (both graders
    pass), run 2 neither (both fail); t2 answers "Done" twice; t3's tool call returns "ok"
    in run 1 and "error" in run 2. Without skills (baseline_outcome): t1 no file and no
    call twice; t2 "Done" then "I could not"; t3 "error" twice."""
    v = _verdict
    with_skills = _arm({
        "t1": [_run(1, "wrote report.md", "ok", {"file": v("file", "text", True),
                                                  "tools": v("tools", "code", True)}),
               _run(2, "no file", None, {"file": v("file", "text", False),
                                         "tools": v("tools", "code", False)})],
        "t2": [_run(1, "Done.", None, {"done": v("done", "text", True)}),
               _run(2, "Done again", None, {"done": v("done", "text", True)})],
        "t3": [_run(1, "listed", "ok", {"ok": v("ok", "code", True)}),
               _run(2, "listed", "error", {"ok": v("ok", "code", False)})]})
    without = _arm({
        "t1": [_run(n, "no file", None, {"file": v("file", "text", False),
                                         "tools": v("tools", "code", False)})
               for n in (1, 2)],
        "t2": [_run(1, "Done.", None, {"done": v("done", "text", True)}),
               _run(2, "I could not", None, {"done": v("done", "text", False)})],
        "t3": [_run(n, "listed", "error", {"ok": v("ok", "code", False)}) for n in (1, 2)]})
    header = {"eval_id": "run-1", "skill": "inv", "eval_name": "inventory",
              "timestamp": "2026-11-20T10:00:00Z",
              "config": {"runs_per_test": 2, "model_id": "gpt-x",
                         "engine_type": "copilot-sdk", "timeout_sec": 300},
              "summary": {"total_tests": 3, "succeeded": 1, "success_rate": 1 / 3},
              "metrics": {}}
    return {"schemaVersion": "1.8", **header, "tasks": with_skills, "is_baseline": True,
            "evaluation_usage": {"sessions": []},
            "baseline_outcome": {"schemaVersion": "1.8", **header, "tasks": without,
                                 "summary": {"total_tests": 3, "succeeded": 0,
                                             "success_rate": 0.0}}}


# With skills, per run (score = mean of its graders' scores, weights 1):
#   t1: run 1 (1 + 1)/2 = 1 passed, run 2 (0 + 0)/2 = 0 failed -> task failed, pass rate 1/2,
#       average weighted score 0.5;  t2: 1, 1 -> passed, 1.0;  t3: 1, 0 -> failed, 1/2, 0.5
#   success rate = 1 of 3 tasks = 1/3; weighted score = (0.5 + 1 + 0.5)/3 = 2/3
# Without skills: t1 0, 0 -> 0; t2 1, 0 -> failed, 1/2, 0.5; t3 0, 0 -> 0
#   success rate 0/3 = 0; weighted score = (0 + 0.5 + 0)/3 = 1/6
# skill_impact.delta = pass rate with - without: t1 1/2 - 0, t2 1 - 1/2, t3 1/2 - 0 = 1/2 each
# normalized gain (pre 0, post 1/3) = (1/3 - 0)/(1 - 0) = 1/3
WITH = {"status": ["failed", "passed", "failed"], "success_rate": 1 / 3, "weighted": 2 / 3}
WITHOUT = {"status": ["failed", "failed", "failed"], "success_rate": 0.0, "weighted": 1 / 6}


def _check(graded):
    assert [t["status"] for t in graded["tasks"]] == WITH["status"]
    assert graded["summary"]["success_rate"] == pytest.approx(WITH["success_rate"])
    assert graded["summary"]["weighted_score"] == pytest.approx(WITH["weighted"])
    arm = graded["baseline_outcome"]
    assert [t["status"] for t in arm["tasks"]] == WITHOUT["status"]
    assert arm["summary"]["success_rate"] == WITHOUT["success_rate"]
    assert arm["summary"]["weighted_score"] == pytest.approx(WITHOUT["weighted"])
    assert [t["skill_impact"]["delta"] for t in graded["tasks"]] == [0.5, 0.5, 0.5]
    assert graded["summary"]["statistics"]["normalized_gain"] == pytest.approx(1 / 3)


def test_a_v040_results_file_grades_both_arms_here(tmp_path, caplog):
    suite = _suite(tmp_path)
    user = tmp_path / "mine.json"
    write_json(user, _results_v040())
    with caplog.at_level("WARNING"):  # the end-of-run notice (only logged outside a job)
        filed = import_predictions(user, tmp_path / "suites", ["inventory"],
                                   tmp_path / "imported.json")["inventory"]
    assert "results schema 1.8 is newer than 1.5" in caplog.text
    assert "baseline_outcome" not in filed and len(filed["baseline_tasks"]) == 3
    _check(regrade(load_suite(suite), filed))


def test_grade_recorded_re_derives_both_arms_from_the_verdicts(tmp_path, capsys):
    path = tmp_path / "r.json"
    write_json(path, _results_v040())
    out = tmp_path / "again.json"
    # A/B exit code (waza): 0 because 1/3 with skills is above the arm's 0
    assert main(["waza", "grade", "--recorded", str(path), "-o", str(out)]) == 0
    assert "results schema 1.8 is newer than 1.5" in capsys.readouterr().err
    _check(json.loads(out.read_text()))


def test_what_this_reader_ignores_in_a_18_file_is_said(tmp_path, capsys):
    suite = _suite(tmp_path)
    path = tmp_path / "r.json"
    write_json(path, _results_v040())
    assert main(["waza", "grade", str(suite), "--results", str(path)]) == 0
    err = capsys.readouterr().err
    assert err.count("note: ") == 1
    assert ("ignored: runs[].host_lifecycle_events, tasks[].program_grader_context"
            in err)


def test_a_15_file_and_a_file_without_version_get_no_notice(tmp_path):
    data = read_results_from(tmp_path, {**_results_v040(), "schemaVersion": "1.5"})
    assert newer_minor_notes(data, "r.json", {"program"}) == []
    data = _results_v040()
    del data["schemaVersion"]  # missing: the reader's current version, as waza reads it
    assert newer_minor_notes(read_results_from(tmp_path, data), "r.json") == []


def test_program_graders_on_a_18_file_get_a_notice(tmp_path):
    data = read_results_from(tmp_path, _results_v040())
    lines = newer_minor_notes(data, "r.json", {"text", "program"})
    assert len(lines) == 2
    assert "program graders here get waza v0.23's context" in lines[1]
    # 1.7 predates v0.40's program-grader context: only the ignored keys are said
    data["schemaVersion"] = "1.7"
    assert len(newer_minor_notes(data, "r.json", {"program"})) == 1


def read_results_from(tmp_path, data):
    path = tmp_path / "any.json"
    write_json(path, data)
    return read_results(path)


# --- what scievals cannot read: one line each ---------------------------------------------

@pytest.mark.parametrize(("version", "said"), [
    ("1.8.0", "'1.8.0' is not MAJOR.MINOR text"),
    ("v1.8", "'v1.8' is not MAJOR.MINOR text"),
    ("1", "'1' is not MAJOR.MINOR text"),
    (1.8, "1.8 is not MAJOR.MINOR text"),          # a JSON number: Go cannot decode it
    ("2.0", "'2.0': only 1.x results are read"),
])
def test_a_version_waza_would_refuse_is_one_line(tmp_path, version, said):
    with pytest.raises(ScievalsError, match="schemaVersion") as caught:
        read_results_from(tmp_path, {**_results_v040(), "schemaVersion": version})
    assert said in caught.value.one_line()


@pytest.mark.parametrize(("document", "said"), [
    ({"kind": "waza.provenance-bundle", "schema_version": "1.0",
      "envelope": "statement.dsse.json", "signer": {"mode": "local-ed25519", "key_id": "k"}},
     "a waza.provenance-bundle document (schema_version 1.0), not a results file"),
    ({"kind": "waza.runner-terminal", "schema_version": "1.0", "outcome": "success",
      "exit_code": 0}, "a waza.runner-terminal document"),
    ({"kind": "waza.execution-checkpoint", "schema_version": "1.0",
      "boundary": "finalized-unit"}, "a waza.execution-checkpoint document"),
    ({"payloadType": "application/vnd.in-toto+json", "payload": "e30=",
      "signatures": [{"keyid": "k", "sig": "AA=="}]}, "a signed DSSE envelope"),
])
def test_durable_execution_and_provenance_documents_are_refused_by_name(tmp_path, capsys,
                                                                        document, said):
    suite = _suite(tmp_path)
    path = tmp_path / "doc.json"
    write_json(path, document)
    assert main(["waza", "grade", str(suite), "--results", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0]


def test_two_no_skill_arms_are_refused(tmp_path):
    data = _results_v040()
    data["baseline_tasks"] = copy.deepcopy(data["baseline_outcome"]["tasks"])
    with pytest.raises(ScievalsError, match="given beside baseline_tasks: two no-skill arms"):
        read_results_from(tmp_path, data)


def test_a_baseline_outcome_without_tasks_is_refused(tmp_path):
    data = {**_results_v040(), "baseline_outcome": {"summary": {}}}
    with pytest.raises(ScievalsError, match="baseline_outcome: must be a results object"):
        read_results_from(tmp_path, data)


def test_a_damaged_run_in_waza_s_arm_names_the_arm(tmp_path):
    data = _results_v040()
    data["baseline_outcome"]["tasks"][1]["runs"][0]["duration_ms"] = "abc"
    with pytest.raises(ScievalsError, match=r"baseline_tasks\[1\] \('t2'\) runs\[0\]: "
                                            "duration_ms"):
        read_results_from(tmp_path, data)


def test_task_level_mcp_mocks_are_refused_not_dropped(tmp_path):
    """waza v0.40's task-level MCP mocks: dropped as an unknown key, a run here would go
    on without any mock (other numbers than waza's); refused like the eval-level ones."""
    suite = tmp_path / "mocked"
    (suite / "tasks").mkdir(parents=True)
    (suite / "eval.yaml").write_text(
        'schemaVersion: "1.8"\nname: mocked\nskill: s\nconfig: {trials_per_task: 1, '
        "timeout_seconds: 60, executor: mock, model: m}\ntasks: ['tasks/*.yaml']\n"
        "metrics: [{name: task_completion, threshold: 0.5, weight: 1}]\n")
    (suite / "tasks" / "a.yaml").write_text(
        "id: a\nname: a\ninputs: {prompt: p}\nmcp_mocks: [{name: inventory}]\n")
    problems, _ = check_report(suite)
    assert any("a.yaml: mcp_mocks: task-level MCP mocks (waza v0.40) are not supported"
               in p for p in problems)
    with pytest.raises(ScievalsError, match="task-level MCP mocks"):
        load_suite(suite)


def test_many_unknown_keys_are_counted_and_hidden_characters_escaped(tmp_path, capsys):
    # Issue 34, item 8: 100,000 unknown keys made a 1.6 MB note, and key names with an
    # ANSI escape or a line break reached the terminal raw.
    data = _results_v040()
    data.update({f"k{i:06d}": i for i in range(100_000)})
    data.update({"\x1b[2Jclear": 1, "\nbreak": 2})
    suite = _suite(tmp_path)
    path = tmp_path / "r.json"
    write_json(path, data)
    assert main(["waza", "grade", str(suite), "--results", str(path)]) == 0
    err = capsys.readouterr().err
    [note] = [line for line in err.splitlines() if line.startswith("note: ")]
    # sorted, "\n" (0x0a) < "\x1b" < "k" < "runs[]..." < "tasks[]...": the two hostile names,
    # then 3 of the 100,000; with the 1.8 file's own 2 unknown keys (the test above) 100,004
    # in all, 5 named, so 99,999 more
    assert note.endswith("; ignored: \\u000abreak, \\u001b[2Jclear, k000000, k000001, k000002 "
                         "and 99,999 more")
    assert "\x1b" not in err and err.count("note: ") == 1
    assert len(note) < 600


def test_a_listed_name_is_cut_and_kept_on_one_line():
    from scievals.common.errors import LISTED_NAME_CHARS, listed

    long = "x" * 10_000
    # 80 characters and "...", then the tab escaped (a name is one line: tab and newline too)
    assert listed([long, "a\tb"]) == "x" * LISTED_NAME_CHARS + "..., a\\u0009b"
    assert listed(["a", "b", "c"], limit=2) == "a, b and 1 more"
    assert listed([]) == ""
