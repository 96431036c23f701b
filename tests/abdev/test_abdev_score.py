"""score_to_tables: what the Snakemake score rule calls."""

from __future__ import annotations

import logging

import pandas as pd
import pytest
from scievals.abdev.constants import DEFAULT_FOLD_COL, REFERENCE_CV_COLUMNS
from scievals.abdev.data import DEMO_CSV, fetch_gdpa1
from scievals.abdev.score import evaluate_model, score_to_tables
from scievals.common.errors import ScievalsError
from scievals.common.io import sha256_file
from scievals.common.tables import RESULT_COLUMNS, read_result_table


@pytest.fixture(scope="module")
def demo_source(tmp_path_factory):
    folder = tmp_path_factory.mktemp("abdev_source")
    fetch_gdpa1({"source": "demo"}, folder / "GDPa1.csv", folder / "heldout.csv", folder / "source.json")
    return folder / "GDPa1.csv", folder / "source.json"


def run(pred, demo_source, tmp_path, **kw):
    truth, source = demo_source
    out, ref = tmp_path / "scores.csv", tmp_path / "reference.csv"
    table = score_to_tables(
        pred, truth, source, kw.get("model", "ridge_descriptors"), DEFAULT_FOLD_COL, 5,
        {"n_resamples": 100, "seed": 3}, "abc123", out, ref,
    )
    return table, out, ref


def test_tables_on_the_demo(baseline_files, demo_source, tmp_path):
    table, out, ref = run(baseline_files["ridge_descriptors"], demo_source, tmp_path)
    assert len(table) == 105
    reference = pd.read_csv(ref, dtype={"fold": str})
    assert list(reference.columns) == REFERENCE_CV_COLUMNS
    assert len(reference) == 35
    assert set(reference["dataset"]) == {"GDPa1-demo_cross_validation"}
    expected = pd.DataFrame(
        evaluate_model(baseline_files["ridge_descriptors"], DEMO_CSV, "ridge_descriptors",
                       "GDPa1_cross_validation", DEFAULT_FOLD_COL)
    )
    assert reference["spearman"].tolist() == pytest.approx(expected["spearman"].tolist(), rel=0, abs=1e-15)
    assert reference["fold"].tolist() == expected["fold"].tolist()

    written = read_result_table(out)
    assert list(written.columns) == RESULT_COLUMNS and len(written) == 7 * 5 * 3
    assert written["condition"].drop_duplicates().tolist() == [
        "fold=0", "fold=1", "fold=2", "fold=3", "fold=4", "fold=aggregated", "fold=average"
    ]
    assert written["metric"].head(3).tolist() == ["HIC:spearman", "HIC:top_10_recall", "HIC:top_10_recall_tie_robust"]
    assert set(written["benchmark"]) == {"abdev"}
    assert set(written["dataset"]) == {"GDPa1-demo_cross_validation"}
    assert set(written["dataset_sha256"]) == {sha256_file(DEMO_CSV)}
    assert set(written["config_hash"]) == {"abc123"}
    average = written[(written["condition"] == "fold=average") & (written["metric"] == "HIC:spearman")].iloc[0]
    ref_average = expected[(expected["fold"] == "average") & (expected["assay"] == "HIC")]["spearman"].iloc[0]
    assert average["value"] == pytest.approx(ref_average, abs=1e-15)
    assert average["ci_low"] < average["value"] < average["ci_high"]
    assert average["n"] == 242


def test_invalid_predictions_write_nothing(demo_source, tmp_path, caplog):
    bad = tmp_path / "bad.csv"
    bad.write_text("antibody_name,HIC\ndemomab-001,1.0\ndemomab-001,oops\n")
    with pytest.raises(ScievalsError, match="2 validation error"):
        run(bad, demo_source, tmp_path)
    assert not (tmp_path / "scores.csv").exists() and not (tmp_path / "reference.csv").exists()


def test_warnings_are_logged(baseline_files, demo_source, tmp_path, caplog):
    frame = pd.read_csv(baseline_files["random"]).iloc[5:]  # 5 antibodies without prediction
    pred = tmp_path / "partial.csv"
    frame.to_csv(pred, index=False)
    with caplog.at_level(logging.WARNING):
        run(pred, demo_source, tmp_path)
    assert "5 of 246 truth antibodies have no prediction" in caplog.text


def test_truth_changed_after_download_is_an_error(baseline_files, demo_source, tmp_path):
    truth, source = demo_source
    copy = tmp_path / "truth.csv"
    copy.write_bytes(truth.read_bytes() + b"\n")
    with pytest.raises(ScievalsError, match="differs from the one recorded"):
        score_to_tables(baseline_files["random"], copy, source, "random", DEFAULT_FOLD_COL, 5,
                        {"n_resamples": 0, "seed": 0}, "x", tmp_path / "o.csv", tmp_path / "r.csv")


def test_infinite_prediction_fails_the_job_naming_the_row(baseline_files, demo_source, tmp_path):
    frame = pd.read_csv(baseline_files["ridge_descriptors"])
    frame.loc[3, "Titer"] = float("-inf")
    pred = tmp_path / "inf.csv"
    frame.to_csv(pred, index=False)
    name = frame.loc[3, "antibody_name"]
    with pytest.raises(ScievalsError, match=rf"column 'Titer' has 1 infinite value\(s\) \(line 5 \({name}\): -inf\)"):
        run(pred, demo_source, tmp_path)
    assert not (tmp_path / "scores.csv").exists() and not (tmp_path / "reference.csv").exists()


# --- several files in one job (abdev_score_own_<k>) ---------------------------------------


