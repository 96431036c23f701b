"""A summary that loses or gains models against the newest history entry is said at the end
of the run that changed it (issue 29, point 5), with where the lost tables still are."""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd
import pytest
from scievals.common import notices
from scievals.common.provenance import Provenance
from scievals.common.tables import result_rows, write_result_table
from scievals.results.history import model_changes, record_history


def _summary(path, models):
    """``models``: (benchmark, model) -> number of metric rows."""
    frames = []
    for (bench, model), rows in models.items():
        prov = Provenance(bench, f"{bench}-demo", "f" * 64, "cfg1", git_commit="abc")
        frames.append(result_rows(prov, model, "c", [{"metric": f"m{i}", "value": 0.5, "n": 3}
                                                     for i in range(rows)]))
    write_result_table(path, pd.concat(frames, ignore_index=True))
    return path


@pytest.fixture
def in_job(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "logs" / "notices"
    notices.start_job("summarize_all", {}, ["results/summary.csv"], folder)
    yield folder
    notices.end_job()


def test_model_changes_lists_lost_models_with_their_rows_and_gained_ones():
    old = pd.DataFrame({"benchmark": ["gating"] * 3 + ["abdev"], "model": ["b", "gpt", "gpt", "r"]})
    new = pd.DataFrame({"benchmark": ["gating", "abdev", "abdev"], "model": ["b", "r", "mine"]})
    assert model_changes(new, old) == {"gating": {"lost": [("gpt", 2)], "gained": []},
                                       "abdev": {"lost": [], "gained": ["mine"]}}
    assert model_changes(old, old) == {}


def test_a_run_that_drops_an_llm_says_which_and_where_its_tables_are(in_job, tmp_path):
    (tmp_path / "results" / "gating" / "scores").mkdir(parents=True)
    (tmp_path / "results" / "gating" / "scores" / "gpt.csv").write_text("kept")
    summary = tmp_path / "results" / "summary.csv"
    hist = tmp_path / "results" / "history"
    first = record_history(_summary(summary, {("gating", "base"): 2, ("gating", "gpt"): 108}),
                           hist, now=datetime(2026, 1, 1, tzinfo=UTC))
    started = notices.now_utc()
    record_history(_summary(summary, {("gating", "base"): 2}), hist,
                   now=datetime(2026, 1, 2, tzinfo=UTC))
    [said] = notices.collect(in_job, since=started)
    assert (said.kind, said.benchmark, said.once) == ("models_changed", "gating", True)
    assert "no longer has gpt (108 rows)" in said.message
    assert str(first) in said.message and "results/gating/scores/gpt.csv" in said.message
    # news of the run that changed the summary: a later run that reuses it does not repeat it
    assert notices.collect(in_job, since="2999-01-01T00:00:00Z") == []


def test_a_gained_model_is_said_and_an_unchanged_model_set_says_nothing(in_job, tmp_path):
    summary = tmp_path / "summary.csv"
    hist = tmp_path / "history"
    record_history(_summary(summary, {("abdev", "random"): 1}), hist,
                   now=datetime(2026, 1, 1, tzinfo=UTC))
    _summary(summary, {("abdev", "random"): 3})  # new numbers, same models
    record_history(summary, hist, now=datetime(2026, 1, 2, tzinfo=UTC))
    this_run = "2000-01-01T00:00:00Z"
    assert notices.collect(in_job, since=this_run) == []
    record_history(_summary(summary, {("abdev", "random"): 3, ("abdev", "mine"): 1}), hist,
                   now=datetime(2026, 1, 3, tzinfo=UTC))
    [said] = notices.collect(in_job, since=this_run)
    assert "gained mine" in said.message and said.details["gained"] == ["mine"]
