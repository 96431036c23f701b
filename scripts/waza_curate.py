"""Entry script of rule waza_curate: load every suite strictly and list its tasks."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.waza.curate import curate


def curate_suites(smk):
    curate(smk.input.download, smk.input.suites, smk.output.cases, smk.output.report)


run(snakemake, curate_suites)
