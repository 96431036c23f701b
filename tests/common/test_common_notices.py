"""End-of-run notices: recorded by a job, withdrawn when it re-runs cleanly, said again at the
end of every run that still uses its outputs, and written to results/run_report.json."""

from __future__ import annotations

import io
import json
import logging

import pytest
from scievals.common import notices


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    yield tmp_path / "logs" / "notices"
    notices.end_job()


def test_outside_a_job_a_notice_is_only_logged(folder, caplog):
    with caplog.at_level(logging.WARNING):
        notice = notices.record("fallback", "abdev", "used   the\ndemo")
    assert notice.message == "used the demo" and notice.job == ""
    assert "[abdev] fallback: used the demo" in caplog.text
    assert not folder.exists()


def test_notices_of_a_job_are_reported_while_its_outputs_exist(folder, tmp_path):
    out = tmp_path / "data" / "GDPa1.csv"
    notices.start_job("abdev_download", {}, [str(out)], folder)
    notices.record("fallback", "abdev", "download failed; demo", details={"reason": "offline"})
    notices.end_job()
    notices.start_job("gating_score", {"model": "m1"}, [str(tmp_path / "s.csv")], folder)
    notices.record("failed_request", "gating", "2 of 15 requests failed")
    notices.end_job()
    (tmp_path / "s.csv").write_text("x")
    # abdev's output does not exist (yet): only gating's notice counts
    assert [n.job for n in notices.collect(folder)] == ["gating_score[model=m1]"]
    out.parent.mkdir()
    out.write_text("x")
    stream = io.StringIO()
    found = notices.report("success", directory=folder, out_json=tmp_path / "r.json",
                           stream=stream)
    assert [n.kind for n in found] == ["fallback", "failed_request"]
    text = stream.getvalue()
    assert "2 notice(s)" in text
    assert "  - [abdev] fallback: download failed; demo (job abdev_download)" in text
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["status"] == "success"
    only = notices.report("success", benchmarks=["gating"], directory=folder,
                          out_json=tmp_path / "g.json", stream=io.StringIO())
    assert [n.benchmark for n in only] == ["gating"]  # abdev is not enabled in that run
    assert report["notices"][0]["details"] == {"reason": "offline"}
    assert report["notices"][1]["job"] == "gating_score[model=m1]"


def test_a_rerun_withdraws_the_jobs_old_notices(folder, tmp_path):
    out = tmp_path / "o.csv"
    out.write_text("x")
    notices.start_job("abdev_download", {}, [str(out)], folder)
    notices.record("fallback", "abdev", "first run: demo")
    notices.end_job()
    assert len(notices.collect(folder)) == 1
    notices.start_job("abdev_download", {}, [str(out)], folder)  # clean re-run: no record
    notices.end_job()
    assert notices.collect(folder) == []


def test_a_failed_job_of_this_run_is_reported_although_its_outputs_are_gone(folder, tmp_path):
    notices.start_job("gating_predict_llm", {"model": "x"}, [str(tmp_path / "gone")], folder)
    notices.record("failed_request", "gating", "all requests failed")
    notices.end_job()
    assert notices.collect(folder) == []
    assert len(notices.collect(folder, since="2000-01-01T00:00:00Z")) == 1
    assert notices.collect(folder, since="2999-01-01T00:00:00Z") == []


def test_a_damaged_notice_file_does_not_cost_the_report(folder, tmp_path):
    folder.mkdir(parents=True)
    (folder / "bad.jsonl").write_text("{not json\n[1, 2]\n")
    assert notices.report("error", directory=folder, out_json=tmp_path / "r.json",
                          stream=io.StringIO()) == []
    assert json.loads((tmp_path / "r.json").read_text())["status"] == "error"


