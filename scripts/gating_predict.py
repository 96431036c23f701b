"""Entry script of rules gating_predict_baseline / gating_predict_llm: one model, all conditions."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.gating.predict import run as predict_run


def predict(smk):
    predict_run(smk.input.cases, smk.wildcards.model, dict(smk.params.config),
                smk.output.predictions, smk.output.usage)


run(snakemake, predict)
