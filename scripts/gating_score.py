"""Entry script of rule gating_score: per-case scores, result table and review of one model."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.gating.score import score_to_tables


def score(smk):
    score_to_tables(smk.input.cases, smk.input.curation, smk.input.predictions,
                    smk.wildcards.model, dict(smk.params.bootstrap), smk.params.config_hash,
                    smk.output.table, smk.output.per_case, smk.output.review,
                    usage_json=getattr(smk.input, "usage", None))  # no usage for own files


run(snakemake, score)
