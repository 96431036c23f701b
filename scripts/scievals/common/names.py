"""The known name a mistyped one was probably meant to be ("did you mean ...?").

Own prediction files are matched by exact column and key names; a near miss (``HIC_score``,
``id`` for ``case_id``, ``Gen`` for ``Gene``) would otherwise be dropped without a word, so
the error that refuses it names the likely intended name.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

_WORD = re.compile(r"[^a-z0-9]+")


def _words(name: str) -> set[str]:
    return set(_WORD.split(name.lower())) - {""}


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """The choice ``name`` most likely meant, or '' when none is close.

    In order: the same name up to case and surrounding spaces; a choice whose words all
    appear in ``name`` or that holds all of ``name``'s words (``HIC_score`` -> ``HIC``,
    ``id`` -> ``case_id``); else difflib's closest match (similarity 0.6 or more).
    """
    choices = list(choices)
    low = name.strip().lower()
    for choice in choices:
        if choice.lower() == low:
            return choice
    words = _words(name)
    for choice in choices:
        theirs = _words(choice)
        if words and theirs and (theirs <= words or words <= theirs):
            return choice
    lowered = [c.lower() for c in choices]
    close = difflib.get_close_matches(low, lowered, n=1, cutoff=0.6)
    return choices[lowered.index(close[0])] if close else ""


def named_with_hints(names: Iterable[str], choices: Iterable[str]) -> list[str]:
    """``'x'`` or ``'x' (did you mean 'y'?)`` for each name."""
    choices = list(choices)
    out = []
    for name in names:
        hint = did_you_mean(str(name), choices)
        out.append(f"{str(name)!r} (did you mean {hint!r}?)" if hint else repr(str(name)))
    return out