def targets_for(names_and_preds, tmp_path, origin_dir=""):
    from scievals.abdev.score import ScoreTarget

    return [
        ScoreTarget(name, str(pred), str(tmp_path / f"{name}.csv"), str(tmp_path / f"{name}.reference.csv"),
                    f"{origin_dir}/{name}.csv" if origin_dir else "")
        for name, pred in names_and_preds
    ]


def test_a_batch_scores_each_file_as_a_job_of_its_own_would(baseline_files, demo_source, tmp_path):
    from scievals.abdev.score import score_files

    truth, source = demo_source
    alone = tmp_path / "alone"
    alone.mkdir()
    single = {}
    for name in ("random", "ridge_descriptors"):
        single[name] = score_to_tables(baseline_files[name], truth, source, name, DEFAULT_FOLD_COL, 5,
                                       {"n_resamples": 100, "seed": 3}, "abc123",
                                       alone / f"{name}.csv", alone / f"{name}.reference.csv")
    batch = tmp_path / "batch"
    batch.mkdir()
    targets = targets_for([(n, baseline_files[n]) for n in ("random", "ridge_descriptors")], batch)
    tables = score_files(targets, truth, source, DEFAULT_FOLD_COL, 5, {"n_resamples": 100, "seed": 3}, "abc123")
    for name, table in zip(("random", "ridge_descriptors"), tables):
        # the same bytes as each file scored by a job of its own (same draws, same truth)
        assert (batch / f"{name}.csv").read_bytes() == (alone / f"{name}.csv").read_bytes()
        assert (batch / f"{name}.reference.csv").read_bytes() == (alone / f"{name}.reference.csv").read_bytes()
        pd.testing.assert_frame_equal(table, single[name])
    assert set(tables[0]["model"]) == {"random"} and set(tables[1]["model"]) == {"ridge_descriptors"}


def test_a_batch_with_invalid_files_scores_the_valid_one_and_keeps_each_error(
        baseline_files, demo_source, tmp_path, caplog):
    """Issue 29 point 6: a bad own file no longer costs the valid file of its score job its
    scores; the bad one's error stands where its table would be, so the summary job reading
    it fails the run with that line (naming the user's file, not the job's copy)."""
    from scievals.abdev.score import score_files
    from scievals.common.table_files import read_rows
    from scievals.common.tables import read_result_table

    truth, source = demo_source
    (tmp_path / "copies").mkdir()
    bad1 = tmp_path / "copies" / "bad1.csv"
    bad1.write_text("name,HIC\nx,1.0\n")
    bad2 = tmp_path / "copies" / "bad2.csv"
    bad2.write_text("antibody_name,HIC\ndemomab-001,oops\n")
    targets = targets_for([("good", baseline_files["random"]), ("bad1", bad1), ("bad2", bad2)], tmp_path,
                          origin_dir="predictions/abdev")
    with caplog.at_level(logging.ERROR):
        [table] = score_files(targets, truth, source, DEFAULT_FOLD_COL, 5,
                              {"n_resamples": 0, "seed": 0}, "x")
    assert set(table["model"]) == {"good"}
    # 5 assays x 7 conditions (5 folds, aggregated, average) x 3 metrics = 105 rows, on disk
    assert len(table) == len(read_result_table(tmp_path / "good.csv")) == 105
    # each file's own error is in the log, naming the user's file (not the job's copy)
    assert "predictions/abdev/bad1.csv: 2 validation error(s): Missing required column 'antibody_name'" in caplog.text
    assert "predictions/abdev/bad2.csv:" in caplog.text and "non-numeric" in caplog.text
    for name, words in (("bad1", "Missing required column 'antibody_name'"), ("bad2", "non-numeric")):
        for reader in (read_result_table, read_rows):
            with pytest.raises(ScievalsError) as err:
                reader(tmp_path / f"{name}.csv")
            assert err.value.where == f"predictions/abdev/{name}.csv" and words in err.value.problem
            assert "copies" not in str(err.value)


def test_a_batch_of_only_invalid_files_fails_and_writes_no_table(demo_source, tmp_path):
    from scievals.abdev.score import score_files

    truth, source = demo_source
    bad1, bad2 = tmp_path / "bad1.in", tmp_path / "bad2.in"
    bad1.write_text("name,HIC\nx,1.0\n")
    bad2.write_text("antibody_name,HIC\ndemomab-001,oops\n")
    with pytest.raises(ScievalsError) as err:
        score_files(targets_for([("bad1", bad1), ("bad2", bad2)], tmp_path, origin_dir="predictions/abdev"),
                    truth, source, DEFAULT_FOLD_COL, 5, {"n_resamples": 0, "seed": 0}, "x")
    assert err.value.where == "predictions/abdev/bad1.csv, predictions/abdev/bad2.csv"
    assert "2 of the job's 2 prediction files are invalid" in err.value.problem
    assert not list(tmp_path.glob("*.csv")), "a failed batch wrote a table"


def test_one_invalid_file_in_a_batch_is_its_own_error(demo_source, tmp_path):
    from scievals.abdev.score import score_files

    truth, source = demo_source
    bad = tmp_path / "bad.csv"
    bad.write_text("name,HIC\nx,1.0\n")
    with pytest.raises(ScievalsError) as err:
        score_files(targets_for([("bad", bad)], tmp_path, origin_dir="predictions/abdev"), truth, source,
                    DEFAULT_FOLD_COL, 5, {"n_resamples": 0, "seed": 0}, "x")
    assert err.value.where == "predictions/abdev/bad.csv"
    assert "Missing required column 'antibody_name'" in err.value.problem
