"""A hostile or mistaken ``--configfile`` stops the workflow in one line (issue 30, item 2).

Snakemake loads every ``--configfile`` itself while it reads the command line; the
Snakefile then reads each one again through the bounded YAML reader before the config is
hashed or checked (the bomb used to be expanded by the config hash: 2.9 GB, then a
MemoryError stack).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support.hostile_yaml import alias_bomb

from .conftest import copy_workflow

# Runs snakemake as its only child and prints, last on stderr, the largest resident size of
# that child and its descendants (KiB): the test worker's own RUSAGE_CHILDREN would also hold
# every child an earlier test in the same worker waited for.
MEASURED = ("import resource, subprocess, sys\n"
            "code = subprocess.call([sys.executable, '-m', 'snakemake', *sys.argv[1:]])\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
            "sys.exit(code)\n")

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(("text", "expected"), [
    (alias_bomb(), "error: bomb.yaml: refused YAML: aliases expand to more than 10,000 extra nodes"),
    ("bootstrap:\n  n_resamples: 10\nbootstrap:\n  n_resamples: 20\n",
     ("error: bomb.yaml:3: refused YAML: key 'bootstrap' appears twice in one mapping (first "
      "on line 1)")),
    ("gating:\n  1: x\n", "error: bomb.yaml: gating: key 1 is not text"),
])
def test_a_bad_configfile_is_one_line_before_the_config_is_read(tmp_path, text, expected):
    workdir = copy_workflow(tmp_path / "scievals")
    (workdir / "bomb.yaml").write_text(text)
    run = subprocess.run([sys.executable, "-c", MEASURED, "-n", "--cores", "1", "--configfile",
                          "bomb.yaml"], cwd=workdir, capture_output=True, text=True, timeout=900,
                         env=dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit"), check=False)
    *lines, peak_kib = run.stderr.strip().splitlines()
    assert run.returncode == 1
    assert lines[-1].startswith(expected), run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    # snakemake (and all it ran) stayed far below the gigabytes the bomb expands to
    assert int(peak_kib) < 1_000_000
