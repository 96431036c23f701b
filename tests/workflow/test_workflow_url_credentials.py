"""Credentials in a model's base_url reach the server and no file or console line.

Issue 30, item 1: ``base_url: http://user:S3cretPass@host/v1`` (LiteLLM and gateways
with basic auth) was written in clear to results/run_manifest.json, the history's run
records, every .cache/llm entry, .cache/config/*, job logs, .snakemake/ (the job params)
and the console error line. The run here sends basic auth to the fake server, then every
file under the work folder and both output streams are searched for the password and the
user name.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import uuid

import pandas as pd
import pytest
import yaml
from scievals.common.redaction import CREDENTIALS_ENV
from support.fake_server import FakeLLMServer

from .conftest import copy_workflow

pytestmark = pytest.mark.slow
USER, PASSWORD = "gatewayuser", "S3cretPass"
TARGET = ("results/summary.csv", "--cores", "2", "--configfile", "config/config.yaml",
          "gateway.yaml")


def _run(workdir, *args):
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit")
    return subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=900, check=False)


def _stamps(workdir) -> dict:
    return {p: p.stat().st_mtime_ns for p in workdir.rglob("*") if p.is_file()}


def _files_holding(workdir, needle: bytes, unchanged: dict) -> list[str]:
    """Files the run wrote (new or modified since ``unchanged`` was taken) holding ``needle``."""
    found = []
    for path in workdir.rglob("*"):
        if path.is_file() and not path.is_symlink() and (
                unchanged.get(path) != path.stat().st_mtime_ns):
            try:
                if needle in path.read_bytes():
                    found.append(str(path.relative_to(workdir)))
            except OSError:
                continue
    return found


def test_url_credentials_reach_the_server_and_nothing_else(tmp_path):
    workdir = copy_workflow(tmp_path / "scievals")
    with FakeLLMServer() as server:
        url = server.openai_base_url.replace("http://", f"http://{USER}:{PASSWORD}@")
        shown = server.openai_base_url.replace("http://", "http://***@")
        extra = {
            "models": {"gw": {"provider": "openai", "model": "fake", "base_url": url}},
            "llm": {"cache_dir": ".cache/llm"},
            "benchmarks": ["gating"],
            "gating": {"models": ["marker_baseline", "gw"], "contexts": ["minimal"],
                       "strategies": ["direct"]},
        }
        (workdir / "gateway.yaml").write_text(yaml.safe_dump(extra))
        before = _stamps(workdir)
        run = _run(workdir, *TARGET)
        assert run.returncode == 0, run.stderr[-4000:]
        # The 15 embedded gating cases, each asked once, with the credentials as basic auth.
        assert server.count == 15
        expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        assert {r["headers"].get("Authorization") for r in server.requests} == {expected}

    # Every file the run wrote: results/, logs/, .cache/ (llm and config), .snakemake/.
    written = [p for p in workdir.rglob("*") if p.is_file() and before.get(p) is None]
    assert any(".snakemake" in p.parts for p in written) and any("logs" in p.parts
                                                                  for p in written)
    assert _files_holding(workdir, PASSWORD.encode(), before) == []
    assert _files_holding(workdir, USER.encode(), before) == []
    assert PASSWORD not in run.stdout + run.stderr and USER not in run.stdout + run.stderr
    # What is written instead: the URL with its userinfo as ***.
    manifest = json.loads((workdir / "results" / "run_manifest.json").read_text())
    assert manifest["config"]["models"]["gw"]["base_url"] == shown
    entries = list((workdir / ".cache" / "llm").rglob("*.json"))
    assert len(entries) == 15
    assert all("http://***@127.0.0.1" in e.read_text() for e in entries)


def test_an_unreachable_gateway_is_named_without_its_password(tmp_path):
    workdir = copy_workflow(tmp_path / "scievals")
    # port 9 (discard) on localhost: nothing listens there in the test environment
    extra = {"models": {"gw": {"provider": "openai", "model": "fake",
                               "base_url": f"http://{USER}:{PASSWORD}@127.0.0.1:9/v1"}},
             "benchmarks": ["gating"],
             "gating": {"models": ["gw"], "contexts": ["minimal"], "strategies": ["direct"]}}
    (workdir / "gateway.yaml").write_text(yaml.safe_dump(extra))
    run = _run(workdir, *TARGET)
    assert run.returncode != 0
    assert "base_url http://***@127.0.0.1:9/v1 is not reachable" in run.stderr
    assert PASSWORD not in run.stdout + run.stderr


def test_run_command_keeps_credentials_and_key_out_of_every_file_and_runs_every_model(tmp_path):
    # Issue 34, item 7: `run --base-url http://user:pass@host/v1` wrote the password into
    # .scievals/run/gating.yaml. Issue 36, point 6: a second --model replaced the first.
    # made here, so that no file of the copy (this test's source included) holds them before
    user, password, key = (f"{what}{uuid.uuid4().hex}" for what in ("u", "Pw", "sk-canary-"))
    workdir = copy_workflow(tmp_path / "scievals")
    env = dict(os.environ, SCIEVALS_GIT_COMMIT="testcommit", SCIEVALS_TEST_RUN_KEY=key)
    env.pop(CREDENTIALS_ENV, None)
    with FakeLLMServer() as server:
        url = server.openai_base_url.replace("http://", f"http://{user}:{password}@")
        run = subprocess.run(
            [sys.executable, "-m", "scievals", "run", "gating", "--model", "openai/fake",
             "--model", "openai/fake-two", "--base-url", url, "--api-key-env",
             "SCIEVALS_TEST_RUN_KEY", "--limit", "1", "--cores", "2"],
            cwd=workdir, env=env, capture_output=True, text=True, timeout=900, check=False)
        assert run.returncode == 0, run.stderr[-4000:]
        # 1 case x 3 contexts x 2 strategies, for each of the two models
        assert server.count == 2 * 6
        assert {r["body"]["model"] for r in server.requests} == {"fake", "fake-two"}
        headers = {r["headers"].get("Authorization") for r in server.requests}
        # the URL's credentials reached the server (basic auth; the SDK's bearer key is
        # replaced by them)
        assert headers == {"Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}

    # Both models ran and are in the summary beside the baseline.
    summary = pd.read_csv(workdir / "results" / "gating" / "summary.csv")
    assert set(summary["model"]) == {"marker_baseline", "fake", "fake-two"}
    overlay = yaml.safe_load((workdir / ".scievals" / "run" / "gating.yaml").read_text())
    assert overlay["models"]["fake"]["base_url"] == url.replace(f"{user}:{password}", "***")
    # grep -r over the whole copy: no file anywhere holds the password, the user or the key
    for needle in (password, user, key):
        assert _files_holding(workdir, needle.encode(), {}) == [], needle
        assert needle not in run.stdout + run.stderr
