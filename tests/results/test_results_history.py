import json
from datetime import UTC, datetime

import pandas as pd
import pytest
from scievals.cli import main
from scievals.common import notices as run_notices
from scievals.common.errors import ScievalsError
from scievals.common.provenance import Provenance, git_commit
from scievals.common.tables import result_rows, write_result_table
from scievals.results.compare import compare
from scievals.results.history import read_index, record_history, resolve


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
    assert "No result changed" in capsys.readouterr().out
    assert main(["compare", str(a), str(b), "--fail-on-change"]) == 2
    assert "1 result difference(s) (value 1):" in capsys.readouterr().out
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


# --- a damaged history never costs the summary (issue 14, items 6 and 7) --------------------

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
T1 = datetime(2026, 1, 3, tzinfo=UTC)


@pytest.fixture
def notices(tmp_path):
    """The notices the history records, as the summarize job it runs in would keep them."""
    folder = tmp_path / "notices"
    run_notices.start_job("summarize", {}, [], folder)
    yield lambda: run_notices.collect(folder)
    run_notices.end_job()


@pytest.mark.parametrize(
    "content",
    [b"", b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe binary", b"a,b\n1,2\n",
     b"recorded_utc,git_commit,file,sha256,rows,benchmarks\nx,y,../../etc/passwd,zz,1,abdev\n"],
    ids=["empty", "binary", "wrong-columns", "hostile-entry"],
)
def test_bad_index_is_set_aside_and_rebuilt_from_snapshots(tmp_path, content, notices, capsys):
    summary = _summary(tmp_path / "summary.csv", {"random": 0.1})
    hist = tmp_path / "history"
    first = record_history(summary, hist, now=T0)
    (hist / "index.csv").write_bytes(content)
    # `history` and `compare @latest` say what is wrong in one line, exit 1.
    assert main(["history", "--history-dir", str(hist)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {hist / 'index.csv'}") and err.count("\n") == 1
    assert main(["compare", "@previous", "@latest", "--history-dir", str(hist)]) == 1
    assert capsys.readouterr().err.count("\n") == 1
    # The next summary is recorded; the bad index is kept aside, byte for byte.
    _summary(summary, {"random": 0.2})
    second = record_history(summary, hist, now=T1)
    aside = list(hist.glob("index.csv.damaged-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == content
    assert list(read_index(hist)["file"]) == [first.name, second.name]
    assert resolve("@previous", hist) == first
    [notice] = notices()
    assert (notice.kind, notice.benchmark) == ("history_set_aside", "workflow")
    assert "rebuilt from 1 stored snapshot(s)" in notice.message


def test_history_path_that_is_a_file_is_set_aside(tmp_path, notices, capsys):
    summary = _summary(tmp_path / "summary.csv", {"random": 0.1})
    hist = tmp_path / "history"
    hist.write_text("not a folder")
    assert main(["history", "--history-dir", str(hist)]) == 1
    assert "is a file, not the history folder" in capsys.readouterr().err
    stored = record_history(summary, hist, now=T0)
    assert stored.parent == hist and hist.is_dir()
    [aside] = tmp_path.glob("history.damaged-*")
    assert aside.read_text() == "not a folder"
    assert "a new history was started" in notices()[0].message


def test_truncated_snapshot_is_refused_and_restored_by_the_next_run(tmp_path, capsys):
    summary = _summary(tmp_path / "summary.csv", {"random": 0.1, "ridge": 0.4})
    hist = tmp_path / "history"
    snapshot = record_history(summary, hist, now=T0)
    good = snapshot.read_bytes()
    snapshot.write_bytes(good[: len(good) // 2])
    with pytest.raises(ScievalsError, match=r"history entry @latest is damaged"):
        resolve("@latest", hist)
    assert main(["compare", str(summary), "@latest", "--history-dir", str(hist)]) == 1
    assert "is damaged" in capsys.readouterr().err
    assert main(["history", "--history-dir", str(hist)]) == 0
    assert capsys.readouterr().out.splitlines()[1].rstrip().endswith("damaged")
    # Same summary again: not a new entry, but the damaged snapshot is stored again.
    assert record_history(summary, hist, now=T1) == snapshot
    assert snapshot.read_bytes() == good and len(read_index(hist)) == 1
    snapshot.unlink()
    with pytest.raises(ScievalsError, match="is missing"):
        resolve("@0", hist)
    record_history(summary, hist, now=T1)
    assert resolve("@0", hist) == snapshot


def test_unwritable_history_does_not_fail_the_summary(tmp_path, notices, monkeypatch):
    import shutil

    summary = _summary(tmp_path / "summary.csv", {"random": 0.1})

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(shutil, "copyfile", refuse)
    assert record_history(summary, tmp_path / "history", now=T0) is None
    assert notices()[0].kind == "history_not_updated"


class _Outputs(list):
    """Snakemake's Namedlist, as far as merge_summary.py uses it (the summary, then the
    leaderboard named ``leaderboard``)."""

    @property
    def leaderboard(self):
        return self[1]


def test_summarize_job_writes_the_summary_whatever_the_history(tmp_path, monkeypatch, notices):
    """The merged summary's entry script with an empty index.csv: summary written, exit 0."""
    import runpy
    import types
    from pathlib import Path

    import scievals

    monkeypatch.chdir(tmp_path)  # the job's notices go to logs/notices/ under here
    part = _summary(tmp_path / "abdev.csv", {"random": 0.1})
    hist = tmp_path / "history"
    hist.mkdir()
    (hist / "index.csv").write_text("")
    out = tmp_path / "summary.csv"
    board = tmp_path / "leaderboard.md"
    scripts = Path(scievals.__file__).parents[1]
    smk = types.SimpleNamespace(
        input=[str(part)], output=_Outputs([str(out), str(board)]), log=[], rule="summarize_all",
        wildcards={},
        scriptdir=str(scripts),
        params=types.SimpleNamespace(history_dir=str(hist), keys=lambda: ["history_dir"]),
    )
    runpy.run_path(str(scripts / "merge_summary.py"), init_globals={"snakemake": smk})
    assert out.read_bytes() == part.read_bytes()
    assert "| random |" in board.read_text()
    assert len(read_index(hist)) == 1 and list(hist.glob("index.csv.damaged-*"))
    [notice] = run_notices.collect(tmp_path / "logs" / "notices")
    assert (notice.kind, notice.job) == ("history_set_aside", "summarize_all")


def test_negative_tolerance_is_refused(tmp_path, capsys):
    a = _summary(tmp_path / "a.csv", {"random": 0.1})
    assert main(["compare", str(a), str(a), "--tolerance", "-1"]) == 1
    assert capsys.readouterr().err == (
        "error: --tolerance: -1.0 is not a tolerance (give 0 or a positive number)\n"
    )
    with pytest.raises(ScievalsError):
        compare(a, a, tolerance=float("nan"))


def test_compare_a_folder_is_one_line(tmp_path, capsys):
    a = _summary(tmp_path / "a.csv", {"random": 0.1})
    # a folder is read as logs (compare LOG_A LOG_B takes folders): its summary CSV is no log,
    # said in one line naming that file
    assert main(["compare", str(tmp_path), str(a)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {a}: a CSV without the columns")


def test_history_fits_a_terminal_and_json_keeps_the_full_hashes(tmp_path, capsys,
                                                                 monkeypatch, request):
    hist = tmp_path / "history"
    commit = "0123456789abcdef" * 2 + "01234567"  # a 40-character git commit
    monkeypatch.setenv("SCIEVALS_GIT_COMMIT", commit)
    git_commit.cache_clear()  # read once per process: this test's commit, then the usual one
    request.addfinalizer(git_commit.cache_clear)
    for day, value in ((2, 0.1), (3, 0.2)):
        summary = _summary(tmp_path / "summary.csv", {"random": value})
        record_history(summary, hist, now=datetime(2026, 1, day, tzinfo=UTC))
    index = read_index(hist)
    assert main(["history", "--history-dir", str(hist)]) == 0
    lines = capsys.readouterr().out.splitlines()
    # was 228 columns with full hashes; the last line names the (here long) folder
    assert max(len(line) for line in lines[:-1]) <= 100, lines
    assert lines[-1] == f"Files in {hist}/; --json gives their names and the full hashes."
    assert lines[1].split()[:3] == ["@0", "2026-01-02", "00:00:00"]
    assert index["git_commit"][0] == commit and commit[:12] in lines[1] and commit not in lines[1]
    assert index["sha256"][0][:12] in lines[1] and index["sha256"][0] not in lines[1]
    assert main(["history", "--history-dir", str(hist), "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["sha256"] for r in records] == list(index["sha256"])
    assert records[0]["git_commit"] == index["git_commit"][0]
    assert records[0]["file"] == index["file"][0]
