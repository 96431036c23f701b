"""compare treats value, ci_low, ci_high, n and the dataset as results (issue 21 item 4):
each difference is listed and --fail-on-change exits 2 on any of them; cache_hits rows are
bookkeeping (listed apart, never a change, no history entry of their own)."""

from datetime import UTC, datetime

import pandas as pd
import pytest
from scievals.cli import main
from scievals.common.provenance import Provenance
from scievals.common.tables import result_rows, write_result_table
from scievals.results.compare import compare
from scievals.results.history import read_index, record_history

SHA = "a" * 64
ROW = {"metric": "hierarchy_f1", "value": 0.5, "ci_low": 0.4, "ci_high": 0.6, "n": 242}
USAGE = {"metric": "cache_hits", "value": 0.0, "n": 242}


def _summary(path, row=None, usage=None, dataset="OMIP-verified", sha256=SHA, commit="c1"):
    prov = Provenance("gating", dataset, sha256, "cfg1", git_commit=commit)
    rows = [{**ROW, **(row or {})}, {**USAGE, **(usage or {})}]
    write_result_table(path, result_rows(prov, "claude", "ctx", rows))
    return path


def _cli(a, b, *extra):
    return main(["compare", str(a), str(b), "--fail-on-change", *extra])


@pytest.mark.parametrize(("field", "new"), [("ci_low", 0.35), ("ci_high", 0.62), ("n", 1)])
def test_a_ci_bound_or_n_alone_is_a_change(tmp_path, capsys, field, new):
    a = _summary(tmp_path / "a.csv")
    b = _summary(tmp_path / "b.csv", row={field: new})
    assert _cli(a, b) == 2
    out = capsys.readouterr().out
    assert f"1 result difference(s) ({field} 1):" in out
    [diff] = compare(a, b).differences.to_dict("records")
    # the listed difference is the field's old and new number: b - a
    assert (diff["field"], diff["a"], diff["b"]) == (field, ROW[field], new)
    assert diff["delta"] == pytest.approx(new - ROW[field])
    assert compare(a, b).changed.empty  # no value moved


def test_n_from_242_to_1_is_listed_with_its_delta(tmp_path, capsys):
    a = _summary(tmp_path / "a.csv")
    b = _summary(tmp_path / "b.csv", row={"n": 1})
    assert _cli(a, b) == 2
    line = [x for x in capsys.readouterr().out.splitlines() if " n " in f" {x} "][-1]
    # 1 - 242 = -241
    assert line.split()[-4:] == ["n", "242", "1", "-241"]


def test_tolerance_covers_every_number(tmp_path, capsys):
    a = _summary(tmp_path / "a.csv")
    b = _summary(tmp_path / "b.csv", row={"value": 0.52, "ci_low": 0.41, "ci_high": 0.59})
    # the largest difference is |0.52 - 0.5| = 0.02
    assert _cli(a, b, "--tolerance", "0.03") == 0
    assert "No result changed" in capsys.readouterr().out
    assert _cli(a, b, "--tolerance", "0.015") == 2  # 0.02 > 0.015; 0.01 and 0.01 are within
    assert "1 result difference(s) (value 1):" in capsys.readouterr().out
    assert _cli(a, b) == 2
    assert "3 result difference(s) (value 1, ci_low 1, ci_high 1):" in capsys.readouterr().out


def test_a_missing_ci_against_a_number_is_a_difference(tmp_path):
    a = _summary(tmp_path / "a.csv")
    b = _summary(tmp_path / "b.csv", row={"ci_low": None})
    [diff] = compare(a, b, tolerance=1.0).differences.to_dict("records")
    assert diff["field"] == "ci_low" and pd.isna(diff["b"])
    assert compare(b, b).identical  # NaN equals NaN


def test_a_dataset_sha256_change_alone_fails_and_is_said_first(tmp_path, capsys):
    a = _summary(tmp_path / "a.csv")
    b = _summary(tmp_path / "b.csv", sha256="b" * 64)
    assert _cli(a, b) == 2
    out = capsys.readouterr().out
    assert out.startswith("DATASETS DIFFER")
    assert f"A OMIP-verified (sha256 {SHA[:12]}) vs B OMIP-verified (sha256 {'b' * 12})" in out
    assert "No result changed" not in out
    assert compare(a, b).differences.empty  # the rows themselves line up and agree


def test_a_dataset_name_change_fails(tmp_path, capsys):
    a = _summary(tmp_path / "a.csv")
    b = _summary(tmp_path / "b.csv", dataset="OMIP-demo")
    assert _cli(a, b) == 2
    out = capsys.readouterr().out
    assert out.startswith("DATASETS DIFFER") and "2 row(s) only in A:" not in out
    # the result row moves to another dataset key; cache_hits rows do not count as rows
    assert "1 row(s) only in A:" in out and "1 row(s) only in B:" in out


def test_cache_hits_are_bookkeeping_not_a_change(tmp_path, capsys):
    a = _summary(tmp_path / "a.csv")
    b = _summary(tmp_path / "b.csv", usage={"value": 242.0})
    assert _cli(a, b) == 0
    out = capsys.readouterr().out
    assert "No result changed" in out
    assert "Bookkeeping, not results (cache_hits):" in out  # the one that differs
    [diff] = compare(a, b).bookkeeping.to_dict("records")
    assert (diff["metric"], diff["a"], diff["b"]) == ("cache_hits", 0.0, 242.0)


def test_provenance_alone_is_no_change(tmp_path, capsys):
    a = _summary(tmp_path / "a.csv")
    b = _summary(tmp_path / "b.csv", commit="c2")
    assert _cli(a, b) == 0
    assert "git_commit: c1 -> c2" in capsys.readouterr().out


def test_a_cache_only_rerun_records_no_history_entry(tmp_path):
    summary = tmp_path / "summary.csv"
    hist = tmp_path / "history"
    first = record_history(_summary(summary), hist, now=datetime(2026, 1, 2, tzinfo=UTC))
    # the re-run served every reply from the cache: only cache_hits moved (0 -> 242)
    _summary(summary, usage={"value": 242.0})
    assert record_history(summary, hist, now=datetime(2026, 1, 3, tzinfo=UTC)) is None
    assert list(read_index(hist)["file"]) == [first.name]
    # a CI bound moving is a result: recorded
    _summary(summary, row={"ci_high": 0.61}, usage={"value": 242.0})
    second = record_history(summary, hist, now=datetime(2026, 1, 4, tzinfo=UTC))
    assert list(read_index(hist)["file"]) == [first.name, second.name]


def test_latency_is_bookkeeping_not_a_change(tmp_path, capsys):
    """A re-run against a slower provider changes latency_mean_s only: no result changed."""
    a = _summary(tmp_path / "a.csv", usage={"metric": "latency_mean_s", "value": 1.5})
    b = _summary(tmp_path / "b.csv", usage={"metric": "latency_mean_s", "value": 2.5})
    assert _cli(a, b) == 0
    assert "No result changed" in capsys.readouterr().out
    [diff] = compare(a, b).bookkeeping.to_dict("records")
    assert (diff["metric"], diff["a"], diff["b"]) == ("latency_mean_s", 1.5, 2.5)
