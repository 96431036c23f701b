"""Grading runs (``scievals.waza.runs``): graders built once per task with their suite
name, each grader over all runs of a task at once, errors kept to their run."""

from __future__ import annotations

from scievals.waza import runs
from scievals.waza.graders.base import GraderContext, SessionDigest
from scievals.waza.data import demo_suites
from scievals.waza.suites import load_suite
from scievals.waza.graders.code import CodeGrader
from scievals.waza.runs import regrade


def _recorded(task_id: str, n_runs: int, **run) -> dict:
    base = {"final_output": "Mock response for: x", "transcript": [], "session_digest": None}
    return {"skill": "waza", "tasks": [{"test_id": task_id, "runs": [
        {**base, **run, "run_number": i + 1} for i in range(n_runs)]}]}


def test_regrade_builds_each_grader_once_per_task_and_batches_code(monkeypatch):
    """grader-showcase's action-sequence task has the global graders has_output (code) and
    no_critical_errors (text) plus its own expected_workflow (action_sequence): three runs
    need three builds, and the code grader grades the three runs in one call."""
    suite = load_suite(demo_suites()["grader-showcase"])
    built, batches = [], []
    real_build, real_many = runs.build, CodeGrader.grade_many

    def counting_build(kind, config, options=None, name=""):
        built.append(name)
        return real_build(kind, config, options, name)

    def counting_many(self, contexts):
        batches.append(len(contexts))
        return real_many(self, contexts)

    monkeypatch.setattr(runs, "build", counting_build)
    monkeypatch.setattr(CodeGrader, "grade_many", counting_many)
    out = regrade(suite, _recorded("action-sequence-demo-001", 3),
                  task_filter=["action-sequence-demo-001"])
    assert sorted(built) == ["expected_workflow", "has_output", "no_critical_errors"]
    assert batches == [3]
    validations = [r["validations"] for r in out["tasks"][0]["runs"]]
    assert len(validations) == 3
    # A recorded run without a session digest: §6.9 "Nil session -> 0", and waza's feedback
    # names the grader as the suite does (action_sequence grader '<name>': ...).
    for v in validations:
        assert v["expected_workflow"]["score"] == 0.0
        assert v["expected_workflow"]["feedback"] == (
            "action_sequence grader 'expected_workflow': no session digest available")


def test_a_grader_error_stays_with_its_run(tmp_path):
    """§5: "Any grader error (bad config or path, ...) turns the run into `error`
    (`running graders: ...`)" -- that run only. A `file` path outside the workspace is a
    grader error (docs/waza.md); a run without a workspace scores 0 instead (§6.3: "No
    workspace: score 0 (`No workspace directory available for file grading`)")."""
    from scievals.waza.suites import GraderSpec

    specs = [GraderSpec("len", "code", {"assertions": ["len(output) > 2"]}),
             GraderSpec("f", "file", {"must_exist": ["../outside.txt"]})]
    graders = runs.build_graders(specs, runs.GraderOptions())
    contexts = [GraderContext(output="abcd", workspace_dir=tmp_path),
                GraderContext(output="ab", session=SessionDigest())]
    (first, first_error), (second, second_error) = runs.grade_runs(graders, contexts)
    # run 1: len passes (4 > 2); the file grader refuses the path outside the workspace
    assert first["len"]["passed"] is True and "f" not in first
    assert first_error.startswith("running graders: f: ")
    # run 2: len fails (2 > 2 is false); no workspace -> the file grader scores 0, no error
    assert second["len"]["feedback"] == "Failed: len(output) > 2"
    assert second["f"]["score"] == 0.0
    assert second["f"]["feedback"] == "No workspace directory available for file grading"
    assert second_error == ""
