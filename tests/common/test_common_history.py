from datetime import UTC, datetime

import pandas as pd
import pytest
from scievals.cli import main
from scievals.common.errors import ScievalsError
from scievals.common.history import compare, read_index, record_history, resolve
from scievals.common.provenance import Provenance
from scievals.common.tables import result_rows, write_result_table


def _summary(path, values, commit="abc"):
    prov = Provenance("abdev", "GDPa1-demo_cross_validation", "f" * 64, "cfg1", git_commit=commit)
    frames = [
        result_rows(prov, model, "fold=average", [{"metric": "HIC:spearman", "value": v, "n": 5}])
        for model, v in values.items()
    ]
    write_result_table(path, pd.concat(frames, ignore_index=True))
    return path


def test_record_history_stores_each_distinct_summary_once(tmp_path):
    summary = _summary(tmp_path / "summary.csv", {"random": 0.1})
    hist = tmp_path / "history"
    t0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    first = record_history(summary, hist, now=t0)
    assert first.name.startswith("20260102T040506000Z"[:9])
    assert record_history(summary, hist, now=t0) is None  # unchanged: not stored again
    _summary(summary, {"random": 0.2})
    second = record_history(summary, hist, now=datetime(2026, 1, 3, tzinfo=UTC))
    index = read_index(hist)
    assert list(index["file"]) == [first.name, second.name]
    assert list(index["rows"]) == ["1", "1"]
    assert resolve("@previous", hist) == first
    assert resolve("@latest", hist) == second


def test_compare_reports_changed_added_removed_and_provenance(tmp_path):
    a = _summary(tmp_path / "a.csv", {"random": 0.1, "ridge": 0.4}, commit="c1")
    b = _summary(tmp_path / "b.csv", {"random": 0.1, "ridge": 0.45, "new": 0.3}, commit="c2")
    result = compare(a, b)
    assert result.changed["model"].tolist() == ["ridge"]
    assert result.changed["delta"].iloc[0] == pytest.approx(0.05)
    assert result.only_b["model"].tolist() == ["new"]
    assert result.only_a.empty
    assert "git_commit: c1 -> c2" in result.provenance
    assert compare(a, b, tolerance=0.1).changed.empty


def test_compare_cli_exit_codes(tmp_path, capsys):
    a = _summary(tmp_path / "a.csv", {"random": 0.1})
    b = _summary(tmp_path / "b.csv", {"random": 0.3})
    assert main(["compare", str(a), str(a), "--fail-on-change"]) == 0
    assert "No value changed." in capsys.readouterr().out
    assert main(["compare", str(a), str(b), "--fail-on-change"]) == 2
    assert "1 value(s) changed" in capsys.readouterr().out
    assert main(["compare", str(a), str(tmp_path / "missing.csv")]) == 1
    assert "missing.csv: file not found" in capsys.readouterr().err


def test_resolve_unknown_history_entry(tmp_path):
    with pytest.raises(ScievalsError, match="no history entry @3"):
        resolve("@3", tmp_path)


def test_compare_rejects_a_csv_that_is_not_a_result_table(tmp_path, capsys):
    other = tmp_path / "preds.csv"
    other.write_text("antibody_name,HIC\nabc,1\n")
    assert main(["compare", str(other), str(other)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {other}: result table lacks columns")
    assert "\n" not in err
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert main(["compare", str(empty), str(other)]) == 1
    assert "not a readable CSV" in capsys.readouterr().err
