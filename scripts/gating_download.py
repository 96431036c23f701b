"""Entry script of rule gating_download: workspace sources (FlowRepository, URLs, a local path)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.gating.data import fetch


def download(smk):
    fetch(dict(smk.params.cfg), smk.params.out_dir, smk.output.report)


run(snakemake, download)
