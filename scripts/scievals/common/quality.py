"""Quality problems of a benchmark's results, said at the end of the run.

A model whose replies mostly could not be parsed scores near 0 as if it were simply bad,
and an own prediction file that lacks items is scored on what it has (abdev) or with the
missing items as failures (gating, autogkb); the log says so once, in the middle. The
summary job of each benchmark calls :func:`record_quality_notices`, so these become
end-of-run notices (``scievals.common.notices``) and land in ``results/run_report.json``.
A text-only pre-check (:func:`may_have_problems`) lets that job skip pandas when nothing
can be wrong, the usual case.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from scievals.common import notices
from scievals.common.table_files import read_rows

if TYPE_CHECKING:
    import pandas as pd

# Below this share of parseable replies a model's scores mostly measure its output format.
MIN_PARSE_SUCCESS = 0.5
# The per-item table the score jobs write beside each model's score table.
PER_ITEM_SUFFIX = ".per_case.csv"


def unparseable(summary: pd.DataFrame) -> list[str]:
    """One line per (model, condition) whose parse_success_rate is below the minimum."""
    rows = summary[(summary["metric"] == "parse_success_rate")
                   & (summary["value"] < MIN_PARSE_SUCCESS)]
    lines = []
    for row in rows.itertuples(index=False):
        parsed = round(row.value * row.n)  # the rate is the share of n items parsed
        where = f" under {row.condition}" if row.condition else ""
        lines.append(f"{row.model}: only {parsed} of {int(row.n)} replies could be parsed"
                     f"{where}; its scores count the rest as failures (the raw replies are in "
                     "its predictions file and in the sample viewer, named under 'where to "
                     "look next')")
    return lines


def fewer_items(summary: pd.DataFrame) -> list[str]:
    """One line per model scored on fewer items than another model on the same rows
    (an own file that lacks items: its numbers are not comparable)."""
    keys = ["dataset", "condition", "metric"]
    most = summary.groupby(keys)["n"].transform("max")
    short = summary[summary["n"] < most].assign(most=most)
    lines = []
    for model, rows in short.groupby("model", sort=True):
        worst = rows.loc[(rows["most"] - rows["n"]).idxmax()]
        lines.append(f"{model}: scored on fewer items than other models in {len(rows)} rows "
                     f"(e.g. {worst['metric']}"
                     + (f" under {worst['condition']}" if worst["condition"] else "")
                     + f": n {int(worst['n'])} of {int(worst['most'])}); its file lacks items, "
                     "so its numbers are not comparable")
    return lines


def missing_items(per_item_files: list[Path]) -> list[str]:
    """One line per model whose per-item table has items with no prediction at all."""
    import pandas as pd  # start-up: only when may_have_problems found something to look at

    lines = []
    for path in per_item_files:
        frame = pd.read_csv(path, usecols=lambda c: c in ("case_id", "parse_status"), dtype=str)
        if "parse_status" not in frame:
            continue
        missing = frame[frame["parse_status"] == "missing"]
        if len(missing):
            model = path.name.split(".")[0]
            first = ", ".join(missing["case_id"].drop_duplicates().head(3))
            lines.append(f"{model}: no prediction for {len(missing)} of {len(frame)} items "
                         f"(first: {first}), scored as failures")
    return lines


def may_have_problems(summary_path: str | Path, score_tables: list[str | Path]) -> bool:
    """False when the summary and per-item tables cannot hold a quality problem (read as
    text, without pandas); True means :func:`record_quality_notices` should look."""
    rows = read_rows(summary_path)
    most: dict[tuple[str, str, str], set[str]] = {}
    for row in rows:
        if row["metric"] == "parse_success_rate" and not _at_least(row["value"], MIN_PARSE_SUCCESS):
            return True
        most.setdefault((row["dataset"], row["condition"], row["metric"]), set()).add(row["n"])
    if any(len(ns) > 1 for ns in most.values()):
        return True
    return any("missing" in path.read_text(encoding="utf-8", errors="replace")
               for path in per_item_files(score_tables))


def _at_least(cell: str, floor: float) -> bool:
    try:
        return float(cell) >= floor
    except ValueError:
        return False


def per_item_files(score_tables: list[str | Path]) -> list[Path]:
    found = []
    for table in map(Path, score_tables):
        stem = table.name.removesuffix(".csv")
        if (path := table.with_name(stem + PER_ITEM_SUFFIX)).is_file():
            found.append(path)
    return found


def record_quality_notices(benchmark: str, summary: pd.DataFrame,
                           score_tables: list[str | Path]) -> list[str]:
    """Record every quality problem of one benchmark's summary as a notice; the lines."""
    missing = missing_items(per_item_files(score_tables))
    # Missing items also count as unparsed: say the cause once.
    said = {line.split(":")[0] for line in missing}
    lines = [*missing, *(line for line in unparseable(summary) if line.split(":")[0] not in said),
             *fewer_items(summary)]
    for line in lines:
        notices.record("quality", benchmark, line)
    return lines
