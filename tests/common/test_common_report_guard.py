"""``snakemake --report`` alone, before the figures exist, gets one line naming the command
that makes them (scievals.common.targets.report_is_missing_inputs, used by the Snakefile)."""

from __future__ import annotations

from scievals.common.targets import report_is_missing_inputs

FIGURES = ["results/report/abdev/model_comparison.png", "results/report/leaderboard_fragment.html"]


def test_report_alone_with_a_missing_figure_is_caught():
    missing = {"results/report/abdev/model_comparison.png"}

    def exists(path):
        return path not in missing

    assert report_is_missing_inputs(["--report", "results/report.html"], FIGURES, exists)
    # with a target, as the issue tried: the same
    assert report_is_missing_inputs(["--report", "results/report.html", "results/summary.csv"],
                                    FIGURES, exists)
    # --report-after-run makes them first; a run that is not a report is not concerned
    assert not report_is_missing_inputs(["--cores", "8", "--report", "results/report.html",
                                         "--report-after-run"], FIGURES, exists)
    assert not report_is_missing_inputs(["--cores", "2", "results/summary.csv"], FIGURES, exists)
    # everything there: the report may be bundled
    assert not report_is_missing_inputs(["--report", "results/report.html"], FIGURES,
                                        lambda path: True)
