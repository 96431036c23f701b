"""Entry script of rule autogkb_score: per-article scores, result table and review of one model."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.autogkb.score import provenance_for, score_model
from scievals.common.entry import run


def score(smk):
    provenance = provenance_for(smk.input.cases, smk.input.curation, smk.params.config_hash)
    score_model(smk.input.cases, smk.input.predictions, provenance, dict(smk.params.bootstrap),
                smk.params.threshold, smk.output.table, smk.output.per_article,
                smk.output.review, model=smk.wildcards.model,
                usage_json=getattr(smk.input, "usage", None))


run(snakemake, score)
