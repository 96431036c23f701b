"""Glue for the thin Snakemake entry scripts under ``scripts/``.

There is one entry script per stage (``scripts/download.py``, ``curate.py``, ``predict.py``,
``import_own.py``, ``score.py``): :func:`run_stage` finds the benchmark from the rule's name
(``<b>_<stage>``) and calls ``scievals.<b>.steps.<stage>`` (the score stage calls
``scievals.<b>.score.score`` with a :class:`~scievals.common.jobs.ScoreJob`). These module
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

import importlib
import logging
import sys
from collections.abc import Callable
from typing import Any

# pandas imports pyarrow when it is installed (0.05-0.1 CPU-s in every job that loads pandas,
# about 2 CPU-s over the default run's jobs); no job uses it, and pandas' own C reader parses
# the CSVs. None makes `import pyarrow` fail, and pandas then runs exactly as without pyarrow
# (benchmarks/abdev_workflow_scoring.py, benchmarks/workflow_startup.py). Entry scripts import
# this module before anything that loads pandas.
sys.modules.setdefault("pyarrow", None)

from scievals.common import notices  # noqa: E402
from scievals.common.errors import ScievalsError, machine_error  # noqa: E402
from scievals.common.extras import install_excepthook, missing_extra  # noqa: E402
from scievals.common.jobs import jobs_from_snakemake  # noqa: E402
from scievals.common.workflow import stage_of_rule  # noqa: E402

# Entry scripts import this module first: a missing extra imported after it (at the top
# of the script) is reported in one line too.
install_excepthook()


def setup_logging(log_path: str | None) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path:
        handlers.append(logging.FileHandler(log_path, mode="w", encoding="utf-8"))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )


def run(snakemake: Any, function: Callable[[Any], Any]) -> None:
    log_path = snakemake.log[0] if len(snakemake.log) else None
    setup_logging(log_path)
    notices.start_job(snakemake.rule, dict(snakemake.wildcards.items()), list(snakemake.output),
                      retry=getattr(snakemake.params, "retry_failed", None))
    try:
        function(snakemake)
    except ScievalsError as exc:
        logging.getLogger("scievals").error(exc.one_line())
        sys.exit(1)
    except ModuleNotFoundError as exc:
        message = missing_extra(exc)
        if message is None:
            raise
        logging.getLogger("scievals").error(message)
        sys.exit(1)
    except OSError as exc:  # a full disk, a read-only folder: one line, not a traceback
        error = machine_error(exc)
        if error is None:
            raise
        logging.getLogger("scievals").error(error.one_line())
        sys.exit(1)
    finally:
        notices.end_job()


# Stage (rule role) -> the function of scievals.<b>.steps that runs it.
STEP_FUNCTIONS = {"download": "download", "curate": "curate", "predict_baseline": "predict",
                  "predict_llm": "predict", "import": "import_own"}


def run_stage(snakemake: Any) -> None:
    """Run the job of a generated rule ``<b>_<stage>`` with ``scievals.<b>.steps``."""
    benchmark, role = stage_of_rule(snakemake.rule)
    steps = importlib.import_module(f"scievals.{benchmark}.steps")
    run(snakemake, getattr(steps, STEP_FUNCTIONS[role]))


def score_jobs(smk: Any) -> None:
    """The score stage: ``score(job)`` for one model, ``score_batch(jobs)`` for a batch rule
    (which reads the truth once and writes nothing unless every file is valid)."""
    jobs = jobs_from_snakemake(smk)
    module = importlib.import_module(f"scievals.{jobs[0].benchmark}.score")
    if len(jobs) == 1:
        module.score(jobs[0])
    else:
        module.score_batch(jobs)


def run_score(snakemake: Any) -> None:
    run(snakemake, score_jobs)
