"""The workflow's bookkeeping trusts nothing it has not checked (issue 34 items 4, 5 and 8): a
damaged job file is written again, a full jobs folder is one line saying so, own files whose
bytes change but keep their mtime are scored again, and an own file that is a link to a
system file leaves nothing of it in results/."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scievals.abdev.constants import PROPERTY_LIST
from scievals.abdev.data import DEMO_CSV
from scievals.common.job_spec import SPEC_DIR

from .conftest import copy_default_run, copy_workflow, snakemake

pytestmark = pytest.mark.slow
OVERLAY = "abdev:\n  source: demo\n"
RUN = ("abdev", "--cores", "2", "--configfile", "over.yaml")
VALUES = ["value", "ci_low", "ci_high", "n"]


def _own_files(own: Path) -> None:
    """Two own files that score differently: the truth itself (Spearman 1 on every assay it
    has) and the truth with its rows' values reversed (another ranking)."""
    truth = pd.read_csv(DEMO_CSV)
    assays = [c for c in PROPERTY_LIST if c in truth.columns]
    exact = truth[["antibody_name", *assays]]
    exact.to_csv(own / "own_a.csv", index=False)
    flipped = exact.copy()
    flipped[assays] = np.flipud(exact[assays].to_numpy())
    flipped.to_csv(own / "own_b.csv", index=False)


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> Path:
    """A copy of the workflow that has scored two own abdev files (target abdev)."""
    workdir = copy_workflow(tmp_path_factory.mktemp("own") / "scievals")
    (workdir / "over.yaml").write_text(OVERLAY)
    own = workdir / "predictions" / "abdev"
    own.mkdir(parents=True)
    _own_files(own)
    snakemake(workdir, *RUN)
    return workdir


@pytest.fixture
def work(scored, tmp_path) -> Path:
    workdir = tmp_path / "scievals"
    shutil.copytree(scored, workdir, symlinks=True)  # copy2: mtimes kept
    return workdir


def _values(workdir: Path, model: str) -> pd.DataFrame:
    table = pd.read_csv(workdir / "results" / "abdev" / "scores" / f"{model}.csv")
    assert set(table["model"]) == {model}
    return table.set_index(["condition", "metric"])[VALUES].sort_index()


def _perfect(table: pd.DataFrame) -> bool:
    """Whether every pooled Spearman of ``table`` is 1 (predictions ranked as the truth)."""
    pooled = table.xs("fold=aggregated", level="condition")
    spearman = pooled[pooled.index.str.endswith(":spearman")]["value"]
    return len(spearman) > 0 and bool(np.isclose(spearman, 1.0).all())


def test_own_files_swapped_with_their_mtimes_are_scored_again_under_their_new_names(work):
    """Issue 34 item 5: after `mv a t; mv b a; mv t b` (rename keeps mtimes, older than the
    outputs) a run did nothing, and each name kept the other file's scores."""
    own = work / "predictions" / "abdev"
    before = {m: _values(work, m) for m in ("own_a", "own_b")}
    # the exact truth ranks perfectly: a different table from the reversed one
    assert _perfect(before["own_a"]) and not _perfect(before["own_b"])
    assert not before["own_a"]["value"].equals(before["own_b"]["value"])
    stamps = {m: (own / f"{m}.csv").stat().st_mtime_ns for m in ("own_a", "own_b")}
    os.rename(own / "own_a.csv", own / "swap.tmp")
    os.rename(own / "own_b.csv", own / "own_a.csv")
    os.rename(own / "swap.tmp", own / "own_b.csv")
    # each name now has the other's mtime: both older than every output
    assert (own / "own_a.csv").stat().st_mtime_ns == stamps["own_b"]
    snakemake(work, *RUN)
    # each name has its new file's scores: the ones that file got when scored before
    pd.testing.assert_frame_equal(_values(work, "own_a"), before["own_b"])
    pd.testing.assert_frame_equal(_values(work, "own_b"), before["own_a"])
    summary = pd.read_csv(work / "results" / "abdev" / "summary.csv")
    assert _perfect(summary[summary["model"] == "own_b"].set_index(["condition", "metric"]))

    # a backup restored as `cp -p` restores it (content and old mtime): scored again too
    backup = work / "backup_b.csv"
    shutil.copy2(own / "own_a.csv", backup)  # own_a holds the reversed file now
    shutil.copy2(own / "own_b.csv", own / "own_a.csv")
    snakemake(work, *RUN)
    pd.testing.assert_frame_equal(_values(work, "own_a"), before["own_a"])
    shutil.copy2(backup, own / "own_a.csv")
    snakemake(work, *RUN)
    pd.testing.assert_frame_equal(_values(work, "own_a"), before["own_b"])


def _job_files(workdir: Path) -> list[Path]:
    return sorted((workdir / SPEC_DIR).glob("*.json"))


def test_truncated_job_files_are_written_again_and_the_run_succeeds(work):
    """Issue 34 item 4: a job file cut short (a crash after the rename, a full disk) failed
    every later run with a JSONDecodeError naming no file."""
    for path in _job_files(work):
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    (work / "results" / "abdev" / "summary.csv").unlink()  # its job must run again
    snakemake(work, *RUN)
    assert (work / "results" / "abdev" / "summary.csv").is_file()
    files = _job_files(work)
    # every job file the run named holds what its name (a hash of its content) says
    named = [p for p in files if hashlib.sha256(p.read_bytes()).hexdigest()[:24] == p.stem]
    assert named == files and len(files) >= 10


