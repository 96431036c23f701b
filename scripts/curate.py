"""Entry script of the curate rules <b>_curate: raw files -> one normalised, validated case file
(scievals.common.entry.run_stage: the stage's job function in scievals.<b>)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run_stage

run_stage(snakemake)
