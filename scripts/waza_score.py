"""Entry script of rule waza_score: one model's table, per-task CSV and grader review."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.waza.score import outcomes_of, score_model


def score(smk):
    outcomes = outcomes_of(list(getattr(smk.input, "results", [])),
                           getattr(smk.input, "imported", None))
    score_model(smk.wildcards.model, outcomes, smk.input.download, smk.params.config_hash,
                dict(smk.params.bootstrap), smk.output.table, smk.output.per_case,
                smk.output.review)


run(snakemake, score)
