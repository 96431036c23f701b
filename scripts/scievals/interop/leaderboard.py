"""``python -m scievals leaderboard LOG...``: a ranked table per task and metric of anyone's
logs (inspect_ai, lm-eval, Every Eval Ever, tables ``import`` kept) and of our kept runs.

Each table is one (task, metric): each arm's mean with its 95 % interval and n, as
:func:`scievals.stats.api.compare` gives them, the rank its paired tests allow (the engine's
tiers: a rank shared, ``2=``, where the Holm-adjusted tests do not separate the arms), the
smallest difference the items can detect, and the arm's tokens and cost where its log holds
them. Arms, tasks and labels: :mod:`scievals.interop.arms`. Renderers: Markdown, CSV and
JSON here, the HTML page in :mod:`scievals.interop.leaderboard_html`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import pandas as pd

from scievals.common.errors import ScievalsError
from scievals.interop import item_details
from scievals.interop.arms import Arm
from scievals.interop.paired_logs import _pattern as exact_pattern
from scievals.interop.paired_logs import one_kind
from scievals.stats import api
from scievals.stats.comparisons import mdd_footer

ROW_COLUMNS = ["task", "metric", "rank", "arm", "value", "ci_low", "ci_high", "ci_method", "n",
               "log", "tokens_in", "tokens_out", "cost_usd"]


@dataclass
class Board:
    """Every table (ROW_COLUMNS, ranked), the engine's pairs, each (task, metric)'s
    detectable-difference line, the arms (for the page) and the notes."""

    rows: pd.DataFrame
    pairs: pd.DataFrame
    footers: dict[tuple[str, str], str]
    arms: dict[str, list[Arm]]
    notes: list[str] = field(default_factory=list)
    details: dict[tuple[str, str], item_details.Details] = field(default_factory=dict)


def task_table(arms: list[Arm]) -> tuple[pd.DataFrame, dict, set]:
    """The arms' per-item rows stacked, one kind per metric (pass/fail only when every arm
    says so), each metric's widest range, and the lower-is-better metrics."""
    table = pd.concat([a.run.table() for a in arms], ignore_index=True)
    ranges, lower, parts = {}, set(), []
    for metric, rows in table.groupby("metric", sort=True):
        rows, ranges[exact_pattern(metric)], lower_better = one_kind(rows)
        if lower_better:
            lower.add(metric)
        parts.append(rows)
    return pd.concat(parts, ignore_index=True), ranges, lower


def build(task_arms: dict[str, list[Arm]], seed: int = 0, notes: list[str] = (),
          texts: bool = True) -> Board:
    """The board of every task's arms (module docstring); ``texts``: keep each item's input,
    target and answer (for the page), not only the tokens and cost."""
    rows, pairs, footers, all_notes = [], [], {}, list(notes)
    for arms in task_arms.values():  # what each reader left out, as `compare` says it
        for arm in arms:
            all_notes += [f"{arm.label}: {n}" for n in arm.run.notes
                          if f"{arm.label}: {n}" not in all_notes]
    details = {(task, arm.label): _details(arm, all_notes, texts)
               for task, arms in task_arms.items() for arm in arms}
    for task, arms in task_arms.items():
        table, ranges, lower = task_table(arms)
        try:
            result = api.compare(table, ranges, seed=seed, lower_is_better=lower)
        except ValueError as exc:  # the engine's word on scores it cannot compare
            raise ScievalsError(", ".join(a.origin for a in arms), f"task {task}: {exc}",
                                "check these logs' scores") from None
        all_notes += [f"{task}: {n}" for n in result.notes]
        by_label = {a.label: a for a in arms}
        pairs.append(result.comparisons.assign(dataset=task))
        for metric, means in result.means.groupby("metric", sort=True):
            tiers = result.tiers[result.tiers["metric"] == metric]
            rank = dict(zip(tiers["arm"], tiers["rank"]))
            sign = -1.0 if metric in lower else 1.0
            ordered = means.assign(
                _rank=[_rank_number(rank.get(a, "-")) for a in means["arm"]],
                _value=-sign * means["value"]).sort_values(["_rank", "_value", "arm"])
            for row in ordered.itertuples():
                arm = by_label[row.arm]
                spent = details[(task, arm.label)].usage.get(task, item_details.Usage())
                rows.append({"task": task, "metric": metric, "rank": rank.get(row.arm, "-"),
                             "arm": row.arm, "value": row.value, "ci_low": row.ci_low,
                             "ci_high": row.ci_high, "ci_method": row.ci_method, "n": row.n,
                             "log": arm.origin, "tokens_in": spent.tokens_in,
                             "tokens_out": spent.tokens_out, "cost_usd": spent.cost_usd})
            footers[(task, metric)] = _footer(result.comparisons, metric)
    frame = pd.DataFrame(rows, columns=ROW_COLUMNS)
    for column in ("tokens_in", "tokens_out"):
        frame[column] = frame[column].astype("Int64")
    pairs = [p for p in pairs if len(p)]
    pair_frame = pd.concat(pairs, ignore_index=True) if pairs else pd.DataFrame()
    return Board(frame, pair_frame, footers, task_arms, all_notes, details)


