"""What waza's generated rules run (scripts/<stage>.py calls these with the job's
``snakemake`` object; scoring is :func:`scievals.waza.score.score`)."""

from __future__ import annotations

from scievals.waza.curate import curate as curate_suites
from scievals.waza.data import download_suites
from scievals.waza.predict import import_predictions, predict_job


def download(smk) -> None:
    """The configured suites, checked, and source.json."""
    download_suites(dict(smk.params.cfg), smk.output.suites, smk.output.source)


def curate(smk) -> None:
    """Load every suite strictly and list its tasks."""
    curate_suites(smk.input.source, smk.input.suites, smk.output.cases, smk.output.report)


def predict(smk) -> None:
    """One suite, one model (the mock executor or the LLM agent loop): its runs, recorded."""
    # LLM request records and usage.json: the llm rule only
    records, usage = getattr(smk.output, "records", None), getattr(smk.output, "usage", None)
    predict_job(f"{smk.input.suites}/{smk.wildcards.suite}", smk.wildcards.model,
                dict(smk.params.config), smk.output.predictions, records, usage,
                threads=smk.threads)  # bounds a parallel suite's workers


def import_own(smk) -> None:
    """A user's own results, checked and filed by suite (the score stage grades them)."""
    import_predictions(smk.input.user, smk.input.suites, list(smk.params.suites),
                       smk.output.predictions)
