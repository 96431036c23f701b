"""Entry script of rule waza_import: re-grade a user's own results with the suites."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.waza.predict import import_predictions


def import_own(smk):
    import_predictions(smk.input.user, smk.input.suites, list(smk.params.suites),
                   smk.output.imported, seed=smk.params.seed)


run(snakemake, import_own)
