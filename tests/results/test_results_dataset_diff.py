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
    # sha256s cut to 12 characters, as `show` does (the whole line was 1,400 characters)
    # and wrapped to 100 columns
    assert lines[:3] == [
        "DATASETS DIFFER, rows of different data cannot be compared:",
        f"  abdev: A GDPa1_cross_validation (sha256 {'a' * 12}) vs "
        "B GDPa1-demo_cross_validation (sha256",
        f"    {'d' * 12})"]
    assert lines[3] == f"A: {real}"
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


def test_many_datasets_name_only_those_that_differ_within_100_columns(tmp_path, capsys):
    # six suites of which one changed (a limited run): only that one is named, per side
    def summary(path, changed_sha):
        frames = [result_rows(Provenance("waza", f"suite-{i}", ("e" * 64 if i else changed_sha),
                                         "cfg1", git_commit="abc"), "fake", "",
                              [{"metric": "pass_rate", "value": 0.5, "n": 4}])
                  for i in range(6)]
        write_result_table(path, pd.concat(frames, ignore_index=True))
        return path

    a, b = summary(tmp_path / "a.csv", "1" * 64), summary(tmp_path / "b.csv", "2" * 64)
    assert main(["compare", str(a), str(b), "--json"]) in (0, 2)
    # --json keeps the full sha256
    assert "1" * 64 in capsys.readouterr().out
    main(["compare", str(a), str(b)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == (f"  waza: A suite-0 (sha256 {'1' * 12}) vs B suite-0 (sha256 {'2' * 12})")
    assert max(len(line) for line in lines[:2]) <= 100
    assert "suite-1" not in lines[1]
