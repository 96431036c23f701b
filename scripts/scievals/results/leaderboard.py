"""Leaderboard: the headline view of ``results/summary.csv``, one table per benchmark.

Rows are models (and conditions, where a benchmark has several), columns the benchmark's
headline metrics (``headline_metrics`` of its entry in ``scievals.benchmarks``) as
``value [ci_low, ci_high]``, plus ``n``; with the benchmark's ``comparisons.csv`` a ``rank``
column (ties written ``1=``, :func:`scievals.common.comparisons.significance_tiers`) and a footer
with the smallest difference the item count can detect. The heading of each table names
the dataset and flags demo data, so demo numbers are never read as real ones. Pure: a
result DataFrame in, Markdown text out. ``python -m scievals show``, the workflow's
``results/leaderboard.md`` and the HTML report all use :func:`leaderboard_markdown`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

import pandas as pd

from scievals import benchmarks
from scievals.common.comparisons import (
    arm_labels,
    mdd_footer,
    ranking_pairs,
    significance_tiers,
)
from scievals.common.errors import ScievalsError


@dataclass(frozen=True)
class Headline:
    metrics: tuple[str, ...]  # columns, in order; the first one ranks the models
    condition: str | None = None  # only rows of this condition (None: every condition)


def is_demo(dataset: str) -> bool:
    """Embedded demo data carry "demo" in their dataset label (e.g. GDPa1-demo)."""
    return "demo" in dataset.lower()


def headline_for(benchmark: str, frame: pd.DataFrame) -> Headline:
    """The registry's headline of ``benchmark``; every metric it reports when the benchmark
    is not registered (a summary from another scievals version)."""
    if benchmark in benchmarks.NAMES:
        bench = benchmarks.get(benchmark)
        return Headline(bench.headline_metrics, bench.headline_condition)
    return Headline(tuple(dict.fromkeys(frame["metric"])))


def format_cell(value: float, low: float, high: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    text = f"{value:.3f}"
    if not (pd.isna(low) or pd.isna(high)):
        text += f" [{low:.3f}, {high:.3f}]"
    return text


def format_n(values: pd.Series) -> str:
    numbers = sorted({int(v) for v in values.dropna()})
    if not numbers:
        return "-"
    return str(numbers[0]) if len(numbers) == 1 else f"{numbers[0]}-{numbers[-1]}"


def headline_rows(frame: pd.DataFrame, headline: Headline) -> pd.DataFrame:
    """The summary rows a leaderboard shows: headline metrics (of the headline condition)."""
    rows = frame[frame["metric"].isin(headline.metrics)]
    if headline.condition is not None:
        rows = rows[rows["condition"] == headline.condition]
    return rows


def row_keys(rows: pd.DataFrame) -> list[str]:
    """What names a leaderboard row: the model, and the condition where there are several."""
    return ["model"] if rows["condition"].nunique() <= 1 else ["model", "condition"]


def metric_cells(group: pd.DataFrame, metrics: list[str]) -> dict:
    """One row's metric columns: ``value [ci]`` text, plus the raw value as ``_<metric>``
    (for ordering)."""
    by_metric = group.set_index("metric")
    cells: dict = {}
    for metric in metrics:
        if metric in by_metric.index:
            r = by_metric.loc[metric]
            cells[metric] = format_cell(r["value"], r["ci_low"], r["ci_high"])
            cells[f"_{metric}"] = r["value"]
        else:
            cells[metric], cells[f"_{metric}"] = "-", math.nan
    return cells


def leaderboard_row(keys: list[str], key: tuple, group: pd.DataFrame, metrics: list[str]) -> dict:
    """One model (x condition): its name columns, metric cells and n."""
    return {**dict(zip(keys, key)), **metric_cells(group, metrics), "n": format_n(group["n"])}


def best_first(table: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    """Rows ordered by the first metric's value, best first (missing last, ties kept)."""
    if not metrics:
        return table
    return table.sort_values(f"_{metrics[0]}", ascending=False, na_position="last", kind="stable")


def benchmark_table(frame: pd.DataFrame, headline: Headline) -> pd.DataFrame:
    """One dataset of one benchmark -> model (x condition) by headline metric, best first."""
    rows = headline_rows(frame, headline)
    keys = row_keys(rows)
    metrics = [m for m in headline.metrics if m in set(rows["metric"])]
    out = []
    for key, group in rows.groupby(keys, sort=False):
        out.append(leaderboard_row(keys, key if isinstance(key, tuple) else (key,), group, metrics))
    table = pd.DataFrame(out, columns=keys + metrics + ["n"] + [f"_{m}" for m in metrics])
    return best_first(table, metrics)[keys + metrics + ["n"]].reset_index(drop=True)


