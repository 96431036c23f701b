"""Entry script of the score rules <b>_score (one model) and <b>_score_own_<k> (a batch of
own files): scievals.<b>.score.score(job) with a ScoreJob built from the rule (a batch:
score_batch(jobs))."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run_score

run_score(snakemake)
