"""User-facing errors.

Every problem caused by input (a file, a config key, a model reply) is raised as
:class:`ScievalsError`, which names where the problem is and how to fix it. The
CLI and the Snakemake entry points print it as one line and exit non-zero,
instead of a traceback.
"""

from __future__ import annotations

import errno
import os
import unicodedata
from collections.abc import Iterable

# Characters a terminal does not show as themselves: format characters (right-to-left
# overrides, zero-width spaces and joiners, the BOM), line and paragraph separators, lone
# surrogates and control characters other than tab and newline. A refused name holding one
# is printed with it escaped (\u202e), so the line shows what is wrong, not a reordered
# or invisible name.
_HIDDEN_CATEGORIES = {"Cf", "Zl", "Zp", "Cs", "Cc"}


def visible(text: str, keep: str = "\t\n") -> str:
    """``text`` with every hidden character (see above) but those in ``keep`` as a
    ``\\uXXXX`` escape (``keep=""``: a name, which must stay on one line, escapes them too)."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(_escaped(c) if c not in keep and unicodedata.category(c)
                   in _HIDDEN_CATEGORIES else c for c in text)


# A listing of names from a file (unknown keys, ids) stays readable however many there are.
LISTED_NAMES = 5
LISTED_NAME_CHARS = 80


def listed(names: Iterable[object], limit: int = LISTED_NAMES) -> str:
    """At most ``limit`` of ``names``, comma-separated, each on one line with its hidden
    characters escaped and cut to :data:`LISTED_NAME_CHARS`, then how many more there are."""
    names = [str(n) for n in names]
    shown = []
    for name in names[:limit]:
        cut = name[:LISTED_NAME_CHARS] + ("..." if len(name) > LISTED_NAME_CHARS else "")
        shown.append(visible(cut, keep=""))
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" and {more:,} more" if more > 0 else "")


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


class ScievalsError(Exception):
    """An input problem the user can fix.

    ``where`` names the file (and row/key when known), ``problem`` what is wrong
    and ``fix`` what to do about it.
    """

    def __init__(self, where: str, problem: str, fix: str = "") -> None:
        self.where = str(where)
        self.problem = problem
        self.fix = fix
        super().__init__(self.one_line())

    def one_line(self) -> str:
        text = f"{self.where}: {self.problem}"
        if self.fix:
            text += f" ({self.fix})"
        return visible(text)

    def naming(self, path: str, instead: str) -> ScievalsError:
        """The same error with ``path`` in ``where`` replaced by ``instead`` (a job that works
        on a copy of the user's file names the user's file)."""
        return ScievalsError(self.where.replace(str(path), str(instead)), self.problem, self.fix)


def pydantic_error(exc, where: str, fix: str = "") -> ScievalsError:
    """A pydantic ValidationError as the same one line a schema violation gives."""
    first = exc.errors()[0]
    key = ".".join(str(p) for p in first["loc"])
    return ScievalsError(f"{where}.{key}" if key else where, first["msg"], fix)


# OSErrors that say something about the machine, not a bug: each becomes one line.
_MACHINE_ERRORS = {
    errno.ENOSPC: "free disk space (or point the output elsewhere), then re-run",
    errno.EDQUOT: "free space within your disk quota, then re-run",
    errno.EROFS: "the file system is read-only: run where you may write",
    errno.EACCES: "check the permissions of the file and its folder",
    errno.EPERM: "check the permissions of the file and its folder",
    errno.EMFILE: "raise the open-file limit (ulimit -n), then re-run",
}


# Errors of the side that writes: with two file names (a copy), they concern the second.
_WRITE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS}


def machine_error(exc: BaseException) -> ScievalsError | None:
    """A full disk, a read-only or forbidden path, too many open files as one
    :class:`ScievalsError` naming the file; None for any other exception (a real bug keeps
    its traceback)."""
    if not isinstance(exc, OSError) or exc.errno not in _MACHINE_ERRORS:
        return None
    problem = os.strerror(exc.errno).lower()
    if exc.errno in _WRITE_ERRORS and exc.filename2 is not None:
        # a copy that failed writing (shutil.copyfile names the source first): the
        # destination is what is full or read-only, the source is intact
        where, problem = exc.filename2, f"{problem}, writing a copy of {exc.filename}"
    else:
        where = exc.filename if exc.filename is not None else "output"
    return ScievalsError(where, problem, _MACHINE_ERRORS[exc.errno])
