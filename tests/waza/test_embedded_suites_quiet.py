"""The embedded suites load without a warning: a default run prints none from its own data
(the unknown-key warning itself is tested with a suite the test writes,
tests/waza/test_current_format.py)."""

from __future__ import annotations

import logging

from scievals.waza.data import demo_suites
from scievals.waza.suites import load_suite


def test_every_embedded_suite_loads_without_a_warning(caplog):
    suites = demo_suites()
    assert "csv-explainer" in suites and len(suites) >= 6
    with caplog.at_level(logging.WARNING):
        for name, path in suites.items():
            assert load_suite(path).warnings == [], name
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
