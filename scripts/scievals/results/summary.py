"""The merged summary: per-benchmark summaries -> ``results/summary.csv``, its history entry
and ``results/leaderboard.md``.

The full run merges every enabled benchmark's summary; a benchmark target refreshes the
same files from the summaries on disk (:func:`refresh`), so the merged view and ``show``
are current after any target, with the other benchmarks' rows as their last run left them.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path

from scievals.common.tables import concat_tables, write_result_table
from scievals.results.history import record_history
from scievals.results.show import write_leaderboard

log = logging.getLogger(__name__)

Paths = Sequence[str | os.PathLike]


def merge(parts: Paths, out: str | os.PathLike, history_dir: str | os.PathLike | None = None,
          leaderboard: str | os.PathLike | None = None) -> None:
    """Concatenate result tables into ``out`` (atomic); then record it in ``history_dir`` and
    write its leaderboard, when given."""
    write_result_table(out, concat_tables(parts))
    if history_dir:
        record_history(out, history_dir)
    if leaderboard:
        write_leaderboard(out, markdown_out=leaderboard)


def refresh(benchmark_summary: str | os.PathLike, summaries: Paths, summary: str | os.PathLike,
            leaderboard: str | os.PathLike, history_dir: str | os.PathLike,
            benchmark_leaderboard: str | os.PathLike) -> None:
    """After one benchmark's run: the merged summary from every enabled benchmark's summary
    that exists (``benchmark_summary`` among them), then that benchmark's own leaderboard."""
    present = [p for p in summaries if Path(p).is_file()]
    missing = [str(p) for p in summaries if not Path(p).is_file()]
    if missing:
        log.info("%s: left out (not run yet): %s", summary, ", ".join(missing))
    merge(present, summary, history_dir, leaderboard)
    write_leaderboard(benchmark_summary, markdown_out=benchmark_leaderboard)
