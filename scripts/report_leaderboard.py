"""Entry script of rule report_leaderboard: the leaderboard page of the HTML report."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.results.show import write_leaderboard


def leaderboard(smk):
    write_leaderboard(smk.input[0], html_out=smk.output.page, fragment_out=smk.output.fragment,
                      comparisons=list(smk.input.comparisons),
                      bootstrap=dict(smk.params.bootstrap))


run(snakemake, leaderboard)
