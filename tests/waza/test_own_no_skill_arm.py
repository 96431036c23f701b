"""The no-skill arm of an own results file (``baseline_tasks``) is held to the rules of the
with-skill tasks (issue 30, item 7): on main a repeated task was accepted (pass rate 0.833
where the honest file gets 0.75, exit 0), a damaged run there was a ValueError traceback
in waza_score, and missing or unknown tasks were found only at score."""

from __future__ import annotations

import copy

import pytest
from scievals.common.errors import ScievalsError
from scievals.common.io import read_json, write_json
from scievals.waza.predict import import_predictions, run_suite
from scievals.waza.runs import regrade
from scievals.waza.score import recorded_of
from scievals.waza.suites import load_suite

from .conftest import four_task_suite


def _own_file(tmp_path, arm_edit) -> tuple:
    suite = four_task_suite(tmp_path / "suites")
    recorded = run_suite(load_suite(suite), "waza_mock")  # what our predict stage records
    recorded["baseline_tasks"] = arm_edit(copy.deepcopy(recorded["tasks"]))
    user = tmp_path / "mine.json"
    write_json(user, recorded)
    return suite, user


def _import(tmp_path, user):
    return import_predictions(user, tmp_path / "suites", ["four"], tmp_path / "imported.json")


def test_honest_arm_grades_to_one_in_four(tmp_path):
    suite, user = _own_file(tmp_path, lambda tasks: tasks)
    filed = _import(tmp_path, user)["four"]
    arm = regrade(load_suite(suite), filed)["baseline_outcome"]
    assert arm["summary"]["success_rate"] == 0.25  # a passes, b c d fail: 1/4


def test_repeated_task_in_the_arm_is_refused_at_import(tmp_path):
    # a repeated passing task would make the arm 2 of 5 = 0.4 instead of 1/4
    _, user = _own_file(tmp_path, lambda tasks: tasks + [tasks[0]])
    with pytest.raises(ScievalsError, match=r"baseline_tasks\[4\] \('a'\): task 'a' is "
                       r"listed twice"):
        _import(tmp_path, user)


def test_unknown_task_in_the_arm_is_refused_at_import(tmp_path):
    def rename(tasks):
        tasks[1]["test_id"] = "zz"
        return tasks
    _, user = _own_file(tmp_path, rename)
    with pytest.raises(ScievalsError, match=r"baseline_tasks\[1\] \('zz'\): no such task"):
        _import(tmp_path, user)


def test_missing_task_in_the_arm_is_filed_as_failed_with_a_notice(tmp_path, caplog):
    suite, user = _own_file(tmp_path, lambda tasks: tasks[:1])  # only the passing task
    with caplog.at_level("WARNING"):
        filed = _import(tmp_path, user)["four"]
    assert "four (no-skill arm, baseline_tasks): task(s) b, c, d missing" in caplog.text
    arm = regrade(load_suite(suite), filed)["baseline_outcome"]
    assert arm["summary"]["success_rate"] == 0.25  # 1 of the suite's 4, not 1 of 1


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("duration_ms", "abc", "duration_ms: must be a finite number >= 0, not 'abc'"),
    ("run_number", "one", "run_number: must be a positive integer, not 'one'"),
    ("session_digest", [1], "session_digest: must be an object or null, not a list"),
])
def test_damaged_run_in_the_arm_is_one_line_at_import_and_score(tmp_path, field, value,
                                                                 problem):
    def damage(tasks):
        tasks[2]["runs"][0][field] = value
        return tasks
    _, user = _own_file(tmp_path, damage)
    expected = rf"baseline_tasks\[2\] \('c'\) runs\[0\]: {problem}"
    with pytest.raises(ScievalsError, match=expected):
        _import(tmp_path, user)
    # the score stage reads recorded files through the same check (no ValueError there)
    bad = read_json(user)
    write_json(tmp_path / "recorded.json", {"suites": {"four": bad}})
    with pytest.raises(ScievalsError, match=r"baseline_tasks\[2\]"):
        recorded_of((tmp_path / "recorded.json",))


def test_arm_that_is_not_a_list_is_one_line(tmp_path):
    _, user = _own_file(tmp_path, lambda tasks: {"a": tasks})
    with pytest.raises(ScievalsError, match=r"mine.json: baseline_tasks: must be a list"):
        _import(tmp_path, user)
