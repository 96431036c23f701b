"""Entry script of rule gating_curate: OMIP cases + extracted workspaces -> cases.jsonl."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.gating.curate import build_cases


def curate(smk):
    build_cases(list(smk.params.omip_dirs), smk.input.extracted, smk.output.cases, smk.output.report,
                download_json=smk.input.download)


run(snakemake, curate)
