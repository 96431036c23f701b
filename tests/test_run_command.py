"""``python -m scievals run``'s overlay and snakemake command line (no workflow run; the run
itself: tests/workflow/test_workflow_run_command.py)."""

from __future__ import annotations

import json
import os
import sys

import pytest
import yaml
from scievals import run
from scievals.cli import main
from scievals.common.redaction import CREDENTIALS_ENV


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
    config = {"models": {"marker_baseline": {"provider": "baseline"},
                         "mine": {"provider": "openai"}},
              "gating": {"models": ["marker_baseline", "mine"]}}
    args = run.argparse.Namespace(benchmark="gating", model=["mine"], base_url=None,
                                  api_key_env=None, limit=None)
    assert run.overlay(args, config) == {"gating": {"models": ["marker_baseline", "mine"]}}


def _refused(tmp_path, capsys, *argv) -> str:
    """The one stderr line of a refused ``run`` (exit 1), having written nothing."""
    assert main(["run", *argv, "--print-command"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured.err
    assert list(tmp_path.iterdir()) == []  # no overlay, no .scievals folder
    return captured.err


@pytest.mark.parametrize(("argv", "message"), [
    # issue 34, item 7: a model named like the built-in baseline replaced it (its row then
    # scored 0.0 instead of 0.413)
    (["gating", "--model", "mock/marker_baseline"],
     "mock/marker_baseline would be named 'marker_baseline', which would replace the "
     "configured baseline model 'marker_baseline'"),
    # ... a baseline of another benchmark is in the same registry
    (["waza", "--model", "mock/random"], "would replace the configured baseline model 'random'"),
    # issue 36, point 6: abdev sends nothing to a model; it asked for a key, then ran nothing
    (["abdev", "--model", "openai/gpt-4o-mini"],
     "abdev sends nothing to a model (it scores its baselines and your own prediction files), "
     "so openai/gpt-4o-mini would not run (drop --model, or put the model's predictions in "
     "predictions/abdev/"),
    # two spellings of one registry name (model_name: ':' -> '-')
    (["gating", "--model", "openai/a:b", "--model", "openai/a-b"],
     "openai/a:b and openai/a-b would both be named 'a-b'"),
    (["gating", "--model", "marker_baseline", "--base-url", "http://h/v1"],
     "--base-url/--api-key-env: apply to PROVIDER/MODEL models only"),
    # invalid --limit, before Snakemake starts (it used to fail inside the workflow)
    (["gating", "--limit", "0"], "--limit: '0' is not a number of items"),
    (["gating", "--limit", "-1"], "--limit: '-1' is not a number of items"),
    (["gating", "--limit", "1.5"], "--limit: '1.5' is not a number of items"),
    (["gating", "--limit", "two"], "--limit: 'two' is not a number of items"),
])
def test_what_would_not_run_as_asked_is_refused_in_one_line(argv, message, tmp_path,
                                                             monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert message in _refused(tmp_path, capsys, *argv)


@pytest.mark.parametrize("value", ["sk-proj-Zq8aLr3XcanaryKEY0123456789", "gsk_canary0123456789",
                                   "my_key", "OPENAI API KEY"])
def test_a_value_that_is_no_variable_name_is_refused_without_being_shown(value, tmp_path,
                                                                          monkeypatch, capsys):
    # issue 34, item 7: a key given to --api-key-env was printed twice and stored in the
    # overlay, the config cache and a job file
    monkeypatch.chdir(tmp_path)
    err = _refused(tmp_path, capsys, "gating", "--model", "openai/gpt-4o-mini",
                   "--api-key-env", value)
    assert err.startswith("error: --api-key-env: takes the name of an environment variable")
    assert value not in err


def test_several_models_each_get_an_entry_after_the_baselines(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "gating", "--model", "openai/gpt-4o-mini", "--model", "mock/echo",
                 "--model", "openai/gpt-4o-mini", "--api-key-env", "MY_KEY_2",
                 "--print-command"]) == 0
    overlay = yaml.safe_load((tmp_path / ".scievals" / "run" / "gating.yaml").read_text())
    assert overlay == {
        "models": {"gpt-4o-mini": {"provider": "openai", "model": "gpt-4o-mini",
                                   "api_key_env": "MY_KEY_2"},
                   "echo": {"provider": "mock", "model": "echo", "api_key_env": "MY_KEY_2"}},
        # the same model given twice runs once
        "gating": {"models": ["marker_baseline", "gpt-4o-mini", "echo"]},
    }


def test_a_url_with_credentials_is_written_without_them(tmp_path, monkeypatch, capsys):
    # issue 34, item 7: the password was written in clear into .scievals/run/gating.yaml
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(CREDENTIALS_ENV, "")  # restored after the test (run sets it)
    assert main(["run", "gating", "--model", "openai/fake", "--base-url",
                 "http://gw:Pw-canary-77@127.0.0.1:9/v1", "--print-command"]) == 0
    captured = capsys.readouterr()
    assert "Pw-canary-77" not in captured.out + captured.err
    assert f"them in {CREDENTIALS_ENV}" in captured.err  # the printed command needs them
    overlay = yaml.safe_load((tmp_path / ".scievals" / "run" / "gating.yaml").read_text())
    assert overlay["models"]["fake"]["base_url"] == "http://***@127.0.0.1:9/v1"
    # what Snakemake, started from here, inherits (and declares for its jobs)
    assert json.loads(os.environ[CREDENTIALS_ENV]) == {
        "fake": "http://gw:Pw-canary-77@127.0.0.1:9/v1"}


def test_a_model_already_in_the_registry_as_given_is_no_shadow(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    mine = tmp_path / "mine.yaml"
    mine.write_text("models: {fake: {provider: openai, model: fake, base_url: 'http://h/v1',"
                    " price_in_per_mtok: 1.0, price_out_per_mtok: 2.0}}\n")
    assert main(["run", "gating", "--model", "openai/fake", "--base-url", "http://h/v1",
                 "--configfile", str(mine), "--print-command"]) == 0
    # ... while another base_url would change that model: refused
    assert main(["run", "gating", "--model", "openai/fake", "--base-url", "http://other/v1",
                 "--configfile", str(mine), "--print-command"]) == 1
    assert "which would replace the configured openai model 'fake'" in capsys.readouterr().err


def test_targets_after_the_double_dash_go_beside_the_benchmark(tmp_path, monkeypatch, capsys):
    # Snakemake reads targets only before its first option: a target after --cores was its
    # 150-line usage text ("unrecognized arguments: results/report/samples.html")
    monkeypatch.chdir(tmp_path)
    code = main(["run", "gating", "--limit", "2", "--print-command", "--",
                 "results/report/samples.html", "--forcerun", "gating_score"])
    assert code == 0
    command = capsys.readouterr().out.split()
    assert command[3:5] == ["gating", "results/report/samples.html"]
    assert command[command.index("--forcerun") + 1] == "gating_score"
    # and Snakemake's own parser reads both as targets
    from snakemake.cli import get_argument_parser
    args, _ = get_argument_parser().parse_known_args(command[3:])
    assert [str(t) for t in args.targets] == ["gating", "results/report/samples.html"]


def test_several_benchmarks_run_in_one_call(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "gating", "autogkb", "--model", "mock/echo", "--limit", "2",
                 "--print-command"]) == 0
    command = capsys.readouterr().out.split()
    assert command[3:5] == ["gating", "autogkb"]  # both targets, before any option
    assert command[-2:] == ["--configfile", ".scievals/run/gating+autogkb.yaml"]
    overlay = yaml.safe_load((tmp_path / ".scievals" / "run" / "gating+autogkb.yaml").read_text())
    assert overlay["models"] == {"echo": {"provider": "mock", "model": "echo"}}
    assert overlay["gating"] == {"models": ["marker_baseline", "echo"], "limit": 2}
    assert overlay["autogkb"]["limit"] == 2 and overlay["autogkb"]["models"][-1] == "echo"


def test_a_model_for_one_benchmark_without_llms_refuses_the_call(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "gating", "abdev", "--model", "mock/echo", "--print-command"]) == 1
    err = capsys.readouterr().err
    assert "abdev sends nothing to a model" in err and err.count("\n") == 1
    assert not (tmp_path / ".scievals").exists()


def _summary_of_two_models(path):
    from scievals.common.provenance import Provenance
    from scievals.common.tables import result_rows, write_result_table
    import pandas as pd

    prov = Provenance("gating", "OMIP-demo (limited to 2 items)", "a" * 64, "cfg")
    rows = [result_rows(prov, "marker_baseline", "baseline",
                        [{"metric": "hierarchy_f1", "value": 0.5, "ci_low": 0.25,
                          "ci_high": 0.75, "n": 2}]),
            result_rows(prov, "echo", "minimal_direct",
                        [{"metric": "hierarchy_f1", "value": 0.125, "ci_low": 0.0,
                          "ci_high": 0.5, "n": 2},
                         {"metric": "depth_accuracy", "value": 0.9, "n": 2}]),
            result_rows(prov, "older", "minimal_direct",
                        [{"metric": "hierarchy_f1", "value": 0.3, "n": 2}])]
    write_result_table(path, pd.concat(rows, ignore_index=True))
    return path


def test_the_run_ends_with_the_rows_of_its_models(tmp_path, capsys):
    summary = _summary_of_two_models(tmp_path / "summary.csv")
    args = run.argparse.Namespace(benchmark=["gating"])
    run.print_results(args, {"gating": {"models": ["marker_baseline", "echo"]}}, summary)
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("scievals: results of this run")
    assert out[2] == "gating - OMIP-demo (limited to 2 items)"
    # the headline metric (hierarchy_f1, the first of gating's) as value [CI] and n, best
    # first; "older" was not run, depth_accuracy is not the headline
    assert [line.split() for line in out[3:]] == [
        ["model", "condition", "hierarchy_f1", "n"],
        ["marker_baseline", "baseline", "0.500", "[0.250,", "0.750]", "2"],
        ["echo", "minimal_direct", "0.125", "[0.000,", "0.500]", "2"]]


def test_run_benchmark_refuses_an_unknown_benchmark_in_one_error():
    from scievals.common.errors import ScievalsError

    with pytest.raises(ScievalsError, match="no benchmark 'gatin'"):
        run.run_benchmark("gatin")


def test_batch_sends_every_model_through_its_batch_api(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "gating", "--model", "openai/gpt-x", "--batch", "--print-command"]) == 0
    overlay = yaml.safe_load((tmp_path / ".scievals" / "run" / "gating.yaml").read_text())
    assert overlay["llm"] == {"batch": {"every_model": True}}
    from scievals.llm.batch import uses_batch
    from scievals.llm.registry import model_spec
    from scievals.llm.settings import LLMSettings

    settings = LLMSettings.from_config(overlay["llm"])
    assert uses_batch(model_spec("gpt-x", overlay), settings)
    assert not uses_batch(model_spec("gpt-x", overlay), LLMSettings())
