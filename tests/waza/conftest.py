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
