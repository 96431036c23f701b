"""Glue for the thin Snakemake entry scripts under ``scripts/``.

An entry script does ``run(snakemake, function)``: logging goes to the rule's
log file, the function gets the ``snakemake`` object, notices it records
(:mod:`scievals.common.notices`) belong to this job, and a ScievalsError
becomes one line in the log and on stderr plus exit code 1 (Snakemake then
removes the job's outputs, so nothing half-written survives). So does a package of a
missing pip extra (the line names the extra to install), and an OSError about the
machine (a full disk, a read-only or forbidden path: :func:`~scievals.common.errors.machine_error`).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from typing import Any

from scievals.common import notices
from scievals.common.errors import ScievalsError, machine_error
from scievals.common.extras import install_excepthook, missing_extra

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
    quiet_http_clients()


# httpx (under the OpenAI and Anthropic SDKs) logs one INFO line per request: thousands of
# lines that bury the notices. Off unless SCIEVALS_HTTP_LOG=1 asks for them.
HTTP_LOGGERS = ("httpx", "httpcore")
HTTP_LOG_ENV = "SCIEVALS_HTTP_LOG"


def quiet_http_clients(environ: dict | None = None) -> None:
    environ = os.environ if environ is None else environ
    level = logging.INFO if environ.get(HTTP_LOG_ENV) == "1" else logging.WARNING
    for name in HTTP_LOGGERS:
        logging.getLogger(name).setLevel(level)


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
