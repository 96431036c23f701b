"""Entry script of rules autogkb_predict_baseline / autogkb_predict_llm: one model, all articles."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.autogkb.predict import run as predict_run
from scievals.common.entry import run


def predict(smk):
    predict_run(smk.input.cases, smk.input.vocabulary, smk.wildcards.model,
                dict(smk.params.config), smk.output.predictions, smk.output.usage)


run(snakemake, predict)
