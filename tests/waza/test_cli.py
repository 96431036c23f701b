"""``python -m scievals waza run|grade|check``: waza's exit codes and outputs."""

from __future__ import annotations

import json

from scievals.cli import main
from scievals.waza.data import DEMO_DIR, demo_suites


def test_check_exit_codes(capsys):
    assert main(["waza", "check", str(demo_suites()["code-explainer"].parent)]) == 0
    assert "valid" in capsys.readouterr().out
    assert main(["waza", "check", str(DEMO_DIR / "invalid" / "waza-interactive-eval.yaml")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) >= 3 and all("waza-interactive-eval.yaml" in line for line in out)


def test_run_passing_suite_writes_results(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(["waza", "run", str(demo_suites()["code-explainer"]), "-o", str(out),
                 "--trials", "2"])
    assert code == 0
    result = json.loads(out.read_text())
    assert set(result) >= {"eval_id", "skill", "eval_name", "timestamp", "config", "summary",
                           "metrics", "trigger_metrics", "trigger_results", "tasks"}
    assert result["config"]["runs_per_test"] == 2
    task = result["tasks"][0]
    assert set(task) >= {"test_id", "display_name", "status", "stats", "runs"}
    assert set(task["runs"][0]) >= {"run_number", "attempts", "status", "duration_ms",
                                    "final_output", "error_msg", "skill_invocations",
                                    "transcript", "validations", "session_digest"}
    assert "bootstrap_ci" in task["stats"]  # two runs


def test_run_failing_suite_exits_1(capsys):
    assert main(["waza", "run", str(demo_suites()["grader-showcase"])]) == 1
    assert "0/6 tasks passed" in capsys.readouterr().err


def test_config_error_exits_2_with_one_line(tmp_path, capsys):
    (tmp_path / "eval.yaml").write_text("skill: s\ntasks: [t.yaml]\nbogus: 1\n")
    assert main(["waza", "run", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "eval.yaml" in err and "unknown key(s) bogus" in err


def test_grade_replays_recorded_runs(tmp_path, capsys):
    suite = str(demo_suites()["code-explainer"])
    recorded = tmp_path / "r.json"
    assert main(["waza", "run", suite, "-o", str(recorded), "--trials", "1"]) == 0
    data = json.loads(recorded.read_text())
    # Another machine's agent said something else in one run: re-grading sees it.
    data["tasks"][0]["runs"][0]["final_output"] = "short"
    recorded.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["waza", "grade", suite, "--results", str(recorded)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] is False
    assert report["tasks"][0]["status"] == "failed"
    # has_explanation (len(output) > 10) fails on "short"; no_errors passes: 4 runs, 1 failure
    assert report["grader_averages"]["has_explanation"] == 0.75
    assert report["grader_averages"]["no_errors"] == 1.0


def test_grade_recorded_sample(capsys):
    sample = DEMO_DIR / "showcase-results" / "trigger-accuracy-gemini.json"
    assert main(["waza", "grade", "--recorded", str(sample)]) == 1  # one task failed
    report = json.loads(capsys.readouterr().out)
    assert [t["status"] for t in report["tasks"]].count("failed") == 1


def test_run_with_a_registry_llm_and_a_bad_judge(tmp_path, capsys):
    config = tmp_path / "config.yaml"
    config.write_text(
        "models:\n  scripted:\n    provider: mock\n"
        "    responses: {'*': 'This code is a recursive factorial function.'}\n"
        f"llm: {{cache_dir: {tmp_path / 'cache'}, cache_mode: 'off'}}\n")
    out = tmp_path / "r.json"
    suite = str(demo_suites()["code-explainer"])
    assert main(["waza", "run", suite, "--model", "scripted", "--config", str(config),
                 "--tags", "recursion", "--trials", "1", "-o", str(out)]) == 1
    result = json.loads(out.read_text())
    assert [t["test_id"] for t in result["tasks"]] == ["explain-python-recursion-001"]
    assert result["tasks"][0]["status"] == "passed"
    # the agent never loads the skill: the trigger gate (0.9) fails, so exit code 1
    assert result["metrics"]["trigger_accuracy"]["passed"] is False
    assert main(["waza", "run", suite, "--config", str(config), "--judge-model", "nope"]) == 2
    assert "waza.judge_model: 'nope' is not in the model registry" in capsys.readouterr().err


def test_transcript_dir_writes_one_file_per_run(tmp_path):
    folder = tmp_path / "transcripts"
    assert main(["waza", "run", str(demo_suites()["code-explainer"]), "--trials", "2",
                 "--task", "explain-sql-join-001", "--transcript-dir", str(folder)]) == 0
    files = sorted(p.name for p in folder.iterdir())
    assert len(files) == 2 and all(f.startswith("explain-sql-join-001-") for f in files)
    first = next(f for f in files if not f.endswith("-run2.json"))
    assert first.replace(".json", "-run2.json") in files
    content = json.loads((folder / first).read_text())
    assert set(content) == {"task_id", "task_name", "status", "started_at", "completed_at",
                            "duration_ms", "prompt", "final_output", "transcript",
                            "validations", "session", "error_msg"}
    assert content["final_output"].startswith(f"Mock response for: {content['prompt']}")