# Cost and failure columns (plain values, no interval), where a benchmark has them: metric ->
# (column, how rows of several conditions combine, format).
QUALITY_COLUMNS = {
    "parse_success_rate": ("parsed", "mean", "{:.3f}"),
    "failed_requests": ("failed requests", "sum", "{:.0f}"),
    "tokens_in": ("tokens in", "sum", "{:,.0f}"),
    "tokens_out": ("tokens out", "sum", "{:,.0f}"),
    "cost_usd": ("cost USD", "sum", "{:.4f}"),
    "latency_mean_s": ("mean latency s", "mean", "{:.2f}"),
}


def _combine(values: pd.Series, weights: pd.Series, how: str) -> float:
    values, weights = values.astype(float), weights.astype(float).fillna(0)
    ok = values.notna()
    if not ok.any():
        return math.nan
    if how == "sum":
        return float(values[ok].sum())
    if weights[ok].sum() > 0:  # a rate over n items (requests): weighted by n
        return float((values[ok] * weights[ok]).sum() / weights[ok].sum())
    return float(values[ok].mean())


def quality_columns(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per table row (``keys``): cost, tokens, mean latency, parse-success and failed-request
    figures of the rows' model over every condition the row covers; only the columns some
    model has."""
    rows = frame[frame["metric"].isin(QUALITY_COLUMNS)]
    present = [m for m in QUALITY_COLUMNS if m in set(rows["metric"])]
    if not present or rows.empty:
        return pd.DataFrame(columns=keys)
    out = []
    for key, group in rows.groupby(keys, sort=False):
        line = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        for metric in present:
            column, how, fmt = QUALITY_COLUMNS[metric]
            part = group[group["metric"] == metric]
            value = _combine(part["value"], part["n"], how)
            line[column] = "-" if math.isnan(value) else fmt.format(value)
        out.append(line)
    return pd.DataFrame(out)


def with_quality(table: pd.DataFrame, frame: pd.DataFrame) -> pd.DataFrame:
    """``table`` (headline) with the quality columns of ``frame`` (all rows of the dataset)
    joined on its key columns; rows without them show "-"."""
    keys = [k for k in ("model", "condition") if k in table.columns]
    if table.empty:
        return table
    extra = quality_columns(frame, keys)
    if len(extra.columns) == len(keys):
        return table
    return table.merge(extra, on=keys, how="left").fillna("-")


def markdown_table(table: pd.DataFrame) -> str:
    header = "| " + " | ".join(table.columns) + " |"
    rule = "| " + " | ".join("---" for _ in table.columns) + " |"
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in table.itertuples(index=False)]
    return "\n".join([header, rule, *body])


@dataclass(frozen=True)
class Section:
    benchmark: str
    dataset: str
    sha256: str
    condition: str | None
    table: pd.DataFrame
    footer: str | None = None
    # the ranking metric's paired comparisons, shown by the HTML report under the table
    pairs: pd.DataFrame | None = None
    n_meaning: str = "scored items"

    @property
    def demo(self) -> bool:
        return is_demo(self.dataset)


INTRO = ("value [95 % CI]; n = scored items (each table says which); best first by the "
         "first column; rank: shared (1=) where paired differences are not significant after "
         "Holm correction (docs/statistics.md); parsed, failed requests, tokens, cost and mean "
         "latency summed or averaged over the model's conditions, where the benchmark has "
         "them.")


def n_meaning(benchmark: str) -> str:
    """What ``n`` counts in a benchmark's rows (registry ``n_meaning``)."""
    if benchmark in benchmarks.NAMES:
        return benchmarks.get(benchmark).n_meaning
    return "scored items"
DEMO_NOTE = ("DEMO DATA: embedded synthetic/demo data, not the real dataset; these numbers "
             "say nothing about the models on real data.")


def sections(summary: pd.DataFrame, benchmarks: list[str] | None = None,
             source: str = "results/summary.csv",
             comparisons: pd.DataFrame | None = None) -> list[Section]:
    """One leaderboard section per (benchmark, dataset) of ``summary`` (a checked result
    table, see ``scievals.common.tables.read_result_table``); ``comparisons`` (the rows of
    the benchmarks' comparisons.csv) adds ranks and footers."""
    present = list(dict.fromkeys(summary["benchmark"].astype(str)))
    wanted = benchmarks or present
    unknown = [b for b in wanted if b not in present]
    if unknown:
        raise ScievalsError(source, f"no results for benchmark {', '.join(unknown)}",
                            f"pick one of: {', '.join(present) or '(none)'}")
    out = []
    for benchmark in wanted:
        rows = summary[summary["benchmark"].astype(str) == benchmark]
        headline = headline_for(benchmark, rows)
        for (dataset, sha256), group in rows.groupby(["dataset", "dataset_sha256"], sort=False):
            table, footer, pairs = benchmark_table(group, headline), None, None
            if comparisons is not None:
                pairs = comparisons[(comparisons["benchmark"] == benchmark)
                                    & (comparisons["dataset"] == str(dataset))]
                table, footer = ranked(table, group, headline, pairs, _item_noun(benchmark))
                pairs = comparison_rows(pairs, table, headline)
            out.append(Section(benchmark, str(dataset), str(sha256), headline.condition,
                               with_quality(table, group), footer, pairs,
                               n_meaning=n_meaning(benchmark)))
    return out


def _item_noun(benchmark: str) -> str:
    return benchmarks.get(benchmark).item_noun if benchmark in benchmarks.NAMES else "items"


def ranked(table: pd.DataFrame, rows: pd.DataFrame, headline: Headline, pairs: pd.DataFrame,
           item_noun: str) -> tuple[pd.DataFrame, str | None]:
    """``table`` with a first ``rank`` column from the ranking metric's (the first headline
    metric present) paired comparisons (:func:`~scievals.common.comparisons.significance_tiers`:
    an arm is ranked above another only when it is significantly better), ordered by rank
    then value, and the footer lines. Arms without a value are not ranked ("-", listed last,
    named in the footer). Unchanged (no footer) when that metric has no comparisons (e.g. a
    single model)."""
    rows = rows[rows["metric"].isin(headline.metrics)]
    if headline.condition is not None:
        rows = rows[rows["condition"] == headline.condition]
    present = [m for m in headline.metrics if m in set(rows["metric"])]
    if not present or table.empty:
        return table, None
    metric = present[0]
    keys = [c for c in ("model", "condition") if c in table.columns]
    labels = arm_labels(table.assign(condition=table["condition"]) if "condition" in keys
                        else table.assign(condition=""))
    metric_pairs = ranking_pairs(pairs, metric, labels)
    if metric_pairs.empty:
        return table, None
    rows = rows[rows["metric"] == metric]
    values = dict(zip(arm_labels(rows), rows["value"].astype(float)))
    ranks = significance_tiers({label: values.get(label, math.nan) for label in labels},
                               metric_pairs)
    out = table.copy()
    out.insert(0, "rank", [ranks.get(label, "-") for label in labels])
    order = sorted(range(len(out)), key=lambda i: (_rank_number(out["rank"].iloc[i]),
                                                   -_or_inf(values.get(labels.iloc[i]))))
    footer = mdd_footer(metric_pairs, metric, item_noun)
    unranked = [label for label in labels if ranks.get(label, "-") == "-"]
    if unranked:
        note = f"Not ranked (no {metric} value): {', '.join(unranked)}."
        footer = f"{footer} {note}" if footer else note
    return out.iloc[order].reset_index(drop=True), footer


def _or_inf(value) -> float:
    """A value to sort by, best first: undefined values last."""
    return -math.inf if value is None or not math.isfinite(float(value)) else float(value)


def comparison_rows(pairs: pd.DataFrame, table: pd.DataFrame,
                    headline: Headline) -> pd.DataFrame | None:
    """The report's view of the ranking metric's comparisons: family, pair, n, difference
    [95 % CI], Holm-adjusted p (within the family) and method (None when the table has no
    rank column)."""
    if "rank" not in table.columns:
        return None
    metric = next(m for m in headline.metrics if m in set(pairs["metric"]))
    rows = pairs[pairs["metric"] == metric]
    return pd.DataFrame({
        "metric": rows["metric"],
        "family": [f"{f} {s}".strip() for f, s in zip(rows["family"], rows["scope"])],
        "arm a": rows["arm_a"], "arm b": rows["arm_b"],
        "n": rows["n"].astype(int),
        "a - b [95 % CI]": [format_cell(d, lo, hi) for d, lo, hi in
                            zip(rows["diff"], rows["ci_low"], rows["ci_high"])],
        "p (Holm)": [f"{p:.3g}" if pd.notna(p) else "-" for p in rows["p_holm"]],
        "method": rows["method"]})


def _rank_number(rank: str) -> float:
    return float(rank.rstrip("=")) if rank not in ("", "-") else math.inf


def _blocks(section: Section) -> list[tuple[str, object]]:
    """What a section shows, in order, as (kind, content) for the renderers below."""
    title = f"{section.benchmark} - dataset {section.dataset} (sha256 {section.sha256[:12]})"
    blocks: list[tuple[str, object]] = [("title", title)]
    if section.demo:
        blocks.append(("demo", DEMO_NOTE))
    if section.condition is not None:
        blocks.append(("condition", section.condition))
    blocks.append(("n", section.n_meaning))
    blocks.append(("table", section.table))
    if section.footer:
        blocks.append(("footer", section.footer))
    return blocks


def _html_pairs(section: Section) -> str:
    if section.pairs is None or section.pairs.empty:
        return ""
    return ("<details><summary>Paired comparisons (results/{}/comparisons.csv)</summary>{}"
            "</details>").format(escape(section.benchmark),
                                 section.pairs.to_html(index=False, border=1))


def _markdown_block(kind: str, content) -> str:
    if kind == "table":
        return markdown_table(content) if len(content) else "(no headline metrics)"
    return {"title": "## {}", "demo": "**{}**", "condition": "Condition `{}`.",
            "n": "n = {}.", "footer": "{}"}[kind].format(content)


def _html_block(kind: str, content) -> str:
    if kind == "table":  # scrolls inside its box instead of widening the page
        return f'<div class="wide">{content.to_html(index=False, border=1)}</div>'
    return {"title": "<h2>{}</h2>", "demo": '<p style="color:#b00020"><strong>{}</strong></p>',
            "condition": "<p>Condition <code>{}</code>.</p>",
            "n": "<p>n = {}.</p>", "footer": "<p><em>{}</em></p>"}[kind].format(escape(content))


def leaderboard_markdown(parts: list[Section], source: str = "results/summary.csv") -> str:
    lines = [f"# Leaderboard\n\nFrom `{source}`: {INTRO}"]
    lines += [_markdown_block(*block) for section in parts for block in _blocks(section)]
    return "\n\n".join(lines) + "\n"


# The report's landing page shows the leaderboard inline (report/workflow.rst includes this
# fragment): styles scoped to its box, wide tables scroll inside it.
# Snakemake 9's landing page centres a tall description vertically (its top could not be
# scrolled to) and keeps it 32 rem narrow: the two :has() rules undo that around this box.
FRAGMENT_STYLE = (
    "div.items-center:has(.scievals-leaderboard){align-items:flex-start;"
    "justify-content:flex-start}"
    ".prose:has(.scievals-leaderboard){max-width:min(46rem,calc(100vw - 24rem))}"
    ".scievals-leaderboard{max-width:100%}"
    ".scievals-leaderboard h2{font-size:1.05em;margin:1em 0 .3em}"
    ".scievals-leaderboard p{margin:.3em 0}"
    ".scievals-leaderboard .wide{max-width:100%;overflow-x:auto}"
    ".scievals-leaderboard table{border-collapse:collapse;font-size:.8em}"
    ".scievals-leaderboard td,.scievals-leaderboard th{padding:2px 6px;text-align:right;"
    "border:1px solid #ccc}"
    ".scievals-leaderboard th,.scievals-leaderboard td{white-space:nowrap}"
    ".scievals-leaderboard td:first-child{text-align:left}")


def leaderboard_fragment(parts: list[Section], source: str = "results/summary.csv") -> str:
    """The leaderboard as an HTML fragment to embed in another page (the report's first)."""
    body = [f"<p>From <code>{escape(source)}</code>: {escape(INTRO)}</p>"]
    body += _html_sections(parts)
    return (f'<style>{FRAGMENT_STYLE}</style><div class="scievals-leaderboard">'
            f"{''.join(body)}</div>\n")


def _html_sections(parts: list[Section]) -> list[str]:
    """Every section's blocks, each followed by its paired comparisons (folded)."""
    body = []
    for section in parts:
        body += [_html_block(*block) for block in _blocks(section)]
        body.append(_html_pairs(section))
    return body


def leaderboard_html(parts: list[Section], source: str = "results/summary.csv") -> str:
    body = [f"<h1>Leaderboard</h1><p>From <code>{escape(source)}</code>: {escape(INTRO)}</p>"]
    body += _html_sections(parts)
    style = ("body{font-family:sans-serif;margin:1em} table{border-collapse:collapse}"
             " td,th{padding:2px 6px;text-align:right} td:first-child{text-align:left}"
             " .wide{max-width:100%;overflow-x:auto} th,td{white-space:nowrap}")
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Leaderboard</title>"
            f"<style>{style}</style></head><body>{''.join(body)}</body></html>\n")
