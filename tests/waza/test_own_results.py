"""Results files someone else wrote (issue 19 items 9, 16): damaged runs are one line
naming task and run; an imported file cannot cherry-pick tasks or repeat runs."""

from __future__ import annotations

import json

import pytest
from scievals.cli import main
from scievals.common.errors import ScievalsError
from scievals.common.io import read_json, write_json
from scievals.waza.metrics import suite_metrics
from scievals.waza.predict import import_predictions
from scievals.waza.runs import regrade
from scievals.waza.suites import load_suite

from .conftest import four_task_suite

BOOT = {"n_resamples": 200, "seed": 0}


def _results(suite, tmp_path):
    """What `waza run -o` writes for the suite (graded runs): a user's own results file."""
    out = tmp_path / "run.json"
    main(["waza", "run", str(suite), "-o", str(out)])
    return read_json(out)


def test_cherry_picked_passing_task_counts_the_missing_ones_as_failed(tmp_path, caplog):
    suite = four_task_suite(tmp_path / "suites")
    mine = _results(suite, tmp_path)
    assert [t["status"] for t in mine["tasks"]] == ["passed", "failed", "failed", "failed"]
    mine["tasks"] = mine["tasks"][:1]  # only the passing task
    user = tmp_path / "mine.json"
    write_json(user, mine)
    with caplog.at_level("WARNING"):
        import_predictions(user, tmp_path / "suites", ["four"], tmp_path / "imported.json")
    assert "task(s) b, c, d missing; counted as failed" in caplog.text
    filed = read_json(tmp_path / "imported.json")["suites"]["four"]
    graded = regrade(load_suite(suite), filed)  # what the score stage does
    # 1 passed of the suite's 4 tasks: pass rate 1/4 = 0.25 (not 1/1); n = 4.
    rows = {r["metric"]: r for r in suite_metrics(graded, BOOT)}
    assert (rows["pass_rate"]["value"], rows["pass_rate"]["n"]) == (0.25, 4)
    assert rows["run_pass_rate"]["value"] == 0.25  # 1 of 4 runs (one per task)
    assert [t["test_id"] for t in graded["tasks"]] == ["a", "b", "c", "d"]
    assert [t["status"] for t in graded["tasks"]] == ["passed", "failed", "failed", "failed"]
    assert graded["tasks"][1]["runs"][0]["error_msg"].startswith("missing from the results")


def test_a_task_repeated_beyond_the_trials_is_refused_naming_it(tmp_path):
    suite = four_task_suite(tmp_path / "suites")
    mine = _results(suite, tmp_path)
    user = tmp_path / "mine.json"
    write_json(user, {**mine, "tasks": [mine["tasks"][0]] * 6})
    with pytest.raises(ScievalsError, match=r"tasks\[1\] \('a'\): task 'a' is listed twice"):
        import_predictions(user, tmp_path / "suites", ["four"], tmp_path / "x.json")
    task = dict(mine["tasks"][0], runs=mine["tasks"][0]["runs"] * 6)
    write_json(user, {**mine, "tasks": [task, *mine["tasks"][1:]]})
    with pytest.raises(ScievalsError, match=r"6 runs of task 'a', more than the suite's 1 "):
        import_predictions(user, tmp_path / "suites", ["four"], tmp_path / "x.json")
    # Six trials allowed (the workflow's waza.trials): accepted, 6 runs filed.
    import_predictions(user, tmp_path / "suites", ["four"], tmp_path / "ok.json", trials=6)
    assert len(read_json(tmp_path / "ok.json")["suites"]["four"]["tasks"][0]["runs"]) == 6


@pytest.mark.parametrize("change, problem", [
    ('run["duration_ms"] = "abc"', "duration_ms: must be a finite number >= 0, not 'abc'"),
    ('run["duration_ms"] = 1e400', "duration_ms: must be a finite number >= 0, not inf"),
    ('run["run_number"] = "one"', "run_number: must be a positive integer, not 'one'"),
    ('run["session_digest"] = ["x"]', "session_digest: must be an object or null, not a list"),
    ('run["session_digest"] = {"tool_calls": [1]}', "session_digest.tool_calls: must be a list "
                                                    "of objects"),
    ('run["validations"] = {"g": {"score": "high", "passed": True}}',
     "validations.g.score: must be a finite number"),
    ('run["workspace_omitted"] = True', "workspace_omitted: must be a list, not true/false"),
    ('run["attempt_records"] = [{"duration_ms": -1}]',
     "attempt_records[0].duration_ms: must be a finite number >= 0, not -1"),
    # multi-turn runs (schemaVersion 1.x): the states the checkpoints grade
    ('run["checkpoint_states"] = {"after_turn": 1}',
     "checkpoint_states: must be a list of objects"),
    ('run["checkpoint_states"] = [{"after_turn": "2"}]',
     "checkpoint_states[0].after_turn: must be a positive integer, not '2'"),
    ('run["checkpoint_states"] = [{"after_turn": 1}, {"after_turn": 1}]',
     "checkpoint_states[1].after_turn: turn 1 is listed twice"),
    ('run["checkpoint_states"] = [{"after_turn": 1, "transcript": "hi"}]',
     "checkpoint_states[0].transcript: must be a list or null, not a string"),
    ('run["followup_error"] = 3', "followup_error: must be a string or null, not a number"),
])
def test_damaged_results_for_grade_name_task_and_run(tmp_path, capsys, change, problem):
    suite = four_task_suite(tmp_path / "suites")
    recorded = tmp_path / "r.json"
    main(["waza", "run", str(suite), "-o", str(recorded)])
    data = json.loads(recorded.read_text())
    run = data["tasks"][1]["runs"][0]
    exec(change)
    # json.dumps writes 1e400 (inf) as Infinity; a file may also hold the literal 1e400.
    recorded.write_text(json.dumps(data).replace("Infinity", "1e400"))
    capsys.readouterr()
    for argv in (["waza", "grade", str(suite), "--results", str(recorded)],
                 ["waza", "grade", "--recorded", str(recorded)]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        assert f"tasks[1] ('b') runs[0]: {problem}" in err


@pytest.mark.parametrize("text", ["a\\u0000b", "\\ud800"])
def test_nul_or_lone_surrogate_in_an_own_file_stops_the_import(tmp_path, text):
    suite = four_task_suite(tmp_path / "suites")
    mine = _results(suite, tmp_path)
    mine["tasks"][2]["runs"][0]["final_output"] = "PLACEHOLDER"
    user = tmp_path / "mine.json"
    user.write_text(json.dumps(mine).replace("PLACEHOLDER", text))
    with pytest.raises(ScievalsError, match=r"\['tasks'\]\[2\]\['runs'\]\[0\]"
                                            r"\['final_output'\]: text holds a (NUL|lone)"):
        import_predictions(user, tmp_path / "suites", ["four"], tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()
