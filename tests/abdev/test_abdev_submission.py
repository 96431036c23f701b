"""``python -m scievals abdev export-submission``: the AbDev leaderboard's uploads, checked
against its rules (antibody_name + predicted properties + the fold column 0-4 for
cross-validation; one row per listed antibody; UTF-8; no duplicate names)."""

from __future__ import annotations

import csv

import pandas as pd
import pytest

from scievals.abdev import submission
from scievals.abdev.constants import DEFAULT_FOLD_COL
from scievals.abdev.data import DEMO_CSV, DEMO_HELDOUT_CSV
from scievals.cli import main

FOLD = DEFAULT_FOLD_COL


def _truth() -> pd.DataFrame:
    return pd.read_csv(DEMO_CSV)


def test_the_cv_upload_has_one_row_per_antibody_with_the_truths_fold(baseline_files, tmp_path,
                                                                     capsys):
    code = main(["abdev", "export-submission", "--model", "ridge", "--predictions",
                 str(baseline_files["ridge_descriptors"]), "--truth", str(DEMO_CSV),
                 "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr().err
    path = tmp_path / "ridge_cv.csv"
    with open(path, encoding="utf-8", newline="") as handle:  # UTF-8, plain CSV
        rows = list(csv.reader(handle))
    assert rows[0] == ["antibody_name", "HIC", "Tm2", "Titer", "PR_CHO", "AC-SINS_pH7.4", FOLD]
    truth = _truth()
    body = rows[1:]
    assert len(body) == len(truth) == 246  # the demo's 246 antibodies, each once
    assert [r[0] for r in body] == truth["antibody_name"].tolist()
    assert [int(r[-1]) for r in body] == truth[FOLD].astype(int).tolist()
    assert {int(r[-1]) for r in body} == {0, 1, 2, 3, 4}
    predictions = pd.read_csv(baseline_files["ridge_descriptors"]).set_index("antibody_name")
    first = body[0]
    assert float(first[1]) == pytest.approx(predictions.loc[first[0], "HIC"])
    out = capsys.readouterr()
    assert "246 antibodies" in out.out and "GDPa1-demo" in out.err  # demo names: said


def test_only_the_predicted_properties_are_columns_and_missing_rows_are_nan(tmp_path):
    truth = _truth()
    predictions = pd.DataFrame({"antibody_name": truth["antibody_name"][:200],
                                "Tm2": range(200), "HIC": float("nan")})
    frame = submission.cv_frame(predictions, truth)
    assert list(frame.columns) == ["antibody_name", "Tm2", FOLD]  # HIC holds no prediction
    assert frame["Tm2"].isna().sum() == 46  # 246 - 200 without a prediction
    assert submission.problems(frame, truth["antibody_name"].tolist(), "cv") == []


def test_the_rules_refuse_duplicates_unknown_names_and_bad_folds():
    names = ["a", "b", "c"]
    good = pd.DataFrame({"antibody_name": names, "HIC": [1.0, 2.0, 3.0], FOLD: [0, 1, 4]})
    assert submission.problems(good, names, "cv") == []
    dup = good.assign(antibody_name=["a", "a", "c"])
    found = submission.problems(dup, names, "cv")
    assert "1 duplicate antibody name(s): a" in found and any("b" in p for p in found)
    assert submission.problems(good.assign(**{FOLD: [0, 1, 5]}), names, "cv") == [
        f"{FOLD} holds values other than 0-4"]
    assert submission.problems(good.drop(columns=[FOLD]), names, "cv") == [f"no {FOLD} column"]
    assert submission.problems(good.drop(columns=["HIC"]), names, "cv")[0].startswith(
        "no property column")
    assert submission.problems(good, names, "heldout") == [
        f"a heldout upload has no {FOLD} column"]


def test_heldout_upload_needs_every_listed_antibody(tmp_path, baseline_files, capsys):
    listed = pd.read_csv(DEMO_HELDOUT_CSV)["antibody_name"].tolist()
    assert len(listed) == submission.HELDOUT_SIZE == 80
    held = tmp_path / "held.csv"
    pd.DataFrame({"antibody_name": listed, "Titer": range(80)}).to_csv(held, index=False)
    args = ["abdev", "export-submission", "--model", "m", "--predictions",
            str(baseline_files["random"]), "--truth", str(DEMO_CSV), "--out", str(tmp_path),
            "--heldout-names", str(DEMO_HELDOUT_CSV)]
    assert main([*args, "--heldout", str(held)]) == 0
    written = pd.read_csv(tmp_path / "m_heldout.csv")
    assert list(written.columns) == ["antibody_name", "Titer"]
    assert written["antibody_name"].tolist() == listed
    capsys.readouterr()
    pd.DataFrame({"antibody_name": listed[:79], "Titer": range(79)}).to_csv(held, index=False)
    (tmp_path / "m_heldout.csv").unlink()
    assert main([*args, "--heldout", str(held)]) == 1
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error")]
    assert len(err) == 1 and "1 antibody(ies) of the list have no row" in err[0]
    assert not (tmp_path / "m_heldout.csv").exists()  # nothing half-written


def test_a_prediction_file_with_a_foreign_name_gets_one_line(tmp_path, capsys, baseline_files):
    predictions = pd.read_csv(baseline_files["random"])
    extra = predictions.iloc[:1].assign(antibody_name="not-a-gdpa1-mab")
    bad = tmp_path / "bad.csv"
    pd.concat([predictions, extra]).to_csv(bad, index=False)
    code = main(["abdev", "export-submission", "--model", "m", "--predictions", str(bad),
                 "--truth", str(DEMO_CSV), "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "not-a-gdpa1-mab" in err[0]
    assert not (tmp_path / "m_cv.csv").exists()


def test_a_bad_heldout_file_leaves_no_cv_file_either(tmp_path, baseline_files, capsys):
    # issue 45 item 6: both uploads or neither (the cv file was written before the check)
    listed = pd.read_csv(DEMO_HELDOUT_CSV)["antibody_name"].tolist()
    held = tmp_path / "held.csv"
    pd.DataFrame({"antibody_name": listed[:79], "Titer": range(79)}).to_csv(held, index=False)
    out = tmp_path / "out"
    code = main(["abdev", "export-submission", "--model", "m", "--predictions",
                 str(baseline_files["random"]), "--truth", str(DEMO_CSV), "--out", str(out),
                 "--heldout-names", str(DEMO_HELDOUT_CSV), "--heldout", str(held)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "nothing written" in err[0]
    assert not (out / "m_cv.csv").exists() and not (out / "m_heldout.csv").exists()
    assert not out.exists() or list(out.iterdir()) == []  # no staging folder left behind


@pytest.mark.parametrize("model", ["../../x", "../x", "a/b", ".hidden"])
def test_a_model_name_that_leads_out_of_the_folder_is_refused(tmp_path, baseline_files, capsys,
                                                              model):
    # issue 45 item 11: --model names files inside --out, like the workflow's model names
    out = tmp_path / "a" / "b"
    code = main(["abdev", "export-submission", "--model", model, "--predictions",
                 str(baseline_files["random"]), "--truth", str(DEMO_CSV), "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "--model" in err[0] and "not a model name" in err[0]
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_out_naming_a_file_gets_one_line(tmp_path, baseline_files, capsys):
    out = tmp_path / "taken.txt"
    out.write_text("mine\n")
    code = main(["abdev", "export-submission", "--model", "m", "--predictions",
                 str(baseline_files["random"]), "--truth", str(DEMO_CSV), "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "existing file" in err[0]
    assert out.read_text() == "mine\n"
