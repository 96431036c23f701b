"""What abdev's generated rules run (scripts/<stage>.py calls these with the job's
``snakemake`` object; scoring is :func:`scievals.abdev.score.score`)."""

from __future__ import annotations

from scievals.abdev.data import fetch_gdpa1
from scievals.abdev.predict import run_baseline


def download(smk) -> None:
    """GDPa1 (or the embedded demo, said in source.json and the notices)."""
    fetch_gdpa1(dict(smk.params.cfg), smk.output.truth, smk.output.heldout, smk.output.source,
                store=smk.params.store)


def predict(smk) -> None:
    """Out-of-fold predictions of one baseline model."""
    run_baseline(smk.wildcards.model, smk.input.truth, smk.output.predictions,
                 smk.params.fold_col, smk.params.seed)
