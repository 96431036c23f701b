"""A benchmark's summary is concatenated as text (no pandas): the same rows, sorted the same
way, cells exactly as the score tables wrote them; bad tables are one line."""

from __future__ import annotations

import pandas as pd
import pytest
from scievals.common.errors import ScievalsError
from scievals.common.provenance import Provenance
from scievals.common.table_files import concat_files
from scievals.common.tables import concat_tables, read_result_table, result_rows, write_result_table

PROV = Provenance("gating", "OMIP-verified", "c" * 64, "cfg1", git_commit="abc")


def _table(path, model, rows):
    write_result_table(path, result_rows(PROV, model, "ctx", rows))
    return path


def test_rows_cells_and_order_match_the_pandas_concatenation(tmp_path):
    b = _table(tmp_path / "b.csv", "zeta", [{"metric": "f1", "value": 0.1 + 0.2, "n": 3}])
    a = _table(tmp_path / "a.csv", "alpha", [
        {"metric": "recall", "value": -0.21441538027739632, "ci_low": -0.5, "ci_high": 0.1,
         "n": 53},
        {"metric": "f1", "value": 1 / 3, "n": 53}])
    out = tmp_path / "summary.csv"
    assert concat_files([b, a], out) == 3
    lines = out.read_text().splitlines()
    # sorted by (benchmark, dataset, model, condition, metric): alpha f1, alpha recall, zeta f1
    assert [line.split(",")[3:6] for line in lines[1:]] == [
        ["alpha", "ctx", "f1"], ["alpha", "ctx", "recall"], ["zeta", "ctx", "f1"]]
    # cells as the score table wrote them: the full repr of 0.1 + 0.2 and of the Spearman value
    assert lines[3].split(",")[6] == "0.30000000000000004"
    assert lines[2].split(",")[6] == "-0.21441538027739632"
    pd.testing.assert_frame_equal(read_result_table(out), concat_tables([b, a]))


def test_an_empty_table_adds_no_rows(tmp_path):
    a = _table(tmp_path / "a.csv", "alpha", [{"metric": "f1", "value": 0.5, "n": 2}])
    empty = _table(tmp_path / "empty.csv", "none", [])
    out = tmp_path / "summary.csv"
    assert concat_files([empty, a], out) == 1


def test_a_file_that_is_not_a_result_table_is_one_line(tmp_path):
    other = tmp_path / "preds.csv"
    other.write_text("antibody_name,HIC\nabc,1\n")
    with pytest.raises(ScievalsError, match=r"preds.csv: result table lacks columns \['benchmark'"):
        concat_files([other], tmp_path / "out.csv")
    blank = tmp_path / "blank.csv"
    blank.write_text("")
    with pytest.raises(ScievalsError, match="not a readable CSV"):
        concat_files([blank], tmp_path / "out.csv")
    assert not (tmp_path / "out.csv").exists()


def test_a_refusal_stored_in_place_of_a_copy_is_read_back_and_other_files_are_not(tmp_path):
    """scripts/copy_own.py puts a refused own file's error where its copy would be (issue 34
    item 8); the score job reads it back as that error."""
    from scievals.common.errors import ScievalsError
    from scievals.common.table_files import stored_error, write_not_scored

    refused = tmp_path / "y.csv"
    write_not_scored(refused, ScievalsError("predictions/abdev/y.csv", "not a table", "fix it"))
    error = stored_error(refused)
    assert error is not None and error.one_line() == "predictions/abdev/y.csv: not a table (fix it)"
    table = tmp_path / "ok.csv"
    table.write_text("antibody_name,HIC\nx,1\n")
    assert stored_error(table) is None
    assert stored_error(tmp_path / "missing.csv") is None  # its reader names it
