"""Entry script of rule gating_curate: OMIP cases + extracted workspaces -> cases.jsonl."""

from scievals.common.entry import run
from scievals.gating.curate import build_cases


def curate(smk):
    build_cases(list(smk.params.omip_dirs), smk.input.extracted, smk.output.cases, smk.output.report)


run(snakemake, curate)  # noqa: F821
