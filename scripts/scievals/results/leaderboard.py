"""Leaderboard: the headline view of ``results/summary.csv``, one table per benchmark.

Rows are models (and conditions, where a benchmark has several), columns the benchmark's
headline metrics (``headline_metrics`` of its entry in ``scievals.registry``) as
``value [ci_low, ci_high]``, plus ``n``; with the benchmark's ``comparisons.csv`` a ``rank``
column (ties written ``1=``, :func:`scievals.stats.comparisons.significance_tiers`) and a footer
with the smallest difference the item count can detect. The heading of each table names
the dataset and flags demo data, so demo numbers are never read as real ones. Pure: a
result DataFrame in, Markdown text out. ``python -m scievals show``, the workflow's
``results/leaderboard.md`` and the HTML report all use :func:`leaderboard_markdown`.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, replace
from html import escape

import pandas as pd

from scievals import registry
from scievals.stats.comparisons import (
    arm_labels,
    mdd_footer,
    ranking_pairs,
    significance_tiers,
)
from scievals.common.errors import ScievalsError
from scievals.common.sample_links import item_link


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
    if benchmark in registry.NAMES:
        bench = registry.get(benchmark)
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
    # calibration of stated confidences (gating, autogkb; docs/statistics.md, "Calibration"):
    # a row over several conditions shows the unit-weighted mean of their values
    "calibration_ece": ("ECE", "mean", "{:.3f}"),
    "confidence_coverage": ("conf. stated", "mean", "{:.2f}"),
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
    # rows left out by the top-N limit (0: the table is complete), and the pairs left out
    # with them (``pairs`` keeps those between two shown rows)
    hidden: int = 0
    hidden_pairs: int = 0
    # a benchmark shown in one table over its datasets (registry ``dataset_column``): the
    # column's name and every (dataset, sha256) in the table
    dataset_column: str | None = None
    datasets: tuple[tuple[str, str], ...] = ()
    # the shown rows' raw headline values (benchmark, dataset, rank, model, condition, metric,
    # value, ci_low, ci_high, n, ci_method): ``show --format csv|json``
    values: pd.DataFrame | None = None
    # arms that answered each item k times: the ranking metric's mean, consensus, best-of-k
    # (an oracle upper bound), within-item SD and agreement (:func:`samples_table`)
    samples: pd.DataFrame | None = None

    @property
    def demo(self) -> bool:
        return is_demo(self.dataset) or any(is_demo(d) for d, _ in self.datasets)


INTRO = ("value [95 % CI]; n = scored items (each table says which); best first by the "
         "first column; rank: an arm is ranked above another only where it is significantly "
         "better after Holm correction, tied ranks are written 1= (docs/statistics.md); parsed, failed requests, tokens, cost and mean "
         "latency summed or averaged over the model's conditions, where the benchmark has "
         "them.")


def n_meaning(benchmark: str) -> str:
    """What ``n`` counts in a benchmark's rows (registry ``n_meaning``)."""
    if benchmark in registry.NAMES:
        return registry.get(benchmark).n_meaning
    return "scored items"
DEMO_NOTE = ("DEMO DATA: embedded synthetic/demo data, not the real dataset; these numbers "
             "say nothing about the models on real data.")


# Rows a leaderboard table shows by default (per table, and per dataset of a one-table
# benchmark); ``python -m scievals show --all`` shows every row.
TOP_ROWS = 20
ALL_ROWS_HINT = "python -m scievals show --all {}"


def sections(summary: pd.DataFrame, benchmarks: list[str] | None = None,
             source: str = "results/summary.csv",
             comparisons: pd.DataFrame | None = None,
             top: int | None = TOP_ROWS) -> list[Section]:
    """One leaderboard section per (benchmark, dataset) of ``summary`` (a checked result
    table, see ``scievals.common.tables.read_result_table``), or one per benchmark whose
    registry entry sets ``dataset_column``; ``comparisons`` (the rows of the benchmarks'
    comparisons.csv) adds ranks and footers; ``top`` rows per table (None: all), best first."""
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
        parts = [_dataset_part(benchmark, str(dataset), str(sha256), group, headline,
                               comparisons)
                 for (dataset, sha256), group in rows.groupby(["dataset", "dataset_sha256"],
                                                              sort=False)]
        column = _dataset_column(benchmark)
        if column is not None and len(parts) > 1:
            out.append(_one_table(benchmark, column, parts, rows, headline, top))
        else:
            out += [_limited(part, top) for part in parts]
    return out


