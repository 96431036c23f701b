"""Entry script of rule abdev_predict_baseline: out-of-fold predictions of one baseline model."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

from scievals.abdev.predict import run_baseline
from scievals.common.entry import run


def predict(smk):
    run_baseline(smk.wildcards.model, smk.input.truth, smk.output[0], smk.params.fold_col, smk.params.seed)


run(snakemake, predict)
