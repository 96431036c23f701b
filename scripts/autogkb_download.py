"""Entry script of rule autogkb_download: ClinPGx zip (per autogkb.source), PMC full texts."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.autogkb.data import fetch_sources
from scievals.common.entry import run


def download(smk):
    fetch_sources(dict(smk.params.cfg), smk.params.raw_dir, smk.output.source)


run(snakemake, download)