def _dataset_part(benchmark: str, dataset: str, sha256: str, group: pd.DataFrame,
                  headline: Headline, comparisons: pd.DataFrame | None) -> Section:
    """The complete section of one dataset of a benchmark (ranked where compared)."""
    table, footer, pairs = benchmark_table(group, headline), None, None
    if comparisons is not None:
        pairs = comparisons[(comparisons["benchmark"] == benchmark)
                            & (comparisons["dataset"] == dataset)]
        table, footer = ranked(table, group, headline, pairs, _item_noun(benchmark))
        pairs = comparison_rows(pairs, table, headline)
    return Section(benchmark, dataset, sha256, headline.condition, with_quality(table, group),
                   footer, pairs, n_meaning=n_meaning(benchmark),
                   values=headline_values(group, headline, table),
                   samples=samples_table(group, headline))


# The columns of :func:`samples_table`: suffix of the derived metric -> column heading
# (scievals.stats.samples); "" is the metric itself, the mean over samples.
SAMPLE_COLUMNS = {"": "mean of k samples", "_consensus": "consensus",
                  "_best_of_k": "best-of-k (oracle upper bound)",
                  "_within_sd": "within-item SD", "sample_agreement": "agreement (Jaccard)"}
SAMPLES_NOTE = ("k samples per item, metric `{}`: consensus is the one majority answer built "
                "from the k samples, scored like any reply; best-of-k is an ORACLE UPPER "
                "BOUND (the best sample, picked with the truth), not a score a model reaches "
                "on its own; within-item SD 0 means the model always answered alike "
                "(docs/experiment-dimensions.md).")


def samples_table(rows: pd.DataFrame, headline: Headline) -> pd.DataFrame | None:
    """Per arm that sampled items more than once: the ranking metric's mean over samples,
    consensus, best-of-k, within-item SD and the samples' agreement; None when no arm did."""
    if not headline.metrics:
        return None
    metric = headline.metrics[0]
    names = {(metric + suffix if suffix != "sample_agreement" else suffix): heading
             for suffix, heading in SAMPLE_COLUMNS.items()}
    sampled = rows[rows["metric"] == metric + "_best_of_k"]
    if sampled.empty:
        return None
    arms = sampled[["model", "condition"]].drop_duplicates()
    picked = rows[rows["metric"].isin(names)].merge(arms, on=["model", "condition"])
    out = []
    for (model, condition), group in picked.groupby(["model", "condition"], sort=True):
        cells = metric_cells(group, list(names))
        out.append({"model": model, "condition": condition,
                    **{heading: cells[name] for name, heading in names.items()},
                    "n": format_n(group["n"])})
    table = pd.DataFrame(out)
    table.attrs["metric"] = metric
    return table


def headline_values(rows: pd.DataFrame, headline: Headline,
                    table: pd.DataFrame) -> pd.DataFrame:
    """The raw headline rows behind ``table``, in its row order, with its rank."""
    keys = [k for k in ("model", "condition") if k in table.columns]
    values = headline_rows(rows, headline)
    if not keys:  # an empty table
        return values.iloc[0:0].assign(rank="")
    order = table[keys].astype(str).assign(
        _row=range(len(table)), rank=table["rank"] if "rank" in table.columns else "")
    merged = values.assign(**{k: values[k].astype(str) for k in keys}).merge(order, on=keys)
    position = {m: i for i, m in enumerate(headline.metrics)}
    merged = merged.assign(_metric=merged["metric"].map(position))
    merged = merged.sort_values(["_row", "_metric"], kind="stable")
    columns = ["benchmark", "dataset", "rank", "model", "condition", "metric", "value",
               "ci_low", "ci_high", "n", "ci_method"]
    return merged[columns].reset_index(drop=True)


def _limited(part: Section, top: int | None) -> Section:
    """``part`` with only its first ``top`` rows (and its raw values of those rows, and the
    pairs of two of those rows: at 300 arms the pairs are 45,000, which made the report's
    leaderboard 10 MB; comparisons.csv has them all)."""
    if top is None or len(part.table) <= top:
        return part
    keep = part.table.iloc[:top]
    pairs, hidden_pairs = part.pairs, 0
    if pairs is not None:
        table = part.table
        shown = set(arm_labels(table if "condition" in table.columns
                               else table.assign(condition="")).iloc[:top])
        among = pairs["arm a"].isin(shown) & pairs["arm b"].isin(shown)
        pairs, hidden_pairs = pairs[among].reset_index(drop=True), int((~among).sum())
    return replace(part, table=keep.reset_index(drop=True), hidden=len(part.table) - top,
                   values=_values_of(part.values, keep), pairs=pairs, hidden_pairs=hidden_pairs)


