"""``python -m scievals show [BENCHMARK]`` and the leaderboard files the workflow writes."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import pandas as pd

from scievals.stats.comparisons import read_comparisons
from scievals.common.io import write_text
from scievals.common.tables import read_result_table
from scievals.results.leaderboard import (
    TOP_ROWS,
    _text_table,
    format_cell,
    headline_for,
    interval_note,
    leaderboard_fragment,
    leaderboard_html,
    leaderboard_markdown,
    leaderboard_records,
    leaderboard_text,
    sections,
)

DEFAULT_SUMMARY = "results/summary.csv"


FORMATS = ("table", "markdown", "csv", "json")


def register(sub: argparse._SubParsersAction) -> None:
    show = sub.add_parser(
        "show",
        help="leaderboard: models x headline metrics per benchmark, from results/summary.csv",
        description="Print the leaderboard of a result summary: per benchmark and dataset, "
        "models x headline metrics as value [95 % CI], with n and rank; demo data are "
        f"flagged. Each table shows its top {TOP_ROWS} rows unless --all; csv and json give "
        "the shown rows' raw values (one line per model and metric).",
    )
    show.add_argument("benchmark", nargs="*", help="benchmark(s) to show (default: all)")
    show.add_argument("--summary", default=DEFAULT_SUMMARY, help=f"default {DEFAULT_SUMMARY}")
    show.add_argument("--format", choices=FORMATS, default="table",
                      help="table: aligned columns for a terminal (default); markdown: the "
                      "text of results/leaderboard.md; csv, json: raw values")
    show.add_argument("--json", action="store_const", const="json", dest="format",
                      help="the same as --format json")
    show.add_argument("--all", action="store_true",
                      help=f"every row (default: the top {TOP_ROWS} of each table)")
    show.set_defaults(func=_show)


def _show(args: argparse.Namespace) -> int:
    summary = read_result_table(args.summary)
    pairs = load_comparisons(comparisons_beside(args.summary, summary))
    parts = sections(summary, args.benchmark, args.summary, pairs,
                     top=None if args.all else TOP_ROWS)
    if args.format == "markdown":
        print(leaderboard_markdown(parts, args.summary), end="")
    elif args.format == "table":
        width = shutil.get_terminal_size((100, 24)).columns
        print(leaderboard_text(parts, args.summary, width=max(width, 60)), end="")
    else:
        records = leaderboard_records(parts)
        if args.format == "csv":
            records.to_csv(sys.stdout, index=False, lineterminator="\n")
        else:
            print(records.to_json(orient="records", indent=1))
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
                      fragment_out: str | Path | None = None, comparisons=None,
                      bootstrap: dict | None = None) -> None:
    """Write the leaderboard of ``summary_path`` as Markdown, an HTML page and/or an HTML
    fragment for the report's first page (atomically; it ends with the intervals' methods,
    ``bootstrap`` the config's settings); ``comparisons`` (comparisons.csv paths) add the
    rank column and footers."""
    summary = read_result_table(summary_path)
    pairs = load_comparisons(comparisons if comparisons is not None
                             else comparisons_beside(summary_path, summary))
    parts = sections(summary, source=str(summary_path), comparisons=pairs)
    if markdown_out:
        write_text(markdown_out, leaderboard_markdown(parts, str(summary_path)))
    if html_out:
        write_text(html_out, leaderboard_html(parts, str(summary_path)))
    if fragment_out:
        write_text(fragment_out, leaderboard_fragment(parts, str(summary_path),
                                                      about=interval_note(summary, bootstrap)))


def read_summary(path: str | Path = DEFAULT_SUMMARY, benchmarks: list[str] | None = None,
                 models: list[str] | None = None) -> pd.DataFrame:
    """The result rows of a summary (checked: a file that is not one is one clear error),
    only of ``benchmarks`` and ``models`` when given; one row per (benchmark, dataset, model,
    condition, metric) with value, ci_low, ci_high, n and provenance (docs/results.md)."""
    summary = read_result_table(path)
    if benchmarks:
        summary = summary[summary["benchmark"].astype(str).isin(benchmarks)]
    if models:
        summary = summary[summary["model"].astype(str).isin(models)]
    return summary.reset_index(drop=True)


def run_results(summary: pd.DataFrame, source: str = DEFAULT_SUMMARY) -> str:
    """The table ``python -m scievals run`` prints last: per benchmark, one line per dataset
    (where it has several), model and condition of ``summary`` (:func:`read_summary`'s rows)
    with the benchmark's first headline metric as value [95 % CI] and n, best first ("" without
    rows). One block per benchmark keeps a smoke run's output short."""
    if summary.empty:
        return ""
    records = leaderboard_records(sections(summary, source=source, top=None))
    blocks = []
    for benchmark, rows in records.groupby("benchmark", sort=False):
        metric = headline_for(str(benchmark), rows).metrics[0]
        rows = rows[rows["metric"] == metric]
        if rows.empty:
            continue
        datasets = rows["dataset"].astype(str)
        table = pd.DataFrame({
            "dataset": datasets, "model": rows["model"].astype(str),
            "condition": rows["condition"].astype(str),
            metric: [format_cell(v, lo, hi) for v, lo, hi in
                     zip(rows["value"], rows["ci_low"], rows["ci_high"])],
            "n": [str(int(n)) if pd.notna(n) else "-" for n in rows["n"]]})
        title = str(benchmark)
        if datasets.nunique() == 1:  # the dataset in the title, not in every line
            table, title = table.drop(columns="dataset"), f"{benchmark} - {datasets.iloc[0]}"
        if not table["condition"].str.len().any():
            table = table.drop(columns="condition")
        blocks.append(f"{title}\n{_text_table(table, 'dataset', width=200)}")
    return "\n\n".join(blocks)
