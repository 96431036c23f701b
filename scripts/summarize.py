"""Entry script: merge result tables (rules summarize_benchmark and summarize_all)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.common.history import record_history
from scievals.common.tables import concat_tables, write_result_table
from scievals.report.leaderboard_cli import write_leaderboard


def summarize(smk):
    # summarize_all names its tables (its comparisons feed the leaderboard's ranks)
    named = hasattr(smk.input, "keys") and "tables" in smk.input.keys()  # noqa: SIM118
    tables = smk.input.tables if named else smk.input
    table = concat_tables(tables)
    write_result_table(smk.output[0], table)
    if "history_dir" in smk.params.keys():  # noqa: SIM118 (Namedlist: `in` tests values)
        record_history(smk.output[0], smk.params.history_dir)
    if "leaderboard" in smk.output.keys():  # noqa: SIM118
        write_leaderboard(smk.output[0], markdown_out=smk.output.leaderboard,
                          comparisons=list(smk.input.comparisons) if named else None)


run(snakemake, summarize)
