"""The Snakefile reads the registry at every start: its code versions come from the modules'
source (or, for a computed one, a light import), equal to the imported constants, without
loading pandas or scipy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from scievals import registry

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


@pytest.mark.parametrize("name", registry.NAMES)
def test_code_versions_read_from_source_equal_the_imported_constants(name):
    bench = registry.get(name)
    for role, reference in bench.code_versions.items():
        assert bench.code_version(role) == str(registry.resolve(reference)), role


def test_reading_every_code_version_loads_no_pandas_or_scipy():
    code = (
        "import sys\n"
        "from scievals import registry\n"
        "versions = [b.code_version(r) for b in registry.REGISTRY for r in b.code_versions]\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'scipy'))\n"
        "print(len(versions), loaded)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(SCRIPTS))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split(" ", 1)
    assert int(out[0]) == sum(len(b.code_versions) for b in registry.REGISTRY)
    assert out[1].strip() == "[]"


def test_a_constant_that_is_not_a_literal_is_imported(tmp_path, monkeypatch):
    package = tmp_path / "toy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "metrics.py").write_text(
        "import sys\nsys.modules[__name__].imported = True\n"
        "V = '-'.join(('x', 'y'))\nOK: str = 'score-v2#1'  # why\n"
        "def f():\n    MISSING = 1\n")
    monkeypatch.setattr(registry, "PACKAGE_ROOT", tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert registry.literal_constant("toy.metrics:OK") == "score-v2#1"
    assert "toy.metrics" not in sys.modules  # a literal is read, not imported
    assert registry.literal_constant("toy.metrics:V") == "x-y"  # computed: imported
    assert sys.modules["toy.metrics"].imported
    with pytest.raises(KeyError, match="assigns no MISSING"):
        registry.literal_constant("toy.metrics:MISSING")
