"""What a workflow run prints on the terminal: progress in a few lines, warnings, errors (a
failed job's block and log) and the end-of-run notes; not Snakemake's per-job detail.

A run of the default workflow printed about 550 lines, 17 for each of its 32 jobs (the rule
block, "Select jobs to execute...", "Finished jobid", "N of 32 steps done"), before the 8
that matter. Snakemake's own ``--quiet rules`` would also drop a failed job's error block
from the terminal and both from the complete log in ``.snakemake/log/``, which the SLURM
check and a person debugging read; so instead of that setting, the Snakefile puts this
filter on the terminal's handler only, in the main process of a real run:

- dry runs print everything (their rule blocks are the plan);
- the complete log keeps every line, and ``--verbose`` puts them all on the terminal too;
- a cluster job's own Snakemake (its SLURM log) is not touched.

The records are told apart by their ``event`` (the interface Snakemake's logger plugins
read, snakemake_interface_logger_plugins.common.LogEvent), plus a few routine messages
that Snakemake logs without one.
"""

from __future__ import annotations

import logging
import time

from snakemake_interface_logger_plugins.common import LogEvent

# Per-job and per-run detail: the header, the job-count table, resources, rule blocks,
# "Execute N jobs...", "Finished jobid: ..." (a failed job's error block is kept).
DETAIL_EVENTS = frozenset({
    LogEvent.WORKFLOW_STARTED, LogEvent.RUN_INFO, LogEvent.RESOURCES_INFO, LogEvent.JOB_INFO,
    LogEvent.GROUP_INFO, LogEvent.JOB_STARTED, LogEvent.JOB_FINISHED,
})
ROUTINE_MESSAGES = frozenset({
    "Select jobs to execute...", "Building DAG of jobs...",
    "Assuming unrestricted shared filesystem usage.", "Conda environments: ignored",
    "Singularity containers: ignored", "Group jobs: inactive (local execution)",
})
ROUTINE_PREFIXES = ("Using shell: ",)
# A progress line each quarter of the jobs, at the end, and after a quiet minute.
PROGRESS_STEPS = 4
PROGRESS_EVERY_S = 60.0


class JobDetailFilter(logging.Filter):
    """Drops Snakemake's per-job detail; keeps a few progress lines and everything else."""

    def __init__(self, clock=time.monotonic) -> None:
        super().__init__()
        self.clock = clock
        self.last_step = 0
        self.last_time = clock()

    def filter(self, record: logging.LogRecord) -> bool:
        event = getattr(record, "event", None)
        if event in DETAIL_EVENTS:
            return False
        if event == LogEvent.PROGRESS:
            return self.show_progress(record.done, record.total)
        if event is None and isinstance(record.msg, str):
            return not (record.msg in ROUTINE_MESSAGES or record.msg.startswith(ROUTINE_PREFIXES))
        return True

    def show_progress(self, done: int, total: int) -> bool:
        step = done * PROGRESS_STEPS // total if total else PROGRESS_STEPS
        now = self.clock()
        if done == total or step > self.last_step or now - self.last_time >= PROGRESS_EVERY_S:
            self.last_step, self.last_time = step, now
            return True
        return False


def terminal_handlers(logger: logging.Logger) -> list[logging.Handler]:
    """The handlers writing to the terminal (a FileHandler is a StreamHandler too)."""
    return [h for h in logger.handlers
            if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)]


def quiet_job_detail(workflow) -> bool:
    """Put JobDetailFilter on the terminal of a real run's main process; True if it did."""
    settings = workflow.output_settings
    if (not workflow.is_main_process or settings is None or settings.dryrun
            or settings.verbose):
        return False
    handlers = terminal_handlers(workflow.logger_manager.logger)
    for handler in handlers:
        if not any(isinstance(f, JobDetailFilter) for f in handler.filters):
            handler.addFilter(JobDetailFilter())
    return bool(handlers)
