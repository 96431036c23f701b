"""Entry script of rule abdev_predict: out-of-fold predictions of one baseline model."""

from scievals.abdev.baselines import run_baseline
from scievals.common.entry import run


def predict(smk):
    run_baseline(smk.wildcards.model, smk.input.truth, smk.output[0], smk.params.fold_col, smk.params.seed)


run(snakemake, predict)  # noqa: F821