def _footer(comparisons: pd.DataFrame, metric: str) -> str:
    """The detectable-difference line; in words where the engine has no number for it."""
    line = mdd_footer(comparisons, metric, "paired items")
    if line:
        return line
    pairs = comparisons[comparisons["metric"] == metric] if "metric" in comparisons else []
    if not len(pairs):
        return "One arm: nothing to rank against."
    if not (pd.to_numeric(pairs["n"], errors="coerce") > 0).any():
        return "No item is scored by two arms: nothing paired, no detectable difference."
    # the engine's NaN: each pair differs by the same amount on every item (identical arms)
    return ("No detectable difference can be estimated: each pair of arms differs by the same "
            "amount on every item (no spread of paired differences).")


def _rank_number(rank: str) -> float:
    return math.inf if rank == "-" else float(str(rank).rstrip("="))


def _details(arm: Arm, notes: list[str], texts: bool) -> item_details.Details:
    """The arm's texts and usage (a log that cannot be read again for them is said once)."""
    details = item_details.read_details(arm.run, texts)
    if details.note and details.note not in notes and "scores only" not in details.note:
        notes.append(details.note)
    return details


# --- renderers ------------------------------------------------------------------------------


def _cell(value, low, high) -> str:
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def _shown(value, digits: int | None = None) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}" if digits is not None else str(value)


def markdown(board: Board) -> str:
    """One Markdown table per (task, metric), its detectable-difference line and the notes."""
    out = ["Means with 95 % intervals; ranks from paired tests on shared items (Holm, 5 % "
           "level): arms the tests do not separate share a rank (1=).", ""]
    spent = board.rows[["tokens_in", "tokens_out", "cost_usd"]].notna().any()
    for (task, metric), rows in board.rows.groupby(["task", "metric"], sort=False):
        out += [f"### {task} / {metric}", ""]
        head = ["rank", "arm", "mean [95 % CI]", "n"]
        head += [c for c in ("tokens_in", "tokens_out") if spent[c]]
        head += ["cost (USD)"] if spent["cost_usd"] else []
        head += ["log"]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for row in rows.itertuples():
            cells = [str(row.rank), _escape(row.arm), _cell(row.value, row.ci_low, row.ci_high),
                     str(row.n)]
            cells += [_shown(getattr(row, c)) for c in ("tokens_in", "tokens_out") if spent[c]]
            cells += [_shown(row.cost_usd, 4)] if spent["cost_usd"] else []
            cells += [_escape(row.log)]
            out.append("| " + " | ".join(cells) + " |")
        out += ["", board.footers[(task, metric)], ""]
    out += [f"note: {note}" for note in board.notes]
    return "\n".join(out).rstrip() + "\n"


def _escape(text: str) -> str:
    return str(text).replace("|", "\\|")


def csv_text(board: Board) -> str:
    return board.rows.to_csv(index=False)


def json_text(board: Board) -> str:
    pairs = board.pairs.drop(columns=["benchmark"], errors="ignore")
    return json.dumps({"tables": json.loads(board.rows.to_json(orient="records")),
                       "pairs": json.loads(pairs.to_json(orient="records")),
                       "detectable": [{"task": t, "metric": m, "line": line}
                                      for (t, m), line in board.footers.items()],
                       "notes": board.notes}, indent=1)
