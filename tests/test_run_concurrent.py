"""Two ``python -m scievals run`` in one folder (issue 46 item 3): the second is refused in
one line while the first holds the folder, and a run whose Snakemake ran another model than
the one asked for does not exit 0. Snakemake is replaced by a stand-in that writes what a
real run's end writes (the run record), so no workflow runs here."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from scievals import run
from scievals.cli import main
from scievals.common import run_lock


class FakeSnakemake:
    """Popen stand-in: records the command, writes a run record naming ``ran`` as the
    gating models (what the run's Snakemake read from the overlay), exits ``code``."""

    def __init__(self, ran: list[str], code: int = 0, started: str | None = None):
        self.ran, self.code, self.started, self.commands = ran, code, started, []

    def __call__(self, command, **kwargs):
        self.commands.append(command)
        record = {"status": "success",
                  "started_utc": self.started or run.now_utc(),
                  "config": {"gating": {"models": self.ran}}}
        (run.Path("results")).mkdir(exist_ok=True)
        (run.Path("results") / "run_manifest.json").write_text(json.dumps(record))
        return self

    def wait(self, timeout=None):
        return self.code


def test_a_run_whose_snakemake_ran_another_model_does_not_exit_0(tmp_path, monkeypatch,
                                                                 capsys):
    # what issue 46 measured: alpha's Snakemake read beta's overlay and ran beta
    monkeypatch.chdir(tmp_path)
    fake = FakeSnakemake(ran=["marker_baseline", "beta"])
    monkeypatch.setattr(run.subprocess, "Popen", fake)
    assert main(["run", "gating", "--model", "mock/alpha"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: results/run_manifest.json")
    assert "no gating results of alpha" in err


def test_a_run_that_ran_its_model_exits_0(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    fake = FakeSnakemake(ran=["marker_baseline", "alpha"])
    monkeypatch.setattr(run.subprocess, "Popen", fake)
    assert main(["run", "gating", "--model", "mock/alpha"]) == 0
    assert capsys.readouterr().err == ""
    # the lock is released and says nothing once the run is over
    assert (tmp_path / ".scievals" / "run" / ".lock").read_text() == ""


@pytest.mark.parametrize(("in_summary", "code"), [(["marker_baseline"], 1),
                                                   (["marker_baseline", "alpha"], 0)])
def test_after_an_up_to_date_run_the_summary_must_hold_the_model(in_summary, code, tmp_path,
                                                                  monkeypatch, capsys):
    # nothing to be done: Snakemake writes no record, so the one on disk (older) is not
    # this run's; the summary must hold the model instead
    monkeypatch.chdir(tmp_path)
    fake = FakeSnakemake(ran=["marker_baseline", "alpha"], started="2000-01-01T00:00:00Z")
    monkeypatch.setattr(run.subprocess, "Popen", fake)
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "summary.csv").write_text(
        "benchmark,dataset,model,condition,metric,value,ci_low,ci_high,n,dataset_sha256,"
        "scievals_version,git_commit,config_hash\n" + "".join(
            f"gating,demo,{m},,hierarchy_f1,0.5,0.4,0.6,15,abc,0.1,abc,abc\n"
            for m in in_summary))
    assert main(["run", "gating", "--model", "mock/alpha"]) == code
    err = capsys.readouterr().err
    if code:
        assert err == ("error: results/summary.csv: the summary has no gating results of "
                       "alpha, which this run asked for (was the folder's config changed while "
                       "it ran?) (run the same command again, one run at a time in this "
                       "folder)\n")
    else:
        assert err == ""


HOLDER = textwrap.dedent("""
    import sys, time
    from scievals.common.run_lock import run_lock
    with run_lock(sys.argv[1], "run gating --model mock/alpha"):
        print("held", flush=True)
        time.sleep(60)
""")


def test_a_second_run_is_refused_in_one_line_while_the_first_holds_the_folder(
        tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / ".scievals" / "run"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        fake = FakeSnakemake(ran=["marker_baseline", "beta"])
        monkeypatch.setattr(run.subprocess, "Popen", fake)
        assert main(["run", "gating", "--model", "mock/beta"]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert f"pid {holder.pid}: run gating --model mock/alpha" in err
        assert "wait for it to end" in err
        assert fake.commands == []  # beta's Snakemake never started...
        assert not (folder / "gating.yaml").exists()  # ...nor was alpha's overlay replaced
    finally:
        holder.kill()
        holder.wait()
    # a killed holder leaves no lock behind
    with run_lock.run_lock(folder, "next"):
        pass


def test_the_lock_file_of_a_dead_run_does_not_lock(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / ".lock").write_text(json.dumps({"pid": 999999, "run": "old"}))
    with run_lock.run_lock(folder, "new"):
        assert json.loads((folder / ".lock").read_text())["run"] == "new"


@pytest.mark.parametrize("junk", [b"", b"not json", b'{"pid": "x"}'])
def test_an_unreadable_lock_file_still_refuses_in_one_line(tmp_path, junk):
    folder = tmp_path / "run"
    with run_lock.run_lock(folder, "first"):
        (folder / ".lock").write_bytes(junk)
        with pytest.raises(run_lock.ScievalsError) as caught, \
                run_lock.run_lock(folder, "second"):
            pass
    assert "another `python -m scievals run` is running" in caught.value.one_line()
