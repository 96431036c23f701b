"""Quality problems become end-of-run notices: mostly unparseable replies, own files that
lack items."""

from __future__ import annotations

import math

import pandas as pd
from scievals.common import notices
from scievals.common.quality import (
    fewer_items,
    may_have_problems,
    missing_items,
    per_item_files,
    record_quality_notices,
    unparseable,
)
from scievals.common.tables import RESULT_COLUMNS


def row(model, condition, metric, value, n, dataset="d"):
    return {"benchmark": "autogkb", "dataset": dataset, "dataset_sha256": "0" * 64,
            "model": model, "condition": condition, "metric": metric, "value": value,
            "ci_low": math.nan, "ci_high": math.nan, "n": n, "scievals_version": "0.1.0",
            "git_commit": "abc", "config_hash": "0" * 12}


def frame(*rows) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=RESULT_COLUMNS)


def test_a_model_with_most_replies_unparseable_is_named_with_its_count():
    summary = frame(row("gpt", "llm", "parse_success_rate", 0.0, 17),
                    row("ok", "llm", "parse_success_rate", 16 / 17, 17),
                    row("half", "llm", "parse_success_rate", 0.5, 10))  # 0.5 is not "most"
    (line,) = unparseable(summary)
    assert line.startswith("gpt: only 0 of 17 replies could be parsed under llm")


def test_a_model_scored_on_fewer_items_is_named():
    summary = frame(row("ridge", "fold=average", "HIC:spearman", 0.6, 242),
                    row("mine", "fold=average", "HIC:spearman", 0.5, 200),
                    row("mine", "fold=average", "Tm2:spearman", 0.5, 193),
                    row("ridge", "fold=average", "Tm2:spearman", 0.6, 193))
    (line,) = fewer_items(summary)
    # only HIC differs: 200 of 242
    assert line.startswith("mine: scored on fewer items than other models in 1 rows")
    assert "n 200 of 242" in line


def test_items_without_prediction_in_per_item_tables(tmp_path):
    scores = tmp_path / "scores"
    scores.mkdir()
    (scores / "mine.csv").write_text("x\n")
    pd.DataFrame({"case_id": ["A", "B", "C"], "parse_status": ["ok", "missing", "missing"]}
                 ).to_csv(scores / "mine.per_case.csv", index=False)
    files = per_item_files([scores / "mine.csv", scores / "absent.csv"])
    assert files == [scores / "mine.per_case.csv"]
    (line,) = missing_items(files)
    assert line == "mine: no prediction for 2 of 3 items (first: B, C), scored as failures"


def test_quality_problems_are_recorded_as_notices(tmp_path):
    folder = tmp_path / "notices"
    out = tmp_path / "summary.csv"
    out.write_text("x")
    notices.start_job("summarize_benchmark", {"benchmark": "autogkb"}, [str(out)], folder)
    try:
        record_quality_notices("autogkb", frame(row("gpt", "llm", "parse_success_rate", 0.0,
                                                    17)), [])
    finally:
        notices.end_job()
    (notice,) = notices.collect(folder)
    assert (notice.kind, notice.benchmark) == ("quality", "autogkb")
    assert "only 0 of 17 replies" in notice.message


def test_missing_items_are_not_said_again_as_unparseable(tmp_path):
    scores = tmp_path / "scores"
    scores.mkdir()
    (scores / "mine.csv").write_text("x\n")
    pd.DataFrame({"case_id": ["A", "B"], "parse_status": ["ok", "missing"]}).to_csv(
        scores / "mine.per_case.csv", index=False)
    summary = frame(row("mine", "user", "parse_success_rate", 0.0, 2))
    lines = record_quality_notices("gating", summary, [scores / "mine.csv"])
    assert lines == ["mine: no prediction for 1 of 2 items (first: B), scored as failures"]


def test_the_text_pre_check_lets_a_clean_summary_skip_pandas(tmp_path):
    """may_have_problems (no pandas) is False only when record_quality_notices finds nothing."""
    scores = tmp_path / "scores"
    scores.mkdir()
    (scores / "a.csv").write_text("x\n")
    clean, short, unparsed = (tmp_path / f"{name}.csv" for name in ("clean", "short", "bad"))
    frame(row("a", "llm", "parse_success_rate", 0.9, 10),
          row("b", "llm", "parse_success_rate", 1.0, 10)).to_csv(clean, index=False)
    frame(row("a", "", "HIC:spearman", 0.6, 242),
          row("b", "", "HIC:spearman", 0.5, 200)).to_csv(short, index=False)
    frame(row("a", "llm", "parse_success_rate", 0.1, 10)).to_csv(unparsed, index=False)
    assert not may_have_problems(clean, [scores / "a.csv"])
    assert may_have_problems(short, []) and may_have_problems(unparsed, [])
    pd.DataFrame({"case_id": ["A"], "parse_status": ["missing"]}).to_csv(
        scores / "a.per_case.csv", index=False)
    assert may_have_problems(clean, [scores / "a.csv"])
