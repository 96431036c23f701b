"""Entry script of rule summarize_benchmark: one benchmark's score tables -> its summary
(as text, without pandas: scievals.common.table_files), then the benchmark's quality
notices (scievals.common.quality: unparseable replies, own files lacking items; pandas is
loaded only when the text pre-check finds something to look at)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.common.quality import may_have_problems, record_quality_notices
from scievals.common.table_files import concat_files


def summarize(smk):
    concat_files(smk.input, smk.output[0])
    score_tables = list(smk.input)
    if may_have_problems(smk.output[0], score_tables):
        # start-up: pandas only when a problem is possible
        from scievals.common.tables import read_result_table

        record_quality_notices(smk.wildcards.benchmark, read_result_table(smk.output[0]),
                               score_tables)


run(snakemake, summarize)