def _values_of(values: pd.DataFrame | None, table: pd.DataFrame) -> pd.DataFrame | None:
    if values is None:
        return None
    shown = set(map(tuple, table[["model"]].astype(str).to_numpy()))
    if "condition" in table.columns:
        shown = set(zip(table["model"].astype(str), table["condition"].astype(str)))
        return values[[(m, c) in shown for m, c in zip(values["model"], values["condition"])]]
    return values[[(m,) in shown for m in values["model"].astype(str)]]


def _one_table(benchmark: str, column: str, parts: list[Section], rows: pd.DataFrame,
               headline: Headline, top: int | None) -> Section:
    """Every dataset of a benchmark in one table: a ``column`` naming the dataset (ranks are
    within it: the comparisons pair models on one dataset's items), then a pooled row per
    model that ran several."""
    limited = [_limited(part, top) for part in parts]
    tables = [part.table.assign(**{column: part.dataset}) for part in limited]
    pooled = pooled_rows(rows, headline, column)
    if top is not None and len(pooled) > top:
        hidden_pooled, pooled = len(pooled) - top, pooled.iloc[:top]
    else:
        hidden_pooled = 0
    table = pd.concat([*tables, pooled], ignore_index=True).fillna("-")
    if not any("rank" in t.columns for t in tables):
        table = table.drop(columns="rank", errors="ignore")
    lead = [c for c in ("rank", column, "model", "condition") if c in table.columns]
    table = table[lead + [c for c in table.columns if c not in lead]]
    footers = [f"{part.dataset}: {part.footer}" for part in parts if part.footer]
    pairs = [part.pairs.assign(**{column: part.dataset}) for part in limited
             if part.pairs is not None and not part.pairs.empty]
    values = [part.values for part in limited if part.values is not None]
    return Section(
        benchmark, f"{len(parts)} {column}s", "", headline.condition, table,
        footer=" ".join(footers) or None,
        pairs=pd.concat(pairs, ignore_index=True) if pairs else None,
        n_meaning=n_meaning(benchmark),
        hidden=sum(part.hidden for part in limited) + hidden_pooled,
        hidden_pairs=sum(part.hidden_pairs for part in limited),
        dataset_column=column,
        datasets=tuple((part.dataset, part.sha256) for part in parts),
        values=pd.concat(values, ignore_index=True) if values else None)


POOLED = "pooled ({} {}s)"


def pooled_rows(rows: pd.DataFrame, headline: Headline, column: str) -> pd.DataFrame:
    """Per model (x condition) that has a headline metric on two or more datasets: each
    metric's mean over every item of those datasets (the datasets' values weighted by their
    n) and the summed n; no interval (the datasets are different populations). Best first."""
    values = headline_rows(rows, headline)
    values = values[values["value"].notna() & (values["n"].fillna(0) > 0)]
    keys = row_keys(values) if len(values) else ["model"]
    metrics = [m for m in headline.metrics if m in set(values["metric"])]
    out = []
    for key, group in values.groupby(keys, sort=False):
        datasets = group["dataset"].nunique()
        if datasets < 2:
            continue
        line = {**dict(zip(keys, key if isinstance(key, tuple) else (key,))),
                column: POOLED.format(datasets, column), "rank": "-"}
        for metric in metrics:
            part = group[group["metric"] == metric]
            weights = part["n"].astype(float)
            pooled = float((part["value"].astype(float) * weights).sum() / weights.sum()) \
                if len(part) else math.nan
            line[metric] = "-" if math.isnan(pooled) else f"{pooled:.3f}"
            line[f"_{metric}"] = pooled
        line["n"] = format_n(group.groupby("metric")["n"].sum())
        out.append(line)
    if not out:
        return pd.DataFrame()
    table = best_first(pd.DataFrame(out), metrics)
    return table.drop(columns=[f"_{m}" for m in metrics]).reset_index(drop=True)


def _dataset_column(benchmark: str) -> str | None:
    return registry.get(benchmark).dataset_column if benchmark in registry.NAMES else None


def _item_noun(benchmark: str) -> str:
    return registry.get(benchmark).item_noun if benchmark in registry.NAMES else "items"


