"""What names a kept run or import on the command line (no file of that name exists):
a run id as ``logs`` prints it or its first characters (at least the date's 8 digits),
``latest``, ``latest-full`` (``@latest-full``; ``@latest`` beside another run), or
``imported:<hex>``. Kept light (no reader imported): ``compare`` asks it of every pair of
arguments, result summaries included."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from scievals.interop.imported_store import IMPORTED_PREFIX

NAMED = {"latest", "latest-full", "@latest", "@latest-full"}
RUN_PREFIX = re.compile(r"\d{8}(T\d{0,6}(Z(-[0-9a-f]{0,6})?)?)?")


def is_ref(text: str) -> bool:
    """True when ``text`` names a kept run or import (and no file of that name exists)."""
    if Path(text).exists():
        return False
    if text in NAMED or text.startswith(IMPORTED_PREFIX):
        return True
    return bool(RUN_PREFIX.fullmatch(text))


def refers_to_kept(arguments: Sequence[str]) -> bool:
    """True when an argument names a kept run or import (``@latest`` alone stays the
    history's ref of result summaries, as before)."""
    return any(is_ref(a) and a != "@latest" for a in arguments)
