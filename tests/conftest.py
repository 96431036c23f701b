"""Shared pytest fixtures: paths to the repository and its embedded data."""

from __future__ import annotations

from pathlib import Path

import pytest

# default_run (read it) and default_run_template (copy it): the session's one default run
from support.default_run import default_run, default_run_template  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT
