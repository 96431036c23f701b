"""What gating's generated rules run (scripts/<stage>.py calls these with the job's
``snakemake`` object; scoring is :func:`scievals.gating.score.score`)."""

from __future__ import annotations

from scievals.gating.curate import build_cases
from scievals.gating.data import fetch
from scievals.gating.predict import import_predictions, run


def download(smk) -> None:
    """Workspace sources (FlowRepository, URLs, a local path) and data/raw/gating/source.json."""
    fetch(dict(smk.params.cfg), smk.params.out_dir, smk.output.source)


def curate(smk) -> None:
    """OMIP cases + extracted workspaces -> cases.jsonl and its curation report."""
    build_cases(list(smk.params.omip_dirs), smk.input.extracted, smk.output.cases,
                smk.output.report, download_json=smk.input.source)


def predict(smk) -> None:
    """One model (baseline or LLM), every case and prompt condition."""
    run(smk.input.cases, smk.wildcards.model, dict(smk.params.config), smk.output.predictions,
        smk.output.usage)


def import_own(smk) -> None:
    """A user's own prediction file, validated and parsed."""
    import_predictions(smk.input.user, smk.input.cases, smk.wildcards.model,
                       smk.output.predictions)
