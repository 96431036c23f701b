"""Entry script of rule summarize_benchmark: one benchmark's score tables -> its summary."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.common.tables import concat_tables, write_result_table


def summarize(smk):
    write_result_table(smk.output[0], concat_tables(smk.input))


run(snakemake, summarize)
