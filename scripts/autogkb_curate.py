"""Entry script of rule autogkb_curate: annotations + texts -> cases, drug vocabulary, report."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.autogkb.curate import curate
from scievals.common.entry import run
from scievals.common.io import read_json


def curate_step(smk):
    curate(read_json(smk.input.source), smk.params.raw_dir, smk.output.cases,
           smk.output.report, smk.output.vocabulary)


run(snakemake, curate_step)
