"""What a person reads when a workflow run fails (issue 29, point 6): a bad own file in the
same score job as a valid one, and an own file named like a configured model."""

from __future__ import annotations

import pandas as pd
import pytest
from scievals.abdev.constants import DEFAULT_FOLD_COL
from scievals.abdev.data import DEMO_CSV
from scievals.common.tables import read_result_table

from .conftest import copy_workflow, snakemake

pytestmark = pytest.mark.slow
# every own file in one score job; the embedded demo truth (no download attempt offline)
OVERLAY = "abdev:\n  source: demo\n  byo_score_jobs: 1\n"


def test_a_bad_own_file_fails_the_run_in_one_line_and_its_neighbour_is_still_scored(tmp_path):
    workdir = copy_workflow(tmp_path / "scievals")
    (workdir / "over.yaml").write_text(OVERLAY)
    own = workdir / "predictions" / "abdev"
    own.mkdir(parents=True)
    truth = pd.read_csv(DEMO_CSV)
    frame = truth[["antibody_name", DEFAULT_FOLD_COL]].assign(HIC=range(len(truth)))
    frame.to_csv(own / "good.csv", index=False)
    frame.to_csv(own / "bad.csv", index=False, sep=";")  # a European spreadsheet's CSV

    proc = snakemake(workdir, "abdev", "--cores", "2", "--configfile", "over.yaml", check=False)
    assert proc.returncode == 1
    text = proc.stdout + proc.stderr
    # the valid file of the same score job was scored, and kept
    scored = read_result_table(workdir / "results" / "abdev" / "scores" / "good.csv")
    assert set(scored["model"]) == {"good"} and len(scored) > 0
    # the last lines: the failing file's one-line error, once, and how to go on
    tail = text[text.rindex("scievals: the run failed:"):].splitlines()
    assert tail[1].startswith("  predictions/abdev/bad.csv: ")
    assert "looks ;-separated" in tail[1]
    assert tail[2].startswith("  fix it, then re-run the same command")
    assert "where to look next" not in text
    notice = text[text.rindex("notice(s) about this run"):]
    assert ("not_scored: predictions/abdev/bad.csv was not scored (its error ends the run); the "
            "valid own files of its score job were: predictions/abdev/good.csv") in notice
    # no job command line carries the job's JSON any more
    assert '{"rule"' not in text
    assert max(len(line) for line in text.splitlines()) < 600

    # An own file named like a configured model: one line, before any job.
    (own / "bad.csv").unlink()
    frame.to_csv(own / "random.csv", index=False)
    clash = snakemake(workdir, "abdev", "--cores", "2", "--configfile", "over.yaml", check=False)
    assert clash.returncode == 1
    assert "AmbiguousRuleException" not in clash.stderr
    assert ("error: predictions/abdev/random.csv: own file named like the configured model "
            "'random'") in clash.stderr