def ranked(table: pd.DataFrame, rows: pd.DataFrame, headline: Headline, pairs: pd.DataFrame,
           item_noun: str) -> tuple[pd.DataFrame, str | None]:
    """``table`` with a first ``rank`` column from the ranking metric's (the first headline
    metric present) paired comparisons (:func:`~scievals.stats.comparisons.significance_tiers`:
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
    if section.dataset_column:
        title = f"{section.benchmark} - dataset per {section.dataset_column} ({section.dataset})"
    else:
        title = f"{section.benchmark} - dataset {section.dataset} (sha256 {section.sha256[:12]})"
    blocks: list[tuple[str, object]] = [("title", title)]
    if section.demo:
        blocks.append(("demo", DEMO_NOTE))
    if LIMITED in section.dataset or any(LIMITED in d for d, _ in section.datasets):
        blocks.append(("limited", limited_note(section.benchmark)))
    if section.dataset_column:
        blocks.append(("datasets", f"{section.dataset_column.capitalize()}s (dataset sha256): "
                       + ", ".join(f"{d} ({h[:12]})" for d, h in section.datasets)
                       + f"; ranks are within a {section.dataset_column}; a pooled row "
                       f"is the model's mean over every item of its {section.dataset_column}s "
                       "(their values weighted by n), without an interval."))
    if section.condition is not None:
        blocks.append(("condition", section.condition))
    blocks.append(("n", section.n_meaning))
    blocks.append(("table", section.table))
    if section.samples is not None:
        blocks.append(("samples_note", SAMPLES_NOTE.format(section.samples.attrs["metric"])))
        blocks.append(("samples", section.samples))
    if section.hidden:
        blocks.append(("hidden", hidden_note(section)))
    if section.footer:
        blocks.append(("footer", section.footer))
    return blocks


LIMITED = "(limited to "  # the dataset label of a smoke run (scievals.common.selection)


def limited_note(benchmark: str, runs_dir: str = "results/runs") -> str:
    """What a limited section shows, and where the last full result of its benchmark is (a
    kept run log, scievals.interop.runlogs), so a smoke run never hides it."""
    # here, not at the top: the run logs' module (and the viewer it writes for) is only
    # needed when a section is limited
    from scievals.interop.runlogs import last_full_run

    full = last_full_run(benchmark, runs_dir)
    where = (f"the last full {benchmark} result is kept in {runs_dir}/{full} (python -m "
             f"scievals logs; export it with python -m scievals export eee --run {full})"
             if full else f"no full {benchmark} result is kept in {runs_dir}/")
    return (f"LIMITED RUN: this table shows a smoke run on a few items (--limit), not a full "
            f"result; {where}.")


def hidden_note(section: Section) -> str:
    per = f" per {section.dataset_column}" if section.dataset_column else ""
    return (f"Top {TOP_ROWS} rows{per} shown, {section.hidden} more not shown; every row: "
            + ALL_ROWS_HINT.format(section.benchmark))


def _html_pairs(section: Section) -> str:
    if section.pairs is None or (section.pairs.empty and not section.hidden_pairs):
        return ""
    table = (f'<div class="wide">{section.pairs.to_html(index=False, border=1)}</div>'
             if len(section.pairs) else "")  # scrolls inside its box, as every table does
    more = ""
    if section.hidden_pairs:
        more = (f": the {len(section.pairs):,} between rows shown above; "
                f"{section.hidden_pairs:,} more in that file")
    return (f"<details><summary>Paired comparisons (results/{escape(section.benchmark)}/"
            f"comparisons.csv){more}</summary>{table}</details>")


def _markdown_block(kind: str, content) -> str:
    if kind == "samples":
        return markdown_table(content)
    if kind == "table":
        return markdown_table(content) if len(content) else "(no headline metrics)"
    return {"title": "## {}", "demo": "**{}**", "limited": "**{}**",
            "condition": "Condition `{}`.",
            "n": "n = {}.", "footer": "{}", "datasets": "{}",
            "hidden": "*{}*", "samples_note": "{}"}[kind].format(content)


def _html_block(kind: str, content) -> str:
    if kind in ("table", "samples"):  # scrolls inside its box instead of widening the page
        return f'<div class="wide">{content.to_html(index=False, border=1)}</div>'
    return {"title": "<h2>{}</h2>", "demo": '<p style="color:#b00020"><strong>{}</strong></p>',
            "limited": '<p style="color:#b00020"><strong>{}</strong></p>',
            "condition": "<p>Condition <code>{}</code>.</p>",
            "n": "<p>n = {}.</p>", "footer": "<p><em>{}</em></p>", "datasets": "<p>{}</p>",
            "hidden": "<p><strong>{}</strong></p>",
            "samples_note": "<p>{}</p>"}[kind].format(escape(content))


def leaderboard_markdown(parts: list[Section], source: str = "results/summary.csv") -> str:
    lines = [f"# Leaderboard\n\nFrom `{source}`: {INTRO}"]
    lines += [_markdown_block(*block) for section in parts for block in _blocks(section)]
    return "\n\n".join(lines) + "\n"


# The report's landing page shows the leaderboard inline (report/workflow.rst includes this
# fragment): styles scoped to its box, wide tables scroll inside it.
# Snakemake 9's landing page centres a tall description vertically (its top could not be
# scrolled to) and keeps it 32 rem narrow: the two :has() rules undo that around this box.
# Every table sits in a .wide box that scrolls sideways (headline tables and the folded
# paired comparisons alike).
FRAGMENT_STYLE = (
    "div.items-center:has(.scievals-leaderboard){align-items:flex-start;"
    "justify-content:flex-start}"
    ".prose:has(.scievals-leaderboard){max-width:min(46rem,calc(100vw - 24rem))}"
    ".scievals-leaderboard{max-width:100%}"
    ".scievals-leaderboard h2{font-size:1.05em;margin:1em 0 .3em}"
    ".scievals-leaderboard p{margin:.3em 0}"
    # the report's prose style draws a backtick before and after every <code>: a literal
    # Markdown backtick to the reader (issue 46)
    ".scievals-leaderboard code::before,.scievals-leaderboard code::after{content:none}"
    ".scievals-leaderboard .wide{max-width:100%;overflow-x:auto}"
    ".scievals-leaderboard table{border-collapse:collapse;font-size:.8em}"
    ".scievals-leaderboard td,.scievals-leaderboard th{padding:2px 6px;text-align:right;"
    "border:1px solid #ccc}"
    ".scievals-leaderboard th,.scievals-leaderboard td{white-space:nowrap}"
    ".scievals-leaderboard td:first-child{text-align:left}")


# What each ``ci_method`` of a result table means, in a phrase (docs/statistics.md has more).
CI_METHODS = {
    "t": "the Student-t interval of a mean over items",
    "wilson": "the Wilson score interval of a proportion (pass rates)",
    "percentile-cluster": "a percentile bootstrap resampling sequence clusters",
    "bca-cluster": "a BCa bootstrap resampling sequence clusters",
    "percentile": "a percentile bootstrap",
    "bca": "a BCa bootstrap",
}


def interval_note(summary: pd.DataFrame, bootstrap: dict | None = None) -> str:
    """Which interval methods the summary's rows actually use (``ci_method``), with their
    row counts: the report's "About" text, never a claim about a method nobody used."""
    methods = summary["ci_method"].fillna("").astype(str)
    with_interval = summary["ci_low"].notna() & summary["ci_high"].notna()
    counts = methods[with_interval].value_counts()
    parts = []
    for method, count in counts.items():
        meaning = CI_METHODS.get(method, "see docs/statistics.md") if method else "not recorded"
        if "bootstrap" in meaning and bootstrap:
            meaning += (f" ({bootstrap.get('n_resamples')} resamples, seed "
                        f"{bootstrap.get('seed')})")
        parts.append(f"{method or '(none)'} in {count} rows: {meaning}")
    if not parts:
        return "No row of this summary has an interval."
    text = "Every interval is a 95 % interval; the methods in these tables: " + "; ".join(parts)
    without = int((~with_interval).sum())
    if without:
        text += f"; {without} rows (counts, costs, single values) have no interval"
    return text + ". What each method means and how it was checked: docs/statistics.md."


