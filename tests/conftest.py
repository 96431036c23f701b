"""Shared pytest fixtures: paths to the repository and its embedded data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# default_run (read it) and default_run_template (copy it): the session's one default run
from support.default_run import default_run, default_run_template  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


def pytest_collection_modifyitems(config, items):
    """Files with a slow test first, each file's tests together and in their order.

    With `-n 2 --dist loadfile` a worker takes one file at a time in this order (pyproject's
    --no-loadscope-reorder keeps it; xdist's own order puts files with many quick tests first
    and so the long workflow files last, where one of them leaves the other worker idle)."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)  # a stable sort


@pytest.fixture(scope="session", autouse=True)
def _isolated_user_cache(tmp_path_factory):
    """The suite never writes the user's ~/.cache: the package's user-level caches (gating's
    embedding cache, SCIEVALS_CACHE_DIR) go under this session's temporary folder, the
    basetemps' parent under xdist so that the workers (and the workflows they run) share it."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCIEVALS_CACHE_DIR", str(shared / "scievals-cache"))
        yield
