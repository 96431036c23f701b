"""Glue for the thin Snakemake entry scripts under ``scripts/``.

There is one entry script per stage (``scripts/download.py``, ``curate.py``, ``predict.py``,
``import_own.py``, ``score.py``): :func:`run_stage` finds the benchmark from the rule's name
(``<b>_<stage>``) and calls that stage's job function in the stage's own module of
``scievals.<b>`` (:data:`STAGE_JOBS`: ``data.stage_download``, ``curate.stage_curate``,
``predict.stage_predict``, ``predict.stage_import``; the score stage calls
``scievals.<b>.score.score`` with a :class:`~scievals.common.jobs.ScoreJob`). A job imports
only its own stage's module, so a download job loads no predictor and a curate job no LLM
layer. These module
names are the registry's convention for every registered benchmark (checked by
tests/test_benchmark_contract.py); the scripts do not import the registry itself, whose
config schemas cost every job about 0.07 s of imports.

An entry script does ``run(snakemake, function)``: logging goes to the rule's
log file, the function gets the ``snakemake`` object, notices it records
(:mod:`scievals.common.notices`) belong to this job, and a ScievalsError
becomes one line in the log and on stderr plus exit code 1 (Snakemake then
removes the job's outputs, so nothing half-written survives). So does a package of a
missing pip extra (the line names the extra to install), and an OSError about the
machine (a full disk, a read-only or forbidden path: :func:`~scievals.common.errors.machine_error`).
"""

from __future__ import annotations

import atexit
import gc
import importlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

# Both start-up measures below apply only in a job's own process, the one Snakemake runs an
# entry script in (its `snakemake` object is a global of __main__), never where the package is
# imported into a longer-lived process (tests, the CLI).
IN_JOB = hasattr(sys.modules.get("__main__"), "snakemake")

# Start-up of a job is mostly imports (pandas, numpy, scipy: hundreds of thousands of
# objects), and the cyclic garbage collector walks them again and again while they load and
# once more when the process ends, about 0.15 CPU-s of a 0.4 CPU-s job. So collection is off
# while the job's modules import, and run() moves everything imported so far out of the
# collector's reach (gc.freeze) before turning it back on for the job itself
# (benchmarks/workflow_startup.py). Collection only frees memory; no result depends on it.
if IN_JOB:
    gc.disable()

# pandas imports pyarrow when it is installed (0.05-0.1 CPU-s in every job that loads pandas,
# about 2 CPU-s over the default run's jobs); no job uses it, and pandas' own C reader parses
# the CSVs. None makes `import pyarrow` fail, and pandas then runs exactly as without pyarrow
# (benchmarks/abdev_workflow_scoring.py, benchmarks/workflow_startup.py). Entry scripts import
# this module before anything that loads pandas; run() lifts the block once the job's modules
# are imported (see _unblock_pyarrow).
if IN_JOB:
    sys.modules.setdefault("pyarrow", None)

from scievals.common import notices  # noqa: E402
from scievals.common.errors import ScievalsError, machine_error  # noqa: E402
from scievals.common.extras import install_excepthook, missing_extra  # noqa: E402
from scievals.common.jobs import jobs_from_snakemake  # noqa: E402
from scievals.common.redaction import redact_text  # noqa: E402
from scievals.common.workflow import stage_of_rule  # noqa: E402

# Entry scripts import this module first: a missing extra imported after it (at the top
# of the script) is reported in one line too.
install_excepthook()


class _RedactingFormatter(logging.Formatter):
    """Log lines without URL credentials (an HTTP client's line names the URL it calls)."""

    def format(self, record: logging.LogRecord) -> str:
        return redact_text(super().format(record))


class _LogFileHandler(logging.FileHandler):
    """The job's log file; when it cannot be written (a full disk, a quota), one line on
    stderr says so once and the job goes on logging to stderr only, instead of logging's
    ``--- Logging error ---`` traceback at every line."""

    def handleError(self, record: logging.LogRecord) -> None:
        exc = sys.exc_info()[1]
        reason = (exc.strerror or str(exc)) if isinstance(exc, OSError) else repr(exc)
        logging.getLogger().removeHandler(self)
        try:
            self.close()
        except OSError:  # closing flushes the same full disk
            pass
        print(f"scievals: the log file {self.baseFilename} cannot be written ({reason}); "
              "this job logs to stderr only (free space or fix the logs/ folder)",
              file=sys.stderr)


def setup_logging(log_path: str | None) -> None:
    terminal = logging.StreamHandler(sys.stderr)
    terminal.addFilter(TerminalLines())
    handlers: list[logging.Handler] = [terminal]
    if log_path:
        handlers.append(_LogFileHandler(log_path, mode="w", encoding="utf-8"))
    formatter = _RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    for handler in handlers:
        handler.setFormatter(formatter)
    logging.basicConfig(level=logging.INFO, handlers=handlers, force=True)


# An LLM run logged a line per request (httpx, under the SDKs), per batch and per tenth of a
# batch (scievals.llm): 339 terminal lines for an agent smoke run of 2 tasks a suite. Those stay
# in the job's log file; the terminal gets warnings, errors, the stages' own INFO lines and
# the lines a stage marks ``extra={"terminal": True}`` (one per condition or suite). The HTTP
# lines come back on the terminal with SCIEVALS_HTTP_LOG=1.
FILE_ONLY_LOGGERS = ("scievals.llm", "httpx", "httpcore")  # prefixes: httpx2 too
HTTP_LOGGERS = ("httpx", "httpcore")
HTTP_LOG_ENV = "SCIEVALS_HTTP_LOG"


