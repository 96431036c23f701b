"""Every line printed after ``python -m scievals run`` works as printed and keeps the run's
models (issue 36, point 2): the sample viewer and the report that the printed commands build
hold the model just run, after ``run --model ... --limit`` and after ``run --configfile``.

Before, the hints were the plain ``snakemake --cores 8 results/report/samples.html``: it
re-ran the benchmark on the default config and the viewer lacked the model."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support.default_run import copy_default_run
from support.fake_server import FakeLLMServer

from .conftest import ROOT
from .test_printed_hints import follow_every_hint, hints

pytestmark = pytest.mark.slow


def scievals_run(workdir, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit", COLUMNS="100",
               PYTHONPATH=os.pathsep.join([str(workdir / "scripts"), str(ROOT / "tests")]))
    return subprocess.run([sys.executable, "-m", "scievals", "run", *argv, "--cores", "2"],
                          cwd=workdir, env=env, capture_output=True, text=True, timeout=900,
                          check=False)


def after_quick_start(default_run, tmp_path):
    """A copy of the session's quick start (records and mtimes kept), where a newcomer runs
    `run` next: the printed commands then redo what the run changed, not every benchmark."""
    workdir = tmp_path / "scievals"
    copy_default_run(default_run, workdir)
    return workdir


def assert_the_outputs_hold(workdir, model: str, followed: set[str]) -> None:
    assert any("--report results/report.html" in c for c in followed), followed
    assert any("results/report/samples.html" in c for c in followed), followed
    viewer = (workdir / "results" / "report" / "samples.html").read_text()
    assert model in viewer  # the model just run, not the default config's models only
    assert model in (workdir / "results" / "report.html").read_text(errors="replace")
    # the run's limited predictions were kept: no re-run on the default config replaced them
    assert (workdir / "results" / "gating" / "scores" / f"{model}.csv").is_file()


def test_every_line_after_run_with_model_and_limit_keeps_the_model(default_run, tmp_path):
    workdir = after_quick_start(default_run, tmp_path)
    with FakeLLMServer(max_lifetime_s=1800) as server:
        proc = scievals_run(workdir, "gating", "--model", "openai/probe-model", "--base-url",
                            server.openai_base_url, "--limit", "2")
        assert proc.returncode == 0, proc.stderr[-4000:]
        viewer_hint = hints(proc.stderr)["sample viewer"]
        assert "--configfile .scievals/run/gating.yaml" in viewer_hint
        followed = follow_every_hint(workdir, proc.stderr)
        sent = server.count
    assert_the_outputs_hold(workdir, "probe-model", followed)
    assert sent == 12  # 2 cases x 6 conditions, once: following the hints sent nothing again


def test_every_line_after_run_with_a_configfile_keeps_its_model(default_run, tmp_path):
    workdir = after_quick_start(default_run, tmp_path)
    with FakeLLMServer(max_lifetime_s=1800) as server:
        (workdir / "mine.yaml").write_text(
            "benchmarks: [gating]\n"
            f"models: {{own-probe: {{provider: openai, model: fake, "
            f"base_url: '{server.openai_base_url}'}}}}\n"
            "gating: {models: [marker_baseline, own-probe], limit: 2}\n")
        proc = scievals_run(workdir, "gating", "--configfile", "mine.yaml")
        assert proc.returncode == 0, proc.stderr[-4000:]
        assert "--configfile mine.yaml" in hints(proc.stderr)["HTML report"]
        followed = follow_every_hint(workdir, proc.stderr)
    assert_the_outputs_hold(workdir, "own-probe", followed)


def test_a_target_after_the_double_dash_is_built(default_run, tmp_path):
    workdir = after_quick_start(default_run, tmp_path)
    assert not (workdir / "results" / "report" / "samples.html").exists()
    # --limit 2: the parsing of "--" is checked, not the 15 cases
    proc = scievals_run(workdir, "gating", "--limit", "2", "--", "results/report/samples.html")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "usage:" not in proc.stderr
    assert (workdir / "results" / "report" / "samples.html").is_file()