def leaderboard_fragment(parts: list[Section], source: str = "results/summary.csv",
                         about: str | None = None) -> str:
    """The leaderboard as an HTML fragment to embed in another page (the report's first);
    ``about`` (:func:`interval_note`) closes it."""
    body = [f"<p>From <code>{escape(source)}</code>: {escape(INTRO)}</p>"]
    body += _html_sections(parts)
    if about:
        body.append(f"<h2>About the intervals</h2><p>{escape(about)}</p>")
    return (f'<style>{FRAGMENT_STYLE}</style><div class="scievals-leaderboard">'
            f"{''.join(body)}</div>\n")


def _html_sections(parts: list[Section], links: bool = False) -> list[str]:
    """Every section's blocks, each followed by its paired comparisons (folded); with
    ``links`` every model name opens that model's items in the sample viewer (a page beside
    this one in results/report/)."""
    body = []
    for section in parts:
        body += [_linked_table(section, content) if links and kind == "table" and len(content)
                 else _html_block(kind, content) for kind, content in _blocks(section)]
        body.append(_html_pairs(section))
    return body


def _linked_table(section: Section, table: pd.DataFrame) -> str:
    """The table's HTML with each model cell a link to its items in the sample viewer
    (:func:`scievals.report.viewer.item_link`; every other cell escaped by pandas)."""
    marked = table.copy()
    markers = {}
    for i, row in enumerate(marked.itertuples(index=False)):
        model = getattr(row, "model", None)
        if model is None:
            continue
        condition = getattr(row, "condition", None)
        key = f"@@scievals-link-{i}@@"
        href = item_link(section.benchmark, str(model), str(condition) if condition else None)
        markers[key] = f'<a href="{escape(href)}">{escape(str(model))}</a>'
        marked.iloc[i, marked.columns.get_loc("model")] = key
    html = marked.to_html(index=False, border=1)
    for key, link in markers.items():
        html = html.replace(key, link)
    return f'<div class="wide">{html}</div>'


