"""The commands a run's last lines name carry the run's config files (issue 36, point 2)."""

from __future__ import annotations

import shlex

from scievals.common.hints import snakemake_command
from scievals.common.targets import report_after_run


def test_a_plain_run_gets_the_plain_command(tmp_path):
    assert snakemake_command("results/report/samples.html", snakefile=tmp_path / "Snakefile",
                             cwd=tmp_path) == "snakemake --cores 8 results/report/samples.html"


def test_the_run_s_config_files_come_last_relative_to_the_working_directory(tmp_path):
    overlay = tmp_path / ".scievals" / "run" / "gating.yaml"
    outside = tmp_path.parent / "my config.yaml"
    command = snakemake_command("--report", "results/report.html", "--report-after-run",
                                configfiles=[outside, overlay],
                                snakefile=tmp_path / "Snakefile", cwd=tmp_path)
    words = shlex.split(command)
    # --configfile takes every word after it, so it is last, after the report's options
    assert words == ["snakemake", "--cores", "8", "--report", "results/report.html",
                     "--report-after-run", "--configfile", str(outside),
                     ".scievals/run/gating.yaml"]


def test_a_workflow_elsewhere_is_named_with_snakefile(tmp_path):
    workflow = tmp_path / "clone"
    words = shlex.split(snakemake_command("x", snakefile=workflow / "Snakefile",
                                          cwd=tmp_path / "elsewhere"))
    assert words[:5] == ["snakemake", "--snakefile", str(workflow / "Snakefile"), "--cores", "8"]


def test_a_run_that_writes_the_report_is_told_apart():
    assert report_after_run(["--cores", "2", "--report", "results/report.html",
                             "--report-after-run"]) == "results/report.html"
    assert report_after_run(["--report", "results/report.html"]) is None
    assert report_after_run(["--cores", "2", "results/summary.csv"]) is None


def test_the_viewer_hint_opens_on_the_model_the_run_singles_out():
    """issue 46 item 7: after `run gating --model ...` the viewer hint opened abdev/random."""
    from scievals.common.hints import viewer_address

    page = "results/report/samples.html"
    llms = {"abdev": [], "gating": ["mine", "probe-model"], "waza": ["waza_mock"]}
    # run puts the model given last in the section's models
    assert viewer_address(page, ["gating"], llms) == \
        "results/report/samples.html#gating/probe-model"
    # the first named benchmark with an LLM, in the config's order; names %-encoded
    assert viewer_address(page, ["waza", "abdev"], llms) == \
        "results/report/samples.html#waza/waza_mock"
    assert viewer_address(page, ["gating"], {"gating": ["a b/c"]}) == \
        "results/report/samples.html#gating/a%20b%2Fc"
    # no benchmark target (the default run), or no LLM: no address to single out
    assert viewer_address(page, ["results/summary.csv"], llms) is None
    assert viewer_address(page, ["abdev"], llms) is None
