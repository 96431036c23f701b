"""Entry script of rule abdev_download: fetch GDPa1 (or fall back to the embedded demo)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.abdev.data import fetch_gdpa1
from scievals.common.entry import run


def download(smk):
    fetch_gdpa1(dict(smk.params.cfg), smk.output.truth, smk.output.heldout, smk.output.source,
                store=smk.params.store)


run(snakemake, download)