def test_retry_token_changes_exactly_when_the_last_run_left_failed_requests(tmp_path):
    """The ``retry_failed`` param of an LLM prediction job, over four runs."""
    folder, out, job = tmp_path / "notices", tmp_path / "p.jsonl", ("gating_predict_llm",
                                                                   {"model": "m"})
    out.touch()
    first = notices.retry_token(*job, folder)
    assert first == ""  # never ran
    # Run 1 (param ""): two requests fail.
    notices.start_job(*job, [str(out)], folder, retry=first)
    failed = notices.record("failed_request", "gating", "2 of 15 requests failed",
                            details={"retry": True})
    notices.record("skipped_case", "gating", "not a failed request")
    notices.end_job()
    second = notices.retry_token(*job, folder)
    assert second == f"failed requests recorded {failed.recorded_utc}" != first  # re-run
    # Run 2 (the new param): every request answered.
    notices.start_job(*job, [str(out)], folder, retry=second)
    notices.end_job()
    assert notices.retry_token(*job, folder) == second  # same as stored: nothing to do
    # A job with only other notices (or failures a retry would not cure) is not re-run.
    notices.start_job(*job, [str(out)], folder, retry=second)
    notices.record("skipped_case", "gating", "case X skipped")
    notices.record("failed_request", "waza", "a grader error")
    notices.end_job()
    assert notices.retry_token(*job, folder) == second


def test_workflow_notices_are_reported_whatever_benchmarks_run(tmp_path):
    folder = tmp_path / "notices"
    notices.start_job("summarize_all", {}, [], folder)
    notices.record("history_set_aside", notices.WORKFLOW, "index rebuilt")
    notices.end_job()
    found = notices.report("success", benchmarks=["abdev"], directory=folder,
                           out_json=tmp_path / "r.json", stream=io.StringIO())
    assert [n.kind for n in found] == ["history_set_aside"]


def test_the_report_ends_with_where_to_look_next(folder, tmp_path):
    stream = io.StringIO()
    links = {"leaderboard": "results/leaderboard.md", "run record": "results/run_manifest.json"}
    notices.report("success", directory=folder, out_json=tmp_path / "r.json", stream=stream,
                   links=links)
    lines = stream.getvalue().splitlines()
    # Labels padded to the longest ("run record", 10 characters) plus two spaces.
    assert lines[-2:] == ["  leaderboard  results/leaderboard.md",
                          "  run record   results/run_manifest.json"]
    assert json.loads((tmp_path / "r.json").read_text())["links"] == links


def test_print_links_aligns_the_labels_under_a_heading():
    import io

    from scievals.common.notices import print_links

    out = io.StringIO()
    print_links({"leaderboard": "results/leaderboard.md", "run record": "m.json"},
                heading="every result is up to date; where to look", stream=out)
    # the labels are padded to the longest one (11 characters: "leaderboard")
    assert out.getvalue() == ("\nscievals: every result is up to date; where to look:\n"
                              "  leaderboard  results/leaderboard.md\n"
                              "  run record   m.json\n")
    empty = io.StringIO()
    print_links({}, stream=empty)
    assert empty.getvalue() == ""


def test_an_earlier_jobs_notice_is_said_only_by_runs_that_need_that_job(folder, tmp_path):
    """Issue 29 point 5: a gating-only run does not repeat the abdev download's fallback."""
    out = tmp_path / "GDPa1.csv"
    out.write_text("x")
    notices.start_job("abdev_download", {}, [str(out)], folder)
    notices.record("fallback", "abdev", "download failed; demo")
    notices.end_job()
    later = "2999-01-01T00:00:00Z"  # a run that started after the notice was recorded
    gating_run = {"results/gating/summary.csv", "data/curated/gating/cases.jsonl"}
    assert notices.collect(folder, since=later, in_run=gating_run) == []
    assert [n.kind for n in notices.collect(folder, since=later, in_run=gating_run | {str(out)})
            ] == ["fallback"]  # a run whose DAG holds the (up-to-date) download job
    assert len(notices.collect(folder, since=later)) == 1  # Snakemake said nothing: kept


