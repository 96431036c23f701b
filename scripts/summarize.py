"""Entry script: merge result tables (rules summarize_benchmark and summarize_all)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.common.history import record_history
from scievals.common.quality import record_quality_notices
from scievals.common.tables import concat_tables, write_result_table
from scievals.report.leaderboard_cli import write_leaderboard


def summarize(smk):
    table = concat_tables(smk.input)
    write_result_table(smk.output[0], table)
    if "benchmark" in smk.wildcards.keys():  # noqa: SIM118 (one benchmark: say its problems)
        record_quality_notices(smk.wildcards.benchmark, table, list(smk.input))
    if "history_dir" in smk.params.keys():  # noqa: SIM118 (Namedlist: `in` tests values)
        record_history(smk.output[0], smk.params.history_dir)
    if "leaderboard" in smk.output.keys():  # noqa: SIM118
        write_leaderboard(smk.output[0], markdown_out=smk.output.leaderboard)


run(snakemake, summarize)
