"""An install on a Python older than 3.11 stops first with one line saying so (setup.py),
not with pip's misleading pinned-version conflict; pyproject and the README agree."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MESSAGE = "scievals needs Python >= 3.11"


def run_setup_as(version: tuple[int, int, int]) -> subprocess.CompletedProcess:
    """setup.py's source run with ``sys.version_info`` set to ``version``."""
    code = (f"import sys; sys.version_info = {version!r}; sys.argv = ['setup.py', '--name']; "
            f"exec(compile(open({str(ROOT / 'setup.py')!r}).read(), 'setup.py', 'exec'))")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)


def test_setup_stops_older_pythons_in_one_line():
    old = run_setup_as((3, 10, 13))
    assert old.returncode == 1
    assert old.stderr.strip() == (f"{MESSAGE} (this is Python 3.10): create the venv with "
                                  "python3.11 or newer, e.g. python3.11 -m venv .venv")
    current = run_setup_as((3, 11, 0))
    assert current.returncode == 0 and current.stdout.strip() == "scievals"


def test_pyproject_and_readme_name_the_same_floor():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11"
    assert "Python >= 3.11" in (ROOT / "README.md").read_text()


def python_3_10() -> str | None:
    """A working python3.10 on PATH (a pyenv shim may name one it cannot run), or None."""
    found = shutil.which("python3.10")
    if found and subprocess.run([found, "-c", "pass"], capture_output=True,
                                check=False).returncode == 0:
        return found
    return None


@pytest.mark.slow
def test_pip_on_python_3_10_says_which_python_is_needed(tmp_path):
    python = python_3_10()
    if python is None:
        pytest.skip("no working python3.10 on PATH")
    subprocess.run([python, "-m", "venv", str(tmp_path / "venv")], check=True)
    proc = subprocess.run([str(tmp_path / "venv" / "bin" / "pip"), "install", "--dry-run",
                           "--no-deps", "-e", str(ROOT)], capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode != 0 and MESSAGE in proc.stdout + proc.stderr
