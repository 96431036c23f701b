"""Refused names with hidden characters are printed escaped (issue 30, item 15).

A right-to-left override (U+202E) or a zero-width space (U+200B) in an own file's name was
refused, but the refusal line printed the name raw: the terminal reordered or hid what was
wrong. Every ScievalsError line now shows such characters as ``\\u202e``.
"""

from __future__ import annotations

import pytest
from scievals.common.errors import ScievalsError, visible
from scievals.common.workflow import byo_prediction_models


@pytest.mark.parametrize("hidden", ["\u202e", "\u200b", "\u2066", "\ufeff", "\u2028", "\x1b"])
def test_an_own_file_name_with_a_hidden_character_is_printed_escaped(tmp_path, hidden):
    folder = tmp_path / "predictions"
    folder.mkdir()
    (folder / f"my{hidden}model.jsonl").write_text("{}\n")
    with pytest.raises(ScievalsError) as exc:
        byo_prediction_models(str(folder), ".jsonl", [])
    line = exc.value.one_line()
    assert hidden not in line
    assert f"my\\u{ord(hidden):04x}model.jsonl: file name is not a valid model name" in line


def test_visible_keeps_letters_tabs_and_newlines_and_escapes_beyond_the_bmp():
    # é and ß are letters (categories Ll), tab and newline are kept; U+E0001 (LANGUAGE TAG,
    # category Cf) is beyond U+FFFF, so it takes the 8-digit escape
    assert visible("é ß\tx\ny") == "é ß\tx\ny"
    assert visible("a\U000e0001b") == "a\\U000e0001b"
    assert visible("plain ascii") == "plain ascii"
