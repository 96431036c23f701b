"""Unknown and duplicated columns, and files too small to score (issue 19, items 8 and 16).

Probes: a column ``HIC_score`` instead of ``HIC`` was "valid" and scored with HIC empty; a
header with ``HIC`` twice (the second negated) scored the first and dropped the second; a file
of six rows, all of one fold, was "valid" for ``abdev validate`` and then refused by ``score``,
whose advice named the wrong cause.
"""

from __future__ import annotations

import pandas as pd
import pytest
from scievals.abdev.constants import DEFAULT_FOLD_COL
from scievals.abdev.data import DEMO_CSV
from scievals.abdev.score import evaluate_model, raise_on_errors
from scievals.abdev.validate import validate_prediction_file
from scievals.cli import main
from scievals.common.errors import ScievalsError

FOLD = DEFAULT_FOLD_COL


@pytest.fixture(scope="module")
def truth() -> pd.DataFrame:
    return pd.read_csv(DEMO_CSV)


def _write(tmp_path, frame: pd.DataFrame, name="preds.csv", header=None):
    path = tmp_path / name
    frame.to_csv(path, index=False, header=header if header is not None else True)
    return path


def _full(truth) -> pd.DataFrame:
    """Every demo antibody with a HIC prediction equal to its measurement (a perfect file)."""
    return truth[["antibody_name", FOLD, "HIC"]].copy()


def test_a_renamed_assay_column_is_an_error_with_did_you_mean(tmp_path, truth, capsys):
    path = _write(tmp_path, _full(truth).rename(columns={"HIC": "HIC_score"}))
    report = validate_prediction_file(path, DEMO_CSV, FOLD)
    assert not report.ok
    assert any("unknown column(s) 'HIC_score' (did you mean 'HIC'?)" in e for e in report.errors)
    assert main(["abdev", "validate", "--pred", str(path), "--truth", str(DEMO_CSV)]) == 1
    assert "did you mean 'HIC'?" in capsys.readouterr().out


@pytest.mark.parametrize("column, hint", [
    ("hic", "HIC"), (" Tm2 ", "Tm2"), ("pred_Titer", "Titer"), ("AC-SINS_pH7.4_pred", "AC-SINS_pH7.4"),
    ("antibody_nmae", "antibody_name"), ("PR-CHO", "PR_CHO"),
])
def test_near_misses_name_the_column_meant(tmp_path, truth, column, hint):
    frame = _full(truth)
    frame[column] = 1.0
    report = validate_prediction_file(_write(tmp_path, frame), DEMO_CSV, FOLD)
    assert f"{column!r} (did you mean {hint!r}?)" in " ".join(report.errors)


def test_an_unrelated_column_is_named_without_a_guess(tmp_path, truth):
    frame = _full(truth)
    frame["my_notes"] = "x"
    errors = validate_prediction_file(_write(tmp_path, frame), DEMO_CSV, FOLD).errors
    assert len(errors) == 1 and errors[0].startswith("unknown column(s) 'my_notes': scoring")


def test_a_duplicated_column_is_an_error(tmp_path, truth):
    # HIC twice, the second negated: pandas reads 'HIC' and 'HIC.1' and scoring kept the first.
    frame = _full(truth)
    frame["HIC2"] = -frame["HIC"]
    path = _write(tmp_path, frame, header=["antibody_name", FOLD, "HIC", "HIC"])
    report = validate_prediction_file(path, DEMO_CSV, FOLD)
    assert report.errors == ["column(s) 'HIC' appear more than once in the header; only the "
                             "first would be scored: keep one column per name"]
    with pytest.raises(ScievalsError) as caught:
        raise_on_errors(report)
    assert "appear more than once" in caught.value.one_line()


def test_the_truths_own_columns_and_an_index_column_are_allowed(tmp_path, truth):
    copy = truth.copy()  # GDPa1 with the predictions filled in: every column is the truth's
    path = tmp_path / "copy.csv"
    copy.to_csv(path, index=True)  # pandas' index column: an empty header cell
    report = validate_prediction_file(path, DEMO_CSV, FOLD)
    assert report.errors == []


def test_six_rows_of_one_fold_are_invalid_for_validate_as_for_score(tmp_path, truth, capsys):
    six = _full(truth)[truth[FOLD] == 0].head(6)
    path = _write(tmp_path, six)
    report = validate_prediction_file(path, DEMO_CSV, FOLD)
    # 6 antibodies with both a prediction and a measurement < 10 (int(0.1 * 6) = 0 top items)
    assert report.errors == [
        "HIC: only 6 antibodies have both a prediction and a measurement; scoring needs at least "
        "10 (top-10% recall takes int(0.1 n) of them): predict every antibody of the truth file"]
    for dataset in ("GDPa1", "GDPa1_cross_validation"):
        assert main(["abdev", "score", "--pred", str(path), "--truth", str(DEMO_CSV),
                     "--dataset", dataset]) == 1
        assert "only 6 antibodies have both a prediction and a measurement" in capsys.readouterr().err


def test_one_whole_fold_is_valid_for_plain_scoring_not_for_cross_validation(tmp_path, truth, capsys):
    fold0 = _full(truth)[truth[FOLD] == 0]  # 54 antibodies, all in fold 0
    path = _write(tmp_path, fold0)
    errors = validate_prediction_file(path, DEMO_CSV, FOLD).errors
    counts = truth[FOLD].value_counts()
    assert counts[0] == 54 and all(counts[f] > 0 for f in (1, 2, 3, 4))
    assert errors == [
        "HIC: fold(s) 1 (0), 2 (0), 3 (0), 4 (0) have fewer than 10 antibodies with both a "
        "prediction and a measurement; cross-validation scoring (the workflow's) scores every "
        "fold: predict every antibody of every fold"]
    # Plain GDPa1 scoring needs 10 overall only, and a perfect prediction scores Spearman 1.
    assert main(["abdev", "score", "--pred", str(path), "--truth", str(DEMO_CSV),
                 "--dataset", "GDPa1"]) == 0
    assert " 1.0" in capsys.readouterr().out


def test_score_names_the_missing_fold_as_the_cause(tmp_path, truth):
    # Without validation (the reference's API), a fold with no predicted antibody is one line
    # saying the file leaves them out, not "fill the column".
    path = _write(tmp_path, _full(truth)[truth[FOLD] == 0])
    with pytest.raises(ScievalsError) as caught:
        evaluate_model(path, DEMO_CSV, "m", "GDPa1_cross_validation", FOLD)
    message = caught.value.one_line()
    assert "fold 1" in message and "the file leaves them out" in message
    assert "predict every antibody of the truth file (in every fold)" in message
