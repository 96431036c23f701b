"""Several benchmarks in one call, the results table at the end of ``run``, and the Python API
(issue 36, point 9): ``run_benchmark("gating", "autogkb", model=..., limit=2)`` against a local
fake server runs both, prints the rows of the models run, and returns them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from support.fake_server import FakeLLMServer

from .conftest import ROOT, copy_workflow

pytestmark = pytest.mark.slow

SCRIPT = """
import json, sys
from scievals.run import run_benchmark
rows = run_benchmark("gating", "autogkb", model="openai/fake", base_url=sys.argv[1], limit=2,
                     cores=2)
print("ROWS " + json.dumps(sorted({(r.benchmark, r.model) for r in rows.itertuples()})))
"""


def test_run_benchmark_runs_two_benchmarks_and_returns_their_rows(tmp_path):
    workdir = copy_workflow(tmp_path / "scievals")
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit", COLUMNS="100",
               PYTHONPATH=os.pathsep.join([str(workdir / "scripts"), str(ROOT / "tests")]))
    with FakeLLMServer() as server:
        proc = subprocess.run([sys.executable, "-c", SCRIPT, server.openai_base_url],
                              cwd=workdir, env=env, capture_output=True, text=True,
                              timeout=900, check=False)
        sent = server.count
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = proc.stdout
    [returned] = [line for line in out.splitlines() if line.startswith("ROWS ")]
    pairs = {tuple(p) for p in json.loads(returned[5:])}
    assert ("gating", "fake") in pairs and ("autogkb", "fake") in pairs
    assert {b for b, _ in pairs} == {"gating", "autogkb"}
    # gating: 2 cases x 6 conditions; autogkb sends 2 articles more
    assert sent > 12
    # the table at the end: one line per model and condition of each benchmark, headline
    # metric with its interval and n = 2 (the limit)
    table = out[out.index("scievals: results of this run"):].split("ROWS ")[0]
    lines = table.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(("gating - ", "autogkb - "))]
    assert len(starts) == 2, table
    start = next(i for i in starts if lines[i].startswith("gating - "))
    gating = lines[start:lines.index("", start) if "" in lines[start:] else len(lines)]
    assert gating[1].split() == ["model", "condition", "hierarchy_f1", "n"], table
    fake_rows = [line.split() for line in gating[2:] if line.startswith("fake ")]
    assert len(fake_rows) == 6 and all(row[-1] == "2" for row in fake_rows)
    assert "limited to 2 items" in gating[0]
    overlay = workdir / ".scievals" / "run" / "gating+autogkb.yaml"
    assert overlay.is_file()
