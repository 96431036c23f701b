"""``python -m scievals abdev ...`` exit codes and output, via scievals.cli.main."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from scievals.abdev.constants import REFERENCE_CV_COLUMNS, REFERENCE_PLAIN_COLUMNS
from scievals.abdev.data import DEMO_CSV
from scievals.cli import main


def test_validate_ok_and_errors(baseline_files, tmp_path, capsys):
    assert main(["abdev", "validate", "--pred", str(baseline_files["random"]), "--truth", str(DEMO_CSV)]) == 0
    assert capsys.readouterr().out == f"{baseline_files['random']}: valid\n"
    bad = tmp_path / "bad.csv"
    bad.write_text("name,hic\nx,1\n")
    assert main(["abdev", "validate", "--pred", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{bad}: INVALID: Missing required column 'antibody_name'" in out
    # An unknown column is an error now (scoring would drop it), with the near miss named.
    assert ("unknown column(s) 'name' (did you mean 'antibody_name'?), 'hic' (did you mean 'HIC'?)"
            in out)


def test_validate_missing_file_exits_1(tmp_path, capsys):
    assert main(["abdev", "validate", "--pred", str(tmp_path / "nope.csv")]) == 1
    assert f"File not found: {tmp_path / 'nope.csv'}" in capsys.readouterr().out


def test_score_cross_validation_writes_reference_columns(baseline_files, tmp_path, capsys):
    out = tmp_path / "scores.csv"
    code = main([
        "abdev", "score", "--pred", str(baseline_files["ridge_descriptors"]), "--truth", str(DEMO_CSV),
        "--dataset", "GDPa1_cross_validation", "--output", str(out),
    ])
    assert code == 0
    captured = capsys.readouterr()
    assert "average" in captured.out and f"Results saved to {out}" in captured.out
    assert "synthetic GDPa1-demo" in captured.err
    frame = pd.read_csv(out, dtype={"fold": str})
    assert list(frame.columns) == REFERENCE_CV_COLUMNS and len(frame) == 35
    assert set(frame["model"]) == {"ridge_descriptors"}  # default model name = file stem


def test_score_plain(baseline_files, tmp_path):
    out = tmp_path / "plain.csv"
    assert main(["abdev", "score", "--pred", str(baseline_files["random"]), "--truth", str(DEMO_CSV),
                 "--model-name", "rnd", "-o", str(out)]) == 0
    frame = pd.read_csv(out)
    assert list(frame.columns) == REFERENCE_PLAIN_COLUMNS and len(frame) == 5


def test_score_invalid_file_exits_1_and_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("antibody_name,HIC\na,1\na,2\n")
    out = tmp_path / "o.csv"
    assert main(["abdev", "score", "--pred", str(bad), "--truth", str(DEMO_CSV), "-o", str(out)]) == 1
    assert "Found 1 duplicate antibody_name values" in capsys.readouterr().err
    assert not out.exists()


def test_score_scoring_error_exits_1_with_one_line(tmp_path, capsys):
    few = tmp_path / "few.csv"
    few.write_text("antibody_name,HIC\n" + "".join(f"demomab-{i:03d},{i}\n" for i in range(1, 6)))
    assert main(["abdev", "score", "--pred", str(few), "--truth", str(DEMO_CSV)]) == 1
    err = capsys.readouterr().err
    # Caught by validation (the same check `abdev validate` runs), before any scoring.
    assert "Validation errors:" in err and "only 5 antibodies have both a prediction and a measurement" in err


def test_predict_and_unknown_model(tmp_path, capsys):
    out = tmp_path / "p.csv"
    assert main(["abdev", "predict", "--model", "random", "--truth", str(DEMO_CSV), "--out", str(out)]) == 0
    assert len(pd.read_csv(out)) == 246
    assert main(["abdev", "predict", "--model", "nope", "--truth", str(DEMO_CSV), "--out", str(out)]) == 1
    assert "known baselines: ['random', 'ridge_descriptors']" in capsys.readouterr().err


def test_score_extended_prints_cis(baseline_files, capsys):
    assert main(["abdev", "score", "--pred", str(baseline_files["random"]), "--truth", str(DEMO_CSV),
                 "--dataset", "GDPa1_cross_validation", "--extended", "--n-resamples", "50"]) == 0
    assert "top_10_recall_tie_robust" in capsys.readouterr().out


def test_negative_resamples_are_refused(baseline_files, capsys):
    argv = ["abdev", "score", "--pred", str(baseline_files["random"]), "--truth", str(DEMO_CSV),
            "--dataset", "GDPa1_cross_validation", "--extended", "--n-resamples", "-5"]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --n-resamples") and "-5 is negative" in err[0]


@pytest.mark.parametrize("command", ["predict", "score"])
def test_directory_as_output_is_one_line_and_leaves_no_temp_file(baseline_files, tmp_path, capsys, command):
    target = tmp_path / "out"
    target.mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    if command == "predict":
        argv = ["abdev", "predict", "--model", "random", "--truth", str(DEMO_CSV), "--out", f"{target}/"]
    else:
        argv = ["abdev", "score", "--pred", str(baseline_files["random"]), "--truth", str(DEMO_CSV),
                "--output", f"{target}/"]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {target}/: is a directory, not a file (give the path of the file to write)"]
    # the temporary file used to be created in the folder's parent and left there
    assert sorted(p.name for p in tmp_path.iterdir()) == before and list(target.iterdir()) == []


def test_validate_without_truth_checks_names_against_the_workflows_or_the_demo_truth(
        baseline_files, tmp_path, monkeypatch, capsys):
    """Issue 29 point 6: a file whose names match nothing is not `valid` without --truth."""
    monkeypatch.chdir(tmp_path)  # no workflow copy of the truth here: the embedded demo
    renamed = pd.read_csv(baseline_files["random"])
    renamed["antibody_name"] = [f"x{i}" for i in range(len(renamed))]
    renamed.to_csv(tmp_path / "renamed.csv", index=False)
    assert main(["abdev", "validate", "--pred", str(tmp_path / "renamed.csv")]) == 1
    out, err = capsys.readouterr()
    assert f"checked against {DEMO_CSV}" in err
    assert ": valid" not in out and "only 0 antibodies have both a prediction" in out
    # the workflow's truth, once it is there, is the one own files are scored against
    (tmp_path / "data" / "raw" / "abdev").mkdir(parents=True)
    (tmp_path / "data" / "raw" / "abdev" / "GDPa1.csv").write_text(DEMO_CSV.read_text())
    assert main(["abdev", "validate", "--pred", str(baseline_files["random"])]) == 0
    out, err = capsys.readouterr()
    assert "checked against data/raw/abdev/GDPa1.csv (the workflow's truth" in err
    assert out.strip().endswith(": valid")


def test_a_semicolon_separated_file_is_one_error_saying_so(baseline_files, tmp_path, capsys):
    text = baseline_files["random"].read_text().replace(",", ";")
    (tmp_path / "semi.csv").write_text(text)
    assert main(["abdev", "validate", "--pred", str(tmp_path / "semi.csv"), "--truth",
                 str(DEMO_CSV)]) == 1
    errors = [line for line in capsys.readouterr().out.splitlines() if ": INVALID: " in line]
    assert len(errors) == 1 and "the file looks ;-separated" in errors[0]
    assert "sep=';'" in errors[0]


def test_score_json_is_one_object_with_the_scores(write_pair, capsys):
    # 20 antibodies. HIC predicted exactly: Spearman 1.0, and the top 10 % (int(0.1 * 20) = 2
    # antibodies) predicted are the top 2 measured: recall 1.0 (HIC is negated first, on both
    # sides, which changes neither). Tm2 = i**2 predicted as -i**2, the exact reverse order:
    # Spearman -1.0, and the predicted top 2 (ab00, ab01) are the measured bottom 2: recall 0.0.
    names = [f"ab{i:02d}" for i in range(20)]
    pred, truth = write_pair(
        {"antibody_name": names, "HIC": [float(i) for i in range(20)],
         "Tm2": [float(i * i) for i in range(20)]},
        {"antibody_name": names, "HIC": [float(i) for i in range(20)],
         "Tm2": [-float(i * i) for i in range(20)]},
    )
    assert main(["abdev", "score", "--pred", str(pred), "--truth", str(truth), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)  # stdout is the JSON object and nothing else
    assert (out["file"], out["valid"], out["problems"], out["warnings"]) == (str(pred), True, [], [])
    assert (out["dataset"], out["model"], out["output"]) == ("GDPa1", "preds", None)
    by_assay = {row["assay"]: row for row in out["scores"]}
    assert set(by_assay) == {"HIC", "Tm2"}
    assert (by_assay["HIC"]["spearman"], by_assay["HIC"]["top_10_recall"]) == (1.0, 1.0)
    assert (by_assay["Tm2"]["spearman"], by_assay["Tm2"]["top_10_recall"]) == (-1.0, 0.0)
    assert by_assay["HIC"]["fold"] is None  # NaN/None cells are JSON null


def test_score_json_of_an_invalid_file_is_the_shared_check_object(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("antibody_name,HIC\na,1\na,2\n")
    assert main(["abdev", "score", "--pred", str(bad), "--truth", str(DEMO_CSV), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert (out["file"], out["valid"]) == (str(bad), False)
    assert "Found 1 duplicate antibody_name values" in out["problems"]


def test_score_json_extended_has_the_interval_rows(baseline_files, capsys):
    assert main(["abdev", "score", "--pred", str(baseline_files["random"]), "--truth",
                 str(DEMO_CSV), "--dataset", "GDPa1_cross_validation", "--extended",
                 "--n-resamples", "50", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # 5 folds + 'aggregated' + 'average' = 7 rows per assay, 5 assays: 35 rows
    assert len(out["scores"]) == 35
    assert out["extended"] and all(row["ci_low"] is None or row["ci_low"] <= row["ci_high"]
                                   for row in out["extended"])
