"""``python -m scievals run``'s overlay and snakemake command line (no workflow run; the run
itself: tests/workflow/test_workflow_run_command.py)."""

from __future__ import annotations

import sys

import pytest
import yaml
from scievals import run
from scievals.cli import main


def test_the_target_comes_first_and_configfile_last(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    own = tmp_path / "mine.yaml"
    own.write_text("gating: {contexts: [minimal]}\n")
    code = main(["run", "gating", "--model", "openai/llama3.1:8b", "--base-url",
                 "http://localhost:11434/v1", "--limit", "3", "--configfile", str(own),
                 "--cores", "2", "--print-command", "--", "--forcerun", "gating_score"])
    assert code == 0
    command = capsys.readouterr().out.split()
    # neither --forcerun nor --configfile (both take every word after them) precedes the target
    assert command[:4] == [sys.executable, "-m", "snakemake", "gating"]
    assert command[-3:] == ["--configfile", str(own), ".scievals/run/gating.yaml"]
    assert command[command.index("--forcerun") + 1] == "gating_score"
    overlay = yaml.safe_load((tmp_path / ".scievals" / "run" / "gating.yaml").read_text())
    assert overlay == {
        "models": {"llama3.1-8b": {"provider": "openai", "model": "llama3.1:8b",
                                   "base_url": "http://localhost:11434/v1"}},
        # the configured baseline stays, to compare with; the limit goes to the section
        "gating": {"models": ["marker_baseline", "llama3.1-8b"], "limit": 3},
    }


def test_without_model_or_limit_no_overlay_is_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "abdev", "--print-command"]) == 0
    assert "--configfile" not in capsys.readouterr().out
    assert not (tmp_path / ".scievals").exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["--model", "foo/bar"], "unknown provider 'foo'"),
    (["--model", "nosuchentry"], "neither PROVIDER/MODEL nor a model of the config's registry"),
    (["--base-url", "http://x/v1"], "given without --model"),
    (["--configfile", "missing.yaml"], "missing.yaml: config file not found"),
    (["--limit", "2"], "abdev has no item limit"),
])
def test_bad_arguments_get_one_line(argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    benchmark = "abdev" if "--limit" in argv else "gating"
    assert main(["run", benchmark, *argv, "--print-command"]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_registry_entry_can_be_named_without_a_provider(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = {"models": {"random": {"provider": "baseline"}, "mine": {"provider": "openai"}},
              "abdev": {"models": ["random", "mine"]}}
    args = run.argparse.Namespace(benchmark="abdev", model="mine", base_url=None,
                                  api_key_env=None, limit=None)
    assert run.overlay(args, config) == {"abdev": {"models": ["random", "mine"]}}
