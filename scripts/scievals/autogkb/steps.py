"""What autogkb's generated rules run (scripts/<stage>.py calls these with the job's
``snakemake`` object; scoring is :func:`scievals.autogkb.score.score`)."""

from __future__ import annotations

from scievals.autogkb.curate import curate as curate_cases
from scievals.autogkb.data import fetch_sources
from scievals.autogkb.predict import import_predictions, run
from scievals.common.io import read_json


def download(smk) -> None:
    """The ClinPGx zip (per ``autogkb.source``) and PMC full texts; source.json."""
    fetch_sources(dict(smk.params.cfg), smk.params.raw_dir, smk.output.source)


def curate(smk) -> None:
    """Annotations + texts -> cases, drug vocabulary and the curation report."""
    curate_cases(read_json(smk.input.source), smk.params.raw_dir, smk.output.cases,
                 smk.output.report, smk.output.vocabulary)


def predict(smk) -> None:
    """One model (baseline or LLM), every article."""
    run(smk.input.cases, smk.input.vocabulary, smk.wildcards.model, dict(smk.params.config),
        smk.output.predictions, smk.output.usage)


def import_own(smk) -> None:
    """A user's own predictions/autogkb/<model>.json."""
    import_predictions(smk.input.user, smk.input.cases, smk.wildcards.model,
                       smk.output.predictions)
