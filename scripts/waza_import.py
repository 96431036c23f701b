"""Entry script of rule waza_import: check a user's own results and file them by suite."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.waza.predict import import_predictions


def import_own(smk):
    import_predictions(smk.input.user, smk.input.suites, list(smk.params.suites),
                       smk.output.imported)


run(snakemake, import_own)
