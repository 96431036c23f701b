"""Entry script of the download rules <b>_download: fetch a benchmark's data (or fall back to its embedded demo)
(scievals.common.entry.run_stage: the stage's job function in scievals.<b>)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run_stage

run_stage(snakemake)
