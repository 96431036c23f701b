"""Entry script of rule gating_score: per-case scores, result table and review of one model."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.gating.score import provenance_for, score_model


def score(smk):
    provenance = provenance_for(smk.input.cases, smk.input.curation, smk.params.config_hash)
    usage = getattr(smk.input, "usage", None)  # absent for bring-your-own predictions
    score_model(smk.input.cases, smk.input.predictions, provenance, dict(smk.params.bootstrap),
                smk.output.table, smk.output.per_case, smk.output.review, usage_json=usage,
                model=smk.wildcards.model)


run(snakemake, score)
