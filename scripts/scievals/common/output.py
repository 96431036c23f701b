"""The output style every ``python -m scievals`` command that checks files shares.

Every line names the file it is about: ``<file>: valid`` for a valid file, else one
``<file>: INVALID: <problem>`` line per problem (``<file>:<line>: INVALID: ...`` where the
problem has a line number) (a problem about a file inside the checked
folder, such as one file of a waza suite, starts with that file's path instead), then one
``<file>: warning: ...`` line per warning; with ``--json`` one JSON object per file (``file``,
``valid``, ``problems``, ``warnings``, ``detail``). Exit code 0 valid, 1 invalid.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import textwrap
from collections.abc import Sequence

# The widest a wrapped line gets on a terminal, however wide the window: long lines are hard
# to read (issue 46 item 7 found 312-359 character notices and `logs` lines).
MAX_COLUMNS = 100


def wrap_width(stream=None) -> int | None:
    """Columns to wrap text for ``stream`` at (the terminal's, at most :data:`MAX_COLUMNS`),
    or None when it is no terminal: a log file or a pipe keeps one line per item (grep)."""
    stream = stream or sys.stdout
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):  # a closed or stand-in stream
        return None
    return max(40, min(shutil.get_terminal_size((MAX_COLUMNS, 24)).columns, MAX_COLUMNS) - 1)


def wrapped(text: str, width: int | None, indent: str = "", subsequent: str = "") -> str:
    """``text`` wrapped at ``width`` (as it is when None), words and paths never split."""
    if width is None:
        return indent + text
    return textwrap.fill(text, width, initial_indent=indent, subsequent_indent=subsequent,
                         break_long_words=False, break_on_hyphens=False)


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print the result as JSON instead of text")


def print_check(path: str, problems: Sequence[str], warnings: Sequence[str] = (), *,
                detail: str = "", why: str = "", as_json: bool = False, stream=None) -> int:
    """Print one file's check result; ``detail`` says more about a valid file, ``why`` what
    INVALID means for this command. Returns the exit code (0 valid, 1 invalid)."""
    stream = stream or sys.stdout
    valid = not problems
    if as_json:
        print(json.dumps({"file": str(path), "valid": valid, "problems": list(problems),
                          "warnings": list(warnings), "detail": detail}, ensure_ascii=False),
              file=stream)
    else:
        if valid:
            print(f"{path}: valid" + (f" ({detail})" if detail else ""), file=stream)
        head = f"{path}: INVALID" + (f" ({why})" if why else "") + ": "
        located = re.compile(re.escape(f"{path}:") + r"(\d+): ")
        for problem in map(str, problems):
            line = located.match(problem)
            if line:  # <file>:<line>: ..., as compilers write it
                problem = f"{path}:{line.group(1)}: " + head[len(f"{path}: "):] + \
                    problem[line.end():]
            elif problem.startswith(f"{path}: "):  # the file named twice: once is enough
                problem = head + problem[len(f"{path}: "):]
            elif not problem.startswith(str(path)):  # else a file inside it names itself
                problem = head + problem
            print(problem, file=stream)
        for warning in warnings:
            print(f"{path}: warning: {warning}", file=stream)
    return 0 if valid else 1
