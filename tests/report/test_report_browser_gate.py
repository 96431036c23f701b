"""The browser test's gate: without Chromium it skips loudly on a developer's machine and
fails in CI. Runs the real test module in a subprocess with Chromium hidden from PATH; the
gate fires before the workflow run, so this takes seconds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .browser import CHROMIUM_CANDIDATES

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
TEST = "tests/report/test_report_browser.py::test_report_opens_in_chromium_without_errors_and_shows_a_figure"


def path_without_chromium() -> str:
    keep = [d for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and not any((Path(d) / name).exists() for name in CHROMIUM_CANDIDATES)]
    return os.pathsep.join(keep)


def run_browser_test(**env) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "SCIEVALS_BROWSER_TEST")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", TEST, "-rsf", "-p", "no:cacheprovider"],
        cwd=ROOT, env={**base, "PATH": path_without_chromium(), **env},
        capture_output=True, text=True, timeout=300, check=False,
    )


def test_without_chromium_a_developer_run_skips_with_a_loud_reason():
    proc = run_browser_test()
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "1 skipped" in proc.stdout
    assert "BROWSER TEST NOT RUN: no chromium on PATH" in proc.stdout
    assert "apt-get install -y chromium" in proc.stdout


@pytest.mark.parametrize("env", [{"CI": "true"}, {"SCIEVALS_BROWSER_TEST": "1"}])
def test_without_chromium_ci_fails(env):
    proc = run_browser_test(**env)
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "1 error" in proc.stdout or "1 failed" in proc.stdout
    assert "chromium is not installed, and this run requires the report's browser test" in (
        proc.stdout)
