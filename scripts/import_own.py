"""Entry script of the import rules <b>_import: a user's own prediction file, validated and normalised
(scievals.common.entry.run_stage: the stage's job function in scievals.<b>)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run_stage

run_stage(snakemake)
