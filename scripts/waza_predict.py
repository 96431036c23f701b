"""Entry script of rules waza_predict_baseline / waza_predict_llm: one suite, one model."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.waza.predict import predict_job


def predict(smk):
    # LLM request records and usage.json: the llm rule only
    records, usage = getattr(smk.output, "records", None), getattr(smk.output, "usage", None)
    predict_job(f"{smk.input.suites}/{smk.wildcards.suite}", smk.wildcards.model,
                dict(smk.params.config), smk.output.results, records, usage,
                threads=smk.threads)  # bounds a parallel suite's workers


run(snakemake, predict)
