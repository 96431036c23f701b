"""Entry script of the predict rules <b>_predict_baseline and <b>_predict_llm: one model's predictions
(scievals.common.entry.run_stage: the stage's job function in scievals.<b>)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run_stage

run_stage(snakemake)
