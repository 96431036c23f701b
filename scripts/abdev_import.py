"""Entry script of rule abdev_import: a user's own prediction file, brought into results/.

The copy is checked against the truth by abdev_score (which validates every prediction
file, own or baseline), so this job only copies: it imports no pandas.
"""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.common.io import copy_file


def import_file(smk):
    copy_file(smk.input.user, smk.output.predictions)


run(snakemake, import_file)
