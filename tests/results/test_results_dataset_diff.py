"""compare: a demo-vs-real comparison says so first; @previous right after the first run."""

from datetime import UTC, datetime

import pandas as pd
from scievals.cli import main
from scievals.common.provenance import Provenance
from scievals.common.tables import result_rows, write_result_table
from scievals.results.history import record_history

REAL = ("GDPa1_cross_validation", "a" * 64)
DEMO = ("GDPa1-demo_cross_validation", "d" * 64)
GATING = ("OMIP-verified", "c" * 64)


def _summary(path, abdev_data, models=("random", "ridge")):
    frames = [
        result_rows(Provenance("abdev", *abdev_data, "cfg1", git_commit="abc"), model,
                    "fold=average", [{"metric": "HIC:spearman", "value": 0.1, "n": 5}])
        for model in models
    ] + [result_rows(Provenance("gating", *GATING, "cfg1", git_commit="abc"), "baseline",
                     "baseline", [{"metric": "hierarchy_f1", "value": 0.4, "n": 15}])]
    write_result_table(path, pd.concat(frames, ignore_index=True))
    return path


def test_real_vs_demo_says_datasets_differ_first_with_names_and_sha256(tmp_path, capsys):
    real = _summary(tmp_path / "real.csv", REAL)
    demo = _summary(tmp_path / "demo.csv", DEMO)
    assert main(["compare", str(real), str(demo)]) == 0
    lines = capsys.readouterr().out.splitlines()
    # Only abdev differs; gating scored the same data on both sides and is not named.
    assert lines[0] == (
        "DATASETS DIFFER, rows of different data cannot be compared: abdev: "
        f"A GDPa1_cross_validation (sha256 {'a' * 64}) vs "
        f"B GDPa1-demo_cross_validation (sha256 {'d' * 64})")
    assert lines[1] == f"A: {real}"
    # then the details: 2 rows only in A and 2 only in B (random, ridge on each side)
    assert "2 row(s) only in A:" in lines and "2 row(s) only in B:" in lines


def test_same_datasets_print_no_dataset_line(tmp_path, capsys):
    a = _summary(tmp_path / "a.csv", DEMO)
    b = _summary(tmp_path / "b.csv", DEMO, models=("random",))
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "DATASETS DIFFER" not in out and out.startswith("A: ")


def test_previous_right_after_the_first_run_says_what_to_do(tmp_path, capsys):
    hist = tmp_path / "history"
    record_history(_summary(tmp_path / "s.csv", DEMO), hist, now=datetime(2026, 1, 2, tzinfo=UTC))
    assert main(["compare", "@previous", "@latest", "--history-dir", str(hist)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [(
        f"error: {hist}/index.csv: only one summary recorded so far (@0 = @latest), so there "
        "is no @previous to compare with yet (re-run after a change (config, models, a "
        "prediction file) to record a second one, or compare a saved copy: python -m "
        "scievals compare OLD.csv results/summary.csv)")]