class TerminalLines(logging.Filter):
    """What a job prints on the terminal (the log file keeps every line)."""

    def __init__(self, environ: dict | None = None) -> None:
        super().__init__()
        environ = os.environ if environ is None else environ
        self.http = environ.get(HTTP_LOG_ENV) == "1"

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == notices.log.name and record.levelno == logging.WARNING:
            return False  # a notice: said once, at the end of the run (notices.report)
        if record.levelno >= logging.WARNING:
            return True
        marked = getattr(record, "terminal", None)
        if marked is not None:
            return bool(marked)
        if self.http and record.name.startswith(HTTP_LOGGERS):
            return True
        return not record.name.startswith(FILE_ONLY_LOGGERS)


def _unblock_pyarrow() -> None:
    """Remove the ``None`` that kept pandas from importing pyarrow: scikit-learn looks
    ``sys.modules["pyarrow"]`` up while fitting (``is_pyarrow_data``) and fails on ``None``,
    while with no entry it knows pyarrow is not in use."""
    if "pyarrow" in sys.modules and sys.modules["pyarrow"] is None:
        del sys.modules["pyarrow"]


def _imports_done() -> None:
    """The job's modules are imported: unblock pyarrow, freeze what exists, collect again."""
    if IN_JOB:
        _unblock_pyarrow()
        gc.freeze()
        gc.enable()


def run(snakemake: Any, function: Callable[[Any], Any]) -> None:
    _imports_done()
    log_path = snakemake.log[0] if len(snakemake.log) else None
    setup_logging(log_path)
    notices.start_job(snakemake.rule, dict(snakemake.wildcards.items()), list(snakemake.output),
                      retry=getattr(snakemake.params, "retry_failed", None))
    try:
        function(snakemake)
    except ScievalsError as exc:
        _fail(exc.one_line())
    except ModuleNotFoundError as exc:
        message = missing_extra(exc)
        if message is None:
            raise
        _fail(message)
    except OSError as exc:  # a full disk, a read-only folder: one line, not a traceback
        error = machine_error(exc)
        if error is None:
            raise
        _fail(error.one_line())
    except KeyboardInterrupt:  # Ctrl-C: one line, not the chained traceback of asyncio's
        logging.getLogger("scievals").error("interrupted")
        notices.record_error("interrupted", kind=notices.INTERRUPTED)
        sys.exit(130)
    finally:
        notices.end_job()
    if IN_JOB:
        _exit_without_teardown()


def _fail(message: str) -> None:
    """End a failed job: its one-line error in the log and on stderr, and kept for the last
    lines of the run (scievals.common.notices.report), then exit code 1."""
    logging.getLogger("scievals").error(message)
    notices.record_error(message)
    sys.exit(1)


def _exit_without_teardown() -> None:
    """End a job that succeeded without the interpreter's teardown.

    Tearing down frees every object of pandas, numpy and scipy one by one, about 0.03 CPU-s of
    each job and 0.8 CPU-s of the default run, for memory the operating system takes back
    anyway. Everything a normal exit does that matters runs first: the exit handlers
    (temporary folders of ``weakref.finalize``, the graders' sandbox worker), the log files'
    flush and close, the standard streams' flush. The outputs are complete by now: every
    writer closes its file (most write a temporary file and rename it). A thread still
    running (not a daemon) could still be writing: then Python's own exit, which waits for
    it, ends the job instead."""
    if any(thread.is_alive() and not thread.daemon and thread is not threading.main_thread()
           for thread in threading.enumerate()):
        return
    atexit._run_exitfuncs()  # what Python's own exit runs; there is no public name for it
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


# Stage (rule role) -> (module of scievals.<b>, its job function taking the snakemake object).
STAGE_JOBS = {"download": ("data", "stage_download"), "curate": ("curate", "stage_curate"),
              "predict_baseline": ("predict", "stage_predict"),
              "predict_llm": ("predict", "stage_predict"), "import": ("predict", "stage_import")}


def run_stage(snakemake: Any) -> None:
    """Run the job of a generated rule ``<b>_<stage>`` (see :data:`STAGE_JOBS`)."""
    benchmark, role = stage_of_rule(snakemake.rule)
    module_name, function = STAGE_JOBS[role]
    # imported before run(): see _imports_done
    module = importlib.import_module(f"scievals.{benchmark}.{module_name}")
    run(snakemake, getattr(module, function))


def score_jobs(smk: Any) -> None:
    """The score stage: ``score(job)`` for one model, ``score_batch(jobs)`` for a batch rule
    (which reads the truth once and writes nothing unless every file is valid)."""
    jobs = jobs_from_snakemake(smk)
    module = importlib.import_module(f"scievals.{jobs[0].benchmark}.score")
    if not getattr(smk.params, "models", None):  # <b>_score: one model the workflow predicted
        module.score(jobs[0])
        return
    # a batch of own files: the files whose tables are kept unchanged get them back, the
    # others are scored (scievals.common.score_cache)
    from scievals.common import score_cache

    todo, keys = score_cache.split(jobs, str(getattr(smk.params, "code_version", "")))
    if todo:
        module.score_batch([jobs[i] for i in todo])
    for i in todo:
        score_cache.keep(jobs[i], keys[i])
    logging.getLogger(__name__).info("%d own files scored, %d unchanged ones' tables reused",
                                     len(todo), len(jobs) - len(todo))


def run_score(snakemake: Any) -> None:
    benchmark, _ = stage_of_rule(snakemake.rule)
    importlib.import_module(f"scievals.{benchmark}.score")  # before run(): see _imports_done
    run(snakemake, score_jobs)
