"""Entry script of rule gating_extract: FlowJo workspaces -> gate hierarchies (flowkit)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.gating.steps import extract

run(snakemake, extract)
