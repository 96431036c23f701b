"""Entry script of rule waza_score: grade one model's runs; its table, per-task CSV, review."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.common.jobs import ScoreJob
from scievals.waza.score import score


def score_job(smk):
    score(ScoreJob(
        benchmark="waza", model=smk.wildcards.model, predictions=list(smk.input.predictions),
        truth={"source": smk.input.source, "suites": smk.input.suites},
        outputs={name: getattr(smk.output, name)
                 for name in ("table", "per_case", "graded", "review")},
        bootstrap=dict(smk.params.bootstrap), config_hash=smk.params.config_hash,
        settings=dict(smk.params.settings)))


run(snakemake, score_job)
