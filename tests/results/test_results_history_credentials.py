"""Run records written before redaction are not trusted (issue 30, item 1).

A history entry's run record written by an older scievals may hold ``base_url`` with its
password. ``history`` and ``compare`` warn once, naming the command that rewrites them;
``history --scrub`` rewrites them (and results/run_manifest.json) with the userinfo as
``***``, leaving every other value as it was.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pandas as pd
from scievals.cli import main
from scievals.common.provenance import Provenance
from scievals.common.tables import result_rows, write_result_table
from scievals.results.history import record_history

OLD_URL = "http://user:S3cretPass@gw.example:4000/v1"


def _history_with_an_old_record(tmp_path):
    results = tmp_path / "results"
    summary = results / "summary.csv"
    prov = Provenance("abdev", "GDPa1-demo_cross_validation", "f" * 64, "cfg1", git_commit="c")
    write_result_table(summary, result_rows(prov, "random", "fold=average",
                                            [{"metric": "HIC:spearman", "value": 0.1, "n": 5}]))
    hist = results / "history"
    entry = record_history(summary, hist, now=datetime(2026, 1, 2, tzinfo=UTC))
    record = {"status": "success", "command": ["snakemake", "--cores", "2"],
              "config": {"models": {"gw": {"provider": "openai", "base_url": OLD_URL}},
                         "bootstrap": {"n_resamples": 1000}}}
    old = hist / (entry.stem + ".manifest.json")
    old.write_text(json.dumps(record))
    (results / "run_manifest.json").write_text(json.dumps(record))
    return hist, old, summary


def test_history_and_compare_warn_once_and_name_the_scrub_command(tmp_path, capsys):
    hist, _, summary = _history_with_an_old_record(tmp_path)
    assert main(["history", "--history-dir", str(hist)]) == 0
    err = capsys.readouterr().err
    assert err.count("warning:") == 1
    assert "2 run record(s)" in err  # the history's copy and results/run_manifest.json
    assert f"python -m scievals history --scrub --history-dir {hist}" in err
    assert "S3cretPass" not in err
    assert main(["compare", str(summary), str(summary), "--history-dir", str(hist)]) == 0
    assert capsys.readouterr().err.count("warning:") == 1


def test_scrub_rewrites_the_records_without_credentials(tmp_path, capsys):
    hist, old, _ = _history_with_an_old_record(tmp_path)
    assert main(["history", "--scrub", "--history-dir", str(hist)]) == 0
    out = capsys.readouterr().out
    assert "2 run record(s) rewritten" in out
    for record in (old, hist.parent / "run_manifest.json"):
        text = record.read_text()
        assert "S3cretPass" not in text and "user" not in text
        data = json.loads(text)
        assert data["config"]["models"]["gw"]["base_url"] == "http://***@gw.example:4000/v1"
        assert data["config"]["bootstrap"] == {"n_resamples": 1000}  # the rest as it was
    # clean now: no warning, and a second scrub has nothing to do
    assert main(["history", "--history-dir", str(hist)]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["history", "--scrub", "--history-dir", str(hist)]) == 0
    assert "0 run record(s) rewritten" in capsys.readouterr().out
    assert isinstance(pd.read_csv(hist / "index.csv"), pd.DataFrame)
