"""Helpers for the tests that run the real ``snakemake`` on a temporary copy of the workflow.

The session's default run (fixtures ``default_run`` to read, ``default_run_template`` to
copy) lives in tests/support/default_run.py, shared with tests/report, gating and autogkb."""

from __future__ import annotations

from pathlib import Path

from support.default_run import copy_default_run, quick_start_output  # noqa: F401
from support.snakemake_run import snakemake  # noqa: F401
from support.workflow_copy import copy_workflow as support_copy

ROOT = Path(__file__).resolve().parents[2]


def copy_workflow(dest: Path) -> Path:
    return support_copy(ROOT, dest)
