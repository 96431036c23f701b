"""The Snakefile reads the registry at every start: its code versions come from the modules'
source, equal to the imported constants, without importing any benchmark module."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from scievals import benchmarks

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


@pytest.mark.parametrize("name", benchmarks.NAMES)
def test_code_versions_read_from_source_equal_the_imported_constants(name):
    bench = benchmarks.get(name)
    for role, reference in bench.code_versions.items():
        assert bench.code_version(role) == str(benchmarks.resolve(reference)), role


def test_reading_every_code_version_imports_no_benchmark_module():
    code = (
        "import sys\n"
        "from scievals import benchmarks\n"
        "versions = [b.code_version(r) for b in benchmarks.REGISTRY for r in b.code_versions]\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'scipy') or\n"
        "                any(m.startswith(f'scievals.{n}.') for n in benchmarks.NAMES))\n"
        "print(len(versions), loaded)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(SCRIPTS))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split(" ", 1)
    assert int(out[0]) == sum(len(b.code_versions) for b in benchmarks.REGISTRY)
    assert out[1].strip() == "[]"


def test_a_constant_that_is_not_a_literal_is_refused(tmp_path, monkeypatch):
    package = tmp_path / "toy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "metrics.py").write_text(
        "V = 'x' + 'y'\nOK: str = 'score-v2#1'  # why\nW = (\n    'a'\n)\n"
        "def f():\n    MISSING = 1\n")
    monkeypatch.setattr(benchmarks, "PACKAGE_ROOT", tmp_path)
    assert benchmarks.literal_constant("toy.metrics:OK") == "score-v2#1"
    with pytest.raises(ValueError, match="not a one-line literal constant"):
        benchmarks.literal_constant("toy.metrics:V")
    with pytest.raises(ValueError, match="not a one-line literal constant"):
        benchmarks.literal_constant("toy.metrics:W")
    with pytest.raises(KeyError, match="assigns no MISSING"):
        benchmarks.literal_constant("toy.metrics:MISSING")
