"""``compare`` opens with a per-benchmark summary and takes ``--benchmark`` and ``--json``."""

from __future__ import annotations

import json

import pandas as pd
from scievals.cli import main
from scievals.common.tables import RESULT_COLUMNS, write_result_table


def row(benchmark, model, metric, value, condition="base"):
    return {"benchmark": benchmark, "dataset": f"{benchmark}-data", "dataset_sha256": "a" * 64,
            "model": model, "condition": condition, "metric": metric, "value": value,
            "ci_low": value - 0.1, "ci_high": value + 0.1, "n": 15, "ci_method": "t",
            "scievals_version": "0.1.0", "git_commit": "abc", "config_hash": "0" * 12}


def summaries(tmp_path):
    a = [row("gating", "baseline", "hierarchy_f1", 0.4), row("gating", "baseline", "f1", 0.5),
         row("gating", "old", "hierarchy_f1", 0.3), row("abdev", "ridge", "HIC:spearman", 0.6)]
    b = [row("gating", "baseline", "hierarchy_f1", 0.45),  # changed (value and CI)
         row("gating", "baseline", "f1", 0.5),             # unchanged
         row("gating", "baseline", "depth_accuracy", 0.7),  # a new row of a kept model
         *[row("gating", "llm", "hierarchy_f1", 0.6, condition=c) for c in ("x", "y", "z")],
         row("abdev", "ridge", "HIC:spearman", 0.6)]
    paths = tmp_path / "a.csv", tmp_path / "b.csv"
    for path, rows in zip(paths, (a, b)):
        write_result_table(path, pd.DataFrame(rows, columns=RESULT_COLUMNS))
    return [str(p) for p in paths]


def test_compare_opens_with_a_per_benchmark_summary(tmp_path, capsys):
    a, b = summaries(tmp_path)
    assert main(["compare", a, b]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    start = lines.index("Per benchmark (B against A):")
    assert start == 3  # right after the A: and B: lines (and a blank line)
    table = [line.split() for line in lines[start + 1:start + 4]]
    # gating: llm added (3 rows) + baseline's new depth_accuracy row = 4 rows added; old
    # removed (1 row); baseline's hierarchy_f1 changed (value, ci_low, ci_high: 1 row)
    assert table[1] == ["abdev", "-", "-", "0", "0", "0"]
    assert table[2] == ["gating", "llm", "old", "4", "1", "1"]
    # the added model's 3 rows are counted, not listed; the kept model's new row is listed
    assert "3 row(s) only in B belong to models added (counted above, not listed)." in out
    assert "1 row(s) only in B:" in out and "depth_accuracy" in out
    assert "1 row(s) only in A belong to models removed" in out


def test_compare_one_benchmark_and_json(tmp_path, capsys):
    a, b = summaries(tmp_path)
    assert main(["compare", a, b, "--benchmark", "abdev", "--fail-on-change"]) == 0
    out = capsys.readouterr().out
    assert "gating" not in out and "No result changed" in out
    assert main(["compare", a, b, "--benchmark", "gating", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["by_benchmark"] == [{"benchmark": "gating", "models added": "llm",
                                     "models removed": "old", "rows added": 4,
                                     "rows removed": 1, "rows changed": 1}]
    # 0.4 -> 0.45 in value, ci_low and ci_high: three field differences of one row
    assert sorted(d["field"] for d in data["differences"]) == ["ci_high", "ci_low", "value"]
    assert not data["identical"]
    assert main(["compare", a, b, "--benchmark", "waza"]) == 1
    assert "--benchmark: no rows of waza in either summary" in capsys.readouterr().err


def test_history_json_lists_each_entry(tmp_path, capsys):
    from datetime import UTC, datetime

    from scievals.results.history import record_history

    a, b = summaries(tmp_path)
    hist = tmp_path / "history"
    first = record_history(a, hist, now=datetime(2026, 1, 2, tzinfo=UTC))
    second = record_history(b, hist, now=datetime(2026, 1, 3, tzinfo=UTC))
    assert main(["history", "--history-dir", str(hist), "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    # a has 4 rows, b 7; each entry with its reference and its integrity check
    assert [(e["ref"], e["file"], str(e["rows"])) for e in entries] == [
        ("@0", first.name, "4"), ("@1", second.name, "7")]
    assert {e["check"] for e in entries} == {"ok"}
