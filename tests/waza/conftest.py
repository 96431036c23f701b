"""Fixtures of the waza tests."""

import pytest
from scievals.waza.predict import run_suite
from scievals.waza.runs import regrade


def _run_and_grade(suite, model, *, seed=0, options=None, skip_graders=False, **run_options):
    """Run a suite and grade its recorded runs, as ``waza run`` does."""
    recorded = run_suite(suite, model, options=options, **run_options)
    return regrade(suite, recorded, seed=seed, options=options, skip_graders=skip_graders)


@pytest.fixture
def run_and_grade():
    return _run_and_grade


def four_task_suite(parent):
    """A suite ``<parent>/four`` of four tasks; the mock answers "Mock response for: alpha"
    (each task's prompt), so only task a (whose grader wants "alpha") passes; b, c, d want
    "zzz" and fail."""
    suite = parent / "four"
    (suite / "tasks").mkdir(parents=True)
    (suite / "eval.yaml").write_text("name: four\nskill: s\ntasks: ['tasks/*.yaml']\n")
    for task_id, word in (("a", "alpha"), ("b", "zzz"), ("c", "zzz"), ("d", "zzz")):
        (suite / "tasks" / f"{task_id}.yaml").write_text(
            f"id: {task_id}\nname: {task_id}\ninputs: {{prompt: alpha}}\n"
            f"graders: [{{type: text, name: want, config: {{contains: [{word}]}}}}]\n")
    return suite
