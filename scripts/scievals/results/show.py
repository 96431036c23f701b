"""``python -m scievals show [BENCHMARK]`` and the leaderboard files the workflow writes."""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from scievals.common.comparisons import read_comparisons
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
    pairs = load_comparisons(comparisons_beside(args.summary, summary))
    print(leaderboard_markdown(sections(summary, args.benchmark, args.summary, pairs),
                               args.summary), end="")
    return 0


def comparisons_beside(summary_path: str | Path, summary) -> list[Path]:
    """``<dir>/<benchmark>/comparisons.csv`` of every benchmark of a summary in ``<dir>``
    (the workflow's layout), where they exist: a history snapshot has none."""
    root = Path(summary_path).parent
    names = dict.fromkeys(str(b) for b in summary["benchmark"])
    return [root / b / "comparisons.csv" for b in names if (root / b / "comparisons.csv").is_file()]


def load_comparisons(paths) -> pd.DataFrame | None:
    """The rows of every comparisons.csv in ``paths`` (None without any: no ranks)."""
    frames = [f for f in (read_comparisons(p) for p in paths) if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else None


def write_leaderboard(summary_path: str | Path, markdown_out: str | Path | None = None,
                      html_out: str | Path | None = None,
                      fragment_out: str | Path | None = None, comparisons=None) -> None:
    """Write the leaderboard of ``summary_path`` as Markdown, an HTML page and/or an HTML
    fragment for the report's first page (atomically); ``comparisons`` (comparisons.csv
    paths) add the rank column and footers."""
    summary = read_result_table(summary_path)
    pairs = load_comparisons(comparisons if comparisons is not None
                             else comparisons_beside(summary_path, summary))
    parts = sections(summary, source=str(summary_path), comparisons=pairs)
    if markdown_out:
        write_text(markdown_out, leaderboard_markdown(parts, str(summary_path)))
    if html_out:
        write_text(html_out, leaderboard_html(parts, str(summary_path)))
    if fragment_out:
        write_text(fragment_out, leaderboard_fragment(parts, str(summary_path)))
