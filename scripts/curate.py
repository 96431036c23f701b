"""Entry script of the curate rules <b>_curate: raw files -> one normalised, validated case file
(scievals.<b>.steps, found from the rule's name)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run_stage

run_stage(snakemake)
