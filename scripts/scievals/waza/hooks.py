"""Suite hooks of schemaVersion 1.x suites: ``before_run``, ``after_run``, ``before_task``,
``after_task`` (specs/waza-current.md §2.6).

Each hook is ``{command, working_directory?, exit_codes = [0], error_on_fail = false}``.
As in waza the command is split on whitespace and run without a shell (no quoting,
pipes or ``&&``: put shell logic in a script). Unlike waza, which runs it in the
process's working directory, it runs in the suite folder (``working_directory`` is
relative to it and must stay inside it), so a suite behaves the same wherever it is
run from. Every hook runs through :func:`scievals.common.subprocess_limits.run_limited`:
a time limit (:data:`HOOK_TIMEOUT_S`), its own process group killed as a whole, the
scrubbed environment graders get (no API key), capped output. What a hook prints is
redacted (:func:`scievals.waza.redact.secret_values`) before it is logged or quoted.

A hook fails on an exit code outside ``exit_codes``, a timeout, or when it cannot start.
With ``error_on_fail: true`` that is an error of its point (what the caller then does is
the point's semantics: see :func:`run_point`); otherwise a warning and the run goes on.
"""

from __future__ import annotations

import logging
import stat
from collections.abc import Mapping
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.common.subprocess_limits import run_limited, scrubbed_env
from scievals.waza.format_v1 import inside
from scievals.waza.redact import redact, secret_values

log = logging.getLogger(__name__)

POINTS = ("before_run", "after_run", "before_task", "after_task")
HOOK_TIMEOUT_S = 300.0  # per hook command


def _run_one(hook: Mapping, suite_dir: Path, where: str) -> str:
    """"" when the hook succeeded, else why it failed."""
    argv = str(hook["command"]).split()
    cwd = (inside(suite_dir, hook["working_directory"], where, "working_directory")
           if hook.get("working_directory") else suite_dir)
    special = next((w for w in argv if _is_special(cwd / w)), None)
    if special is not None:  # a pipe would block the hook (and the run) until its limit
        return (f"{special!r} is not a regular file (a named pipe, socket or device): "
                "refused")
    try:
        finished = run_limited(argv, cwd=cwd, timeout_s=HOOK_TIMEOUT_S, env=scrubbed_env(cwd),
                               merge_stderr=True)
    except OSError as exc:
        return f"could not start {argv[0]!r}: {exc.strerror or exc}"
    # redacted before it is logged or quoted: a hook may print a key it read from a file
    output = redact(finished.stdout.decode("utf-8", "replace").strip(), secret_values())
    if output:
        log.debug("%s: %s", where, output)
    if finished.timed_out:
        return f"timed out after {HOOK_TIMEOUT_S:g} s"
    allowed = list(hook.get("exit_codes") or [0])
    if finished.returncode not in allowed:
        tail = f": {output[-300:]}" if output else ""
        return f"exit code {finished.returncode} (allowed {allowed}){tail}"
    return ""


def _is_special(path: Path) -> bool:
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):  # not a path: a plain argument
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def run_point(hooks: Mapping[str, list], point: str, suite_dir: Path, where: str) -> str:
    """Run every hook of ``point`` in order; return the first ``error_on_fail`` failure
    (the others are logged as warnings). Per point, the caller then: ``before_run`` aborts
    the run, ``before_task`` fails the task without running it, ``after_run`` and
    ``after_task`` only warn."""
    for index, hook in enumerate(hooks.get(point) or []):
        here = redact(f"{where}: hooks.{point}[{index}] ({hook['command']})", secret_values())
        try:
            problem = _run_one(hook, suite_dir, here)
        except ScievalsError as exc:  # a working_directory outside the suite
            problem = exc.one_line()
        if not problem:
            continue
        if hook.get("error_on_fail"):
            return f"{here}: {problem}"
        log.warning("[WARN] %s: %s", here, problem)
    return ""
