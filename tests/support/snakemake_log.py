"""The complete Snakemake log of a run, for tests that ask which jobs a real run ran: the
terminal leaves the jobs' rule blocks out (scievals.common.run_terminal), the log keeps them."""

from __future__ import annotations

import re
from pathlib import Path


def complete_log(output: str) -> str:
    """The log named by the run's "Complete log(s): PATH" line (its stdout + stderr)."""
    path = re.search(r"^Complete log\(s\): (\S+)$", output, re.MULTILINE)
    assert path, f"no 'Complete log(s)' line in:\n{output[-3000:]}"
    return Path(path.group(1)).read_text()
