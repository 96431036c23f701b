"""Entry script of rule gating_import: a user's own prediction file, validated and parsed."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.gating.predict import import_predictions


def import_file(smk):
    import_predictions(smk.input.user, smk.input.cases, smk.wildcards.model, smk.output.predictions)


run(snakemake, import_file)
