"""Entry script: merge result tables (rules summarize_benchmark, summarize_all and
refresh_summary)."""

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
    leaderboard = smk.output.leaderboard if "leaderboard" in smk.output.keys() else None  # noqa: SIM118
    merge(smk.input, smk.output[0], params.get("history_dir"), leaderboard)


run(snakemake, summarize)
