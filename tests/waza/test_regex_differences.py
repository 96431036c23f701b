"""The RE2-vs-Python differences docs/waza.md lists (issue 19 item 17), checked against
both engines: (pattern, text, RE2 matches, Python re matches)."""

from __future__ import annotations

import re
import warnings

import pytest
from scievals.waza.graders.sandbox.regex import search

ROWS = [
    ("[[:digit:]]", "5", True, False),
    ("[[:digit:]]", "d]", False, True),
    ("a{,3}", "b", False, True),
    ("a{,3}", "", False, True),
    ("a{,3}", "xa{,3}", True, True),
    (r"\d", "\u0663", False, True),  # ARABIC-INDIC DIGIT THREE
    (r"\d", "\uff15", False, True),  # FULLWIDTH DIGIT FIVE
    (r"\d", "7", True, True),
    ("done$", "done\n", False, True),
    ("done$", "done", True, True),
]


@pytest.mark.parametrize("pattern, text, in_re2, in_python", ROWS)
def test_documented_engine_differences(pattern, text, in_re2, in_python):
    assert search(pattern, text) is in_re2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # "Possible nested set"
        assert (re.search(pattern, text) is not None) is in_python
