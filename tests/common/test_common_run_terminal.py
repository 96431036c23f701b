"""The terminal filter of a workflow run (scievals.common.run_terminal): which of Snakemake's
log records reach the terminal. The whole run's output: tests/workflow/test_workflow_default.py."""

from __future__ import annotations

import logging
from types import SimpleNamespace

from scievals.common.run_terminal import JobDetailFilter, quiet_job_detail
from snakemake_interface_logger_plugins.common import LogEvent


def record(msg, event=None, level=logging.INFO, **extra) -> logging.LogRecord:
    rec = logging.LogRecord("snakemake.logging", level, __file__, 1, msg, None, None)
    if event is not None:
        rec.event = event
    rec.__dict__.update(extra)
    return rec


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_job_detail_is_dropped_and_errors_warnings_and_other_lines_pass():
    keep = JobDetailFilter(clock=Clock()).filter
    for event in (LogEvent.JOB_INFO, LogEvent.GROUP_INFO, LogEvent.JOB_STARTED,
                  LogEvent.JOB_FINISHED, LogEvent.RUN_INFO, LogEvent.RESOURCES_INFO,
                  LogEvent.WORKFLOW_STARTED):
        assert not keep(record("detail", event)), event
    assert not keep(record("Select jobs to execute..."))
    assert not keep(record("Using shell: /usr/bin/bash"))
    # a failed job's error block, Snakemake's errors and warnings, and any other line pass
    assert keep(record("Error in rule x", LogEvent.JOB_ERROR, level=logging.ERROR))
    assert keep(record("Error in group g", LogEvent.GROUP_ERROR, level=logging.ERROR))
    assert keep(record("Exiting because a job execution failed.", level=logging.ERROR))
    assert keep(record("Nothing to be done (all requested files are present and up to date)."))
    assert keep(record("Job 3 has been submitted with SLURM jobid 17 (log: x)."))
    assert keep(record("Complete log(s): /x/.snakemake/log/a.snakemake.log"))


def test_progress_is_shown_each_quarter_and_after_a_quiet_minute():
    clock = Clock()
    keep = JobDetailFilter(clock=clock).filter

    def shown(done_values, total):
        return [d for d in done_values
                if keep(record(None, LogEvent.PROGRESS, done=d, total=total))]

    # 32 jobs, one second apart: 32 * 1/4 = 8, so the quarters are 8, 16, 24 and 32
    steps = []
    for done in range(1, 33):
        clock.now += 1.0
        steps += shown([done], 32)
    assert steps == [8, 16, 24, 32]
    # 10 jobs: quarters at ceil(10 * k / 4) = 3, 5, 8, 10 (done * 4 // 10 reaches k)
    keep = JobDetailFilter(clock=Clock()).filter
    assert shown(range(1, 11), 10) == [3, 5, 8, 10]
    # a long job: 61 s without a progress line shows the next one, inside a quarter
    clock = Clock()
    keep = JobDetailFilter(clock=clock).filter
    assert shown([1], 100) == []
    clock.now = 61.0
    assert shown([2], 100) == [2]
    assert shown([3], 100) == []


def test_only_a_real_runs_main_process_terminal_is_filtered(tmp_path):
    logger = logging.getLogger("scievals-test-run-terminal")
    terminal, logfile = logging.StreamHandler(), logging.FileHandler(tmp_path / "run.log")
    logger.addHandler(terminal)
    logger.addHandler(logfile)

    def workflow(main=True, dryrun=False, verbose=False):
        return SimpleNamespace(
            is_main_process=main, logger_manager=SimpleNamespace(logger=logger),
            output_settings=SimpleNamespace(dryrun=dryrun, verbose=verbose))

    assert not quiet_job_detail(workflow(dryrun=True))  # a dry run prints the plan
    assert not quiet_job_detail(workflow(verbose=True))  # --verbose asks for everything
    assert not quiet_job_detail(workflow(main=False))  # a cluster job's own Snakemake
    assert not terminal.filters
    assert quiet_job_detail(workflow())
    assert quiet_job_detail(workflow())  # twice: still one filter
    assert [type(f) for f in terminal.filters] == [JobDetailFilter]
    assert not logfile.filters  # the complete log keeps every line
    for handler in (terminal, logfile):
        logger.removeHandler(handler)
        handler.close()
