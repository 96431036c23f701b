"""Entry script of rule summarize_benchmark: one benchmark's score tables -> its summary
(as text, without pandas: scievals.common.table_files)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.common.table_files import concat_files


def summarize(smk):
    concat_files(smk.input, smk.output[0])


run(snakemake, summarize)
