"""Entry script of rule autogkb_import: a user's own predictions/autogkb/<model>.json."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.autogkb.predict import import_predictions
from scievals.common.entry import run


def import_file(smk):
    import_predictions(smk.input.user, smk.input.cases, smk.wildcards.model,
                       smk.output.predictions)


run(snakemake, import_file)