def leaderboard_html(parts: list[Section], source: str = "results/summary.csv") -> str:
    body = [f"<h1>Leaderboard</h1><p>From <code>{escape(source)}</code>: {escape(INTRO)}</p>"]
    body += _html_sections(parts, links=True)
    style = ("body{font-family:sans-serif;margin:1em} table{border-collapse:collapse}"
             " td,th{padding:2px 6px;text-align:right} td:first-child{text-align:left}"
             " .wide{max-width:100%;overflow-x:auto} th,td{white-space:nowrap}")
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Leaderboard</title>"
            f"<style>{style}</style></head><body>{''.join(body)}</body></html>\n")


# ``python -m scievals show``'s terminal form: aligned columns, wrapped to the terminal's
# width with the row names repeated in every block (pandas ``to_string``), instead of
# Markdown lines hundreds of characters long.
def leaderboard_text(parts: list[Section], source: str = "results/summary.csv",
                     width: int = 100) -> str:
    lines = textwrap.wrap(f"Leaderboard of {source}: value [95 % CI], best first; an arm "
                          "is ranked above another only where it is significantly better, "
                          "1= is shared (docs/statistics.md).",
                          width)
    for section in parts:
        for kind, content in _blocks(section):
            if kind == "title":
                lines += ["", f"== {content} =="]
            elif kind == "table":
                lines.append(_text_table(content, section.dataset_column, width)
                             if len(content) else "(no headline metrics)")
            elif kind == "samples":
                lines.append(_text_table(content, None, width))
            elif kind == "demo":
                lines += textwrap.wrap("DEMO DATA: not the real dataset; these numbers say "
                                       "nothing about the models on real data.", width)
            elif kind == "condition":
                lines.append(f"condition {content}")
            elif kind == "n":
                lines.append(f"n = {content}")
            else:
                lines += textwrap.wrap(str(content), width)
    return "\n".join(lines) + "\n"


def _text_table(table: pd.DataFrame, dataset_column: str | None, width: int) -> str:
    """Aligned columns, two spaces apart; where the row is wider than ``width`` the value
    columns go on in further blocks, each repeating the row's names (rank, dataset column,
    model, condition)."""
    text = table.astype(str)
    keys = [c for c in ("rank", dataset_column, "model", "condition") if c in text.columns]
    size = {c: max(len(c), *(len(v) for v in text[c])) for c in text.columns}
    blocks, current, used = [], [], sum(size[k] + 2 for k in keys)
    for column in [c for c in text.columns if c not in keys]:
        if current and used + size[column] > width:
            blocks.append(current)
            current, used = [], sum(size[k] + 2 for k in keys)
        current.append(column)
        used += size[column] + 2
    blocks.append(current)
    out = []
    for block in blocks:
        columns = keys + block
        out.append("  ".join(c.ljust(size[c]) for c in columns).rstrip())
        out += ["  ".join(row[c].ljust(size[c]) for c in columns).rstrip()
                for _, row in text.iterrows()]
    return "\n".join(out)


def leaderboard_records(parts: list[Section]) -> pd.DataFrame:
    """The shown rows' raw headline values, long format (``show --format csv|json``)."""
    frames = [section.values for section in parts if section.values is not None]
    columns = ["benchmark", "dataset", "rank", "model", "condition", "metric", "value",
               "ci_low", "ci_high", "n", "ci_method"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
