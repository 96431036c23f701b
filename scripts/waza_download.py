"""Entry script of rule waza_download: copy the configured suites, with checksums."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.waza.data import copy_suites


def download(smk):
    cfg = dict(smk.params.cfg)
    copy_suites(cfg["source"], cfg["path"], list(cfg["suites"]), smk.params.out_dir,
                smk.output.report)


run(snakemake, download)
