"""Entry script of the abdev_import_own_<k> rules: the user's own prediction files of one
score batch copied as they are, each atomically (the score job validates them and names
the user's file in its errors)."""

import shutil
import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.common.entry import run
from scievals.common.io import atomic_path


def copy_own(smk):
    for user, copy in zip(smk.input.user, smk.output.predictions, strict=True):
        with atomic_path(copy) as tmp:
            shutil.copyfile(user, tmp)


run(snakemake, copy_own)