def test_a_failed_run_ends_with_its_jobs_one_line_errors_not_with_links(folder, tmp_path):
    """Issue 29 point 6: the last lines of a failed run are what failed (each line once, as
    several jobs may stop on the same bad file), then how to go on; not the stale results."""
    started = notices.now_utc()
    for rule in ("summarize_benchmark", "abdev_comparisons"):
        notices.start_job(rule, {}, [str(tmp_path / f"{rule}.csv")], folder)
        notices.record_error("predictions/abdev/bad.csv: the file looks ;-separated")
        notices.end_job()
    stream = io.StringIO()
    notices.report("error", since=started, directory=folder, out_json=tmp_path / "r.json",
                   stream=stream, links={"leaderboard": "results/leaderboard.md"})
    assert stream.getvalue().splitlines()[-3:] == [
        "scievals: the run failed:",
        "  predictions/abdev/bad.csv: the file looks ;-separated",
        f"  {notices.RESUME}"]
    assert "leaderboard" not in stream.getvalue()
    # errors are news of the run that failed: a later run does not repeat them
    assert notices.collect(folder, since="2999-01-01T00:00:00Z") == []


def test_an_interrupted_run_ends_with_one_line_saying_how_to_resume(folder, tmp_path):
    started = notices.now_utc()
    notices.start_job("gating_predict_llm", {"model": "gpt"}, [str(tmp_path / "p.jsonl")],
                      folder)
    notices.record_error("interrupted", kind=notices.INTERRUPTED)
    notices.end_job()
    stream = io.StringIO()
    notices.report("error", since=started, directory=folder, out_json=tmp_path / "r.json",
                   stream=stream)
    expected = ("scievals: interrupted: re-run the same command to resume (finished jobs and "
                "answered LLM requests are kept)")
    assert stream.getvalue().strip().splitlines() == [expected]


def test_the_same_notice_from_several_jobs_is_said_once_naming_them(folder, tmp_path,
                                                                    monkeypatch):
    # Two models' score jobs record the same limit (issue 36 point 4): one line, both jobs.
    message = ("limited: a smoke run on the first 2 task(s) of each suite: not a full result "
               "(every table says 'limited to ...'); drop the limit for one")
    for model in ("fake", "waza_mock"):
        (tmp_path / f"{model}.csv").write_text("x")
        notices.start_job("waza_score", {"model": model}, [str(tmp_path / f"{model}.csv")],
                          folder)
        notices.record("other", "waza", message)
        notices.end_job()
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setenv("COLUMNS", "60")  # a narrow terminal: lines wrap at 59 characters
    stream = Terminal()
    notices.report("success", directory=folder, out_json=tmp_path / "r.json", stream=stream)
    lines = stream.getvalue().splitlines()
    assert "scievals: 1 notice(s) about this run" in stream.getvalue()
    said = [line for line in lines if line.startswith(("  - ", "    "))]
    assert said[0].startswith("  - [waza] other: limited: a smoke run")
    assert all(len(line) <= 59 for line in said), said
    joined = " ".join(line.strip() for line in said)
    assert joined.endswith("(jobs waza_score[model=fake], waza_score[model=waza_mock])")
    # the report file keeps every notice as recorded
    assert len(json.loads((tmp_path / "r.json").read_text())["notices"]) == 2


def test_a_notice_of_many_jobs_names_three_and_counts_the_rest():
    # 5 own files' score jobs record the same notice: 3 named, "and 2 more".
    said = [notices.Notice("missing_extra", "gating", "semantic_f1 needs the extra",
                           job=f"gating_score[model=m{i}]") for i in range(5)]
    assert notices.said_lines(said) == [
        "[gating] missing_extra: semantic_f1 needs the extra (jobs gating_score[model=m0], "
        "gating_score[model=m1], gating_score[model=m2] and 2 more)"]


def test_a_notice_is_one_line_in_a_log_file_or_pipe(folder, tmp_path):
    # not a terminal (CI's log, `2> run.log`): one line per notice, however long, for grep
    message = "x" * 300
    (tmp_path / "o.csv").write_text("x")
    notices.start_job("gating_score", {"model": "m"}, [str(tmp_path / "o.csv")], folder)
    notices.record("other", "gating", message)
    notices.end_job()
    stream = io.StringIO()
    notices.report("success", directory=folder, out_json=tmp_path / "r.json", stream=stream)
    assert f"  - [gating] other: {message} (job gating_score[model=m])" in \
        stream.getvalue().splitlines()
