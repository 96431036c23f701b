"""Entry script of rules summarize_all and refresh_summary: the merged results/summary.csv,
its history entry and results/leaderboard.md (scievals.results.summary)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.results.summary import merge, refresh


def summarize(smk):
    params = {name: getattr(smk.params, name) for name in smk.params.keys()}  # noqa: SIM118
    if "summaries" in params:  # a benchmark target refreshes the merged summary
        refresh(smk.input[0], params["summaries"], params["summary"], params["leaderboard"],
                params["history_dir"], smk.output[0])
        return
    # summarize_all names its tables: its other input, comparisons.csv, feeds the ranks
    tables = smk.input.tables if hasattr(smk.input, "tables") else smk.input
    merge(tables, smk.output[0], params["history_dir"], smk.output.leaderboard)


run(snakemake, summarize)