# Snakemake started with every write into the jobs folder answered as a full disk answers it
# (ENOSPC), as tests/common/test_common_full_disk.py simulates one.
FULL_DISK = textwrap.dedent("""
    import errno, os, pathlib, sys

    def full(write):
        def refused(self, data, *args, **kwargs):
            if "scievals/jobs" in str(self):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
            return write(self, data, *args, **kwargs)
        return refused

    pathlib.Path.write_bytes = full(pathlib.Path.write_bytes)
    pathlib.Path.write_text = full(pathlib.Path.write_text)
    from snakemake.cli import main
    sys.argv = ["snakemake", *sys.argv[1:]]
    main()
""")


def test_a_full_jobs_folder_is_one_line_saying_disk_full(work):
    shutil.rmtree(work / SPEC_DIR)
    (work / "full_disk.py").write_text(FULL_DISK)
    proc = subprocess.run([sys.executable, "full_disk.py", *RUN], cwd=work,
                          env=dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit"),
                          capture_output=True, text=True, timeout=600, check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 1
    assert "Traceback" not in text and "writable" not in text
    [line] = [line for line in text.splitlines() if "disk full" in line]
    assert line.startswith("error: .snakemake/scievals/jobs/") and line.endswith(
        ": job file not written: disk full (No space left on device); free space on that disk "
        "(or run in a working directory on another), then run the same snakemake command again")


def test_a_refused_symlinked_own_file_leaves_nothing_of_its_target_in_results(work, tmp_path):
    """Issue 34 item 8: `y.csv -> /etc/passwd` had its target copied into results/ before it
    was refused, and the copy stayed. A stand-in for the system file, with a marker to find."""
    target = tmp_path / "passwd"
    target.write_text("root:x:0:0:root:/root:/bin/bash\nmarker-4f1c9e:x:1000:1000::/home:/bin/sh\n")
    (work / "predictions" / "abdev" / "y.csv").symlink_to(target)
    proc = snakemake(work, *RUN, check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 1
    assert "Traceback" not in text
    assert "  predictions/abdev/y.csv: Missing required column 'antibody_name'" in text
    leaked = [p for p in (work / "results").rglob("*")
              if p.is_file() and b"marker-4f1c9e" in p.read_bytes()]
    assert leaked == []
    # the valid own files beside it are still scored
    assert _perfect(_values(work, "own_a"))


def test_an_own_file_refused_for_its_rows_leaves_no_copy_in_results(work):
    """Issue 34 item 8: a file with a right header but a refused row (a value that is no
    number) passes the copy job's header check; once the score job refuses it, its copy in
    results/ holds only the error, none of the user's rows."""
    truth = pd.read_csv(DEMO_CSV)
    bad = truth[["antibody_name", "HIC"]].astype({"HIC": object})
    bad.loc[bad.index[3], "HIC"] = "marker-7d2a"  # one cell that is no number
    bad.to_csv(work / "predictions" / "abdev" / "z.csv", index=False)
    proc = snakemake(work, *RUN, check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "Traceback" not in text
    assert "predictions/abdev/z.csv" in text
    copy = work / "results" / "abdev" / "predictions" / "z.csv"
    assert copy.is_file()  # the copy job's output stays (Snakemake needs it), emptied
    text = copy.read_text()
    # one line: the stored error (which names the offending row, line 5), no row of the file
    assert len(text.splitlines()) == 1 and text.startswith("# scievals: not scored: ")
    others = [name for name in truth["antibody_name"] if name != truth["antibody_name"].iloc[3]]
    assert not [name for name in others if name in text]
    assert _perfect(_values(work, "own_a"))  # the valid file beside it is scored


def test_own_gating_files_swapped_with_their_mtimes_are_scored_again(default_run_template,
                                                                    tmp_path):
    """Item 5 for the benchmarks whose own files are imported one per job (`<b>_import` of
    gating, autogkb and waza: rules/stages.smk gives all three the same own_sha256 param),
    shown on gating: the marker baseline's hierarchies against bare roots."""
    # the default run (the session's, copied) made the baseline's predictions
    workdir = copy_default_run(default_run_template, tmp_path / "scievals")
    baseline = "results/gating/predictions/marker_baseline.jsonl"
    lines = [json.loads(line) for line in (workdir / baseline).read_text().splitlines()]
    own = workdir / "predictions" / "gating"
    own.mkdir(parents=True)
    bare = {"name": "All events", "markers": [], "children": []}
    for name, tree in (("own_a", None), ("own_b", bare)):
        (own / f"{name}.jsonl").write_text("".join(
            json.dumps({"case_id": r["case_id"], "hierarchy": tree or r["hierarchy"]}) + "\n"
            for r in lines))
    tables = [f"results/gating/scores/{m}.csv" for m in ("own_a", "own_b")]
    snakemake(workdir, "--cores", "2", *tables)
    before = {m: _gating_values(workdir, m) for m in ("own_a", "own_b")}
    assert not before["own_a"]["value"].equals(before["own_b"]["value"])
    os.rename(own / "own_a.jsonl", own / "swap.tmp")
    os.rename(own / "own_b.jsonl", own / "own_a.jsonl")
    os.rename(own / "swap.tmp", own / "own_b.jsonl")
    snakemake(workdir, "--cores", "2", *tables)
    pd.testing.assert_frame_equal(_gating_values(workdir, "own_a"), before["own_b"])
    pd.testing.assert_frame_equal(_gating_values(workdir, "own_b"), before["own_a"])


def _gating_values(workdir: Path, model: str) -> pd.DataFrame:
    table = pd.read_csv(workdir / "results" / "gating" / "scores" / f"{model}.csv")
    assert set(table["model"]) == {model}
    keys = ["dataset", "condition", "metric"]
    return table.set_index(keys)[VALUES].sort_index()
