"""``python -m scievals show [BENCHMARK]`` and the leaderboard files the workflow writes."""

from __future__ import annotations

import argparse
from pathlib import Path

from scievals.common.io import write_text
from scievals.common.tables import read_result_table
from scievals.results.leaderboard import (
    leaderboard_fragment,
    leaderboard_html,
    leaderboard_markdown,
    sections,
)

DEFAULT_SUMMARY = "results/summary.csv"


def register(sub: argparse._SubParsersAction) -> None:
    show = sub.add_parser(
        "show",
        help="leaderboard: models x headline metrics per benchmark, from results/summary.csv",
        description="Print the leaderboard of a result summary (the same text the workflow "
        "writes to results/leaderboard.md): per benchmark and dataset, models x headline "
        "metrics as value [95 % CI], with n; demo data are flagged.",
    )
    show.add_argument("benchmark", nargs="*", help="benchmark(s) to show (default: all)")
    show.add_argument("--summary", default=DEFAULT_SUMMARY, help=f"default {DEFAULT_SUMMARY}")
    show.set_defaults(func=_show)


def _show(args: argparse.Namespace) -> int:
    summary = read_result_table(args.summary)
    print(leaderboard_markdown(sections(summary, args.benchmark, args.summary), args.summary),
          end="")
    return 0


def write_leaderboard(summary_path: str | Path, markdown_out: str | Path | None = None,
                      html_out: str | Path | None = None,
                      fragment_out: str | Path | None = None) -> None:
    """Write the leaderboard of ``summary_path`` as Markdown, an HTML page and/or an HTML
    fragment for the report's first page (atomically)."""
    parts = sections(read_result_table(summary_path), source=str(summary_path))
    if markdown_out:
        write_text(markdown_out, leaderboard_markdown(parts, str(summary_path)))
    if html_out:
        write_text(html_out, leaderboard_html(parts, str(summary_path)))
    if fragment_out:
        write_text(fragment_out, leaderboard_fragment(parts, str(summary_path)))
