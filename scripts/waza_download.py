"""Entry script of rule waza_download: the configured suites, checked, and source.json."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.waza.data import download_suites


def download(smk):
    download_suites(dict(smk.params.cfg), smk.output.suites, smk.output.report)


run(snakemake, download)
