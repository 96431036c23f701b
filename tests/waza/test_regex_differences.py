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
    # issue 30: word characters, boundaries and spaces are ASCII in RE2, Unicode in re
    (r"^\w+$", "caf\u00e9", False, True),
    (r"^\w+$", "x_1", True, True),
    (r"\W", "\u00e9", True, False),
    (r"\bcaf\b", "caf\u00e9", True, False),  # é is not a word character in RE2
    ("\\B\u00e9", "caf\u00e9", False, True),
    (r"a\sb", "a\u00a0b", False, True),  # NO-BREAK SPACE
    (r"a\sb", "a\u2003b", False, True),  # EM SPACE
    (r"a\sb", "a\x0bb", False, True),  # vertical tab: not in RE2's \s
    (r"a\sb", "a\tb", True, True),
    # and (?i) folds dotted capital I only in re
    ("(?i)i", "\u0130", False, True),
    ("(?i)\u0130", "i", False, True),
    ("(?i)istanbul", "\u0130STANBUL", False, True),
    ("(?i)k", "\u212a", True, True),  # KELVIN SIGN folds to k in both
]


@pytest.mark.parametrize("pattern, text, in_re2, in_python", ROWS)
def test_documented_engine_differences(pattern, text, in_re2, in_python):
    assert search(pattern, text) is in_re2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # "Possible nested set"
        assert (re.search(pattern, text) is not None) is in_python
