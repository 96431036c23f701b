"""The stage contract's typed job: what every benchmark's ``score`` receives.

One score entry for every benchmark (``scievals.<b>.score.score(job)``): the rule's entry
script builds a :class:`ScoreJob` from the ``snakemake`` object (or a test or the CLI builds
one directly) and the benchmark reads what it needs from it. Names of inputs and outputs are
the rule's (``input.cases``, ``output.table``, ...), so a benchmark's score module and its
rule agree by name, not by position.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from scievals.common.workflow import stage_of_rule

# Bootstrap settings when a caller gives none (the config schema's defaults).
DEFAULT_BOOTSTRAP = MappingProxyType({"n_resamples": 1000, "seed": 0})
# Params of a score rule that are the workflow's, not settings of the benchmark's scoring:
# the rest (e.g. a fold column or a match threshold) become ``ScoreJob.settings``.
WORKFLOW_PARAMS = frozenset({"bootstrap", "config_hash", "code_version", "models", "origins"})


def _paths(value) -> Path | tuple[Path, ...]:
    """One path, or a tuple of paths for an input of several files."""
    return Path(value) if isinstance(value, str | Path) else tuple(Path(v) for v in value)


def _frozen(mapping: Mapping | None) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class ScoreJob:
    """One model's predictions to score against one benchmark's truth.

    - ``predictions``: the model's prediction file(s) as the predict or import stage wrote
      them (one file for most benchmarks; one per suite where a model's run is split).
    - ``truth``: named truth inputs (``cases``, ``curation``, ``source``, ...); an input of
      several files is a tuple of paths.
    - ``outputs``: named output paths (``table`` always; ``per_case``, ``review``, ...).
    - ``bootstrap``: the config's ``bootstrap`` section (``n_resamples``, ``seed``, ...).
    - ``config_hash``: the benchmark's config hash, written into every row's provenance.
    - ``settings``: benchmark-specific, number-changing parameters (e.g. a threshold).
    - ``usage``: the predict stage's token/cost record (LLM and baseline models), if any.
    - ``origin``: the user's own file the predictions came from ("" for the workflow's own).
    """

    benchmark: str
    model: str
    predictions: tuple[Path, ...]
    truth: Mapping[str, Path | tuple[Path, ...]]
    outputs: Mapping[str, Path]
    # A factory: Python 3.11 refuses an unhashable (mappingproxy) default.
    bootstrap: Mapping[str, Any] = field(default_factory=lambda: DEFAULT_BOOTSTRAP)
    config_hash: str = ""
    settings: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    usage: Path | None = None
    origin: str = ""

    def __post_init__(self) -> None:
        # Normalise once so that every benchmark sees Paths and read-only mappings.
        object.__setattr__(self, "predictions", tuple(Path(p) for p in self.predictions))
        object.__setattr__(self, "truth", _frozen({k: _paths(v) for k, v in self.truth.items()}))
        object.__setattr__(self, "outputs", _frozen({k: Path(v) for k, v in self.outputs.items()}))
        object.__setattr__(self, "bootstrap", _frozen(self.bootstrap))
        object.__setattr__(self, "settings", _frozen(self.settings))
        if self.usage is not None:
            object.__setattr__(self, "usage", Path(self.usage))

    @property
    def prediction(self) -> Path:
        """The one prediction file of a benchmark that has one per model."""
        if len(self.predictions) != 1:
            raise ValueError(f"{self.benchmark}/{self.model}: expected one prediction file, "
                             f"got {len(self.predictions)}")
        return self.predictions[0]

    @classmethod
    def from_snakemake(cls, smk: Any) -> ScoreJob:
        """The one job of a ``<b>_score`` rule (see :func:`jobs_from_snakemake`)."""
        jobs = jobs_from_snakemake(smk)
        if len(jobs) != 1:
            raise ValueError(f"rule {smk.rule} scores {len(jobs)} models; use jobs_from_snakemake")
        return jobs[0]


def _listed(value) -> list:
    return [value] if isinstance(value, str | Path) else list(value)


def jobs_from_snakemake(smk: Any) -> list[ScoreJob]:
    """The score jobs of one rule run: one for ``<b>_score``, one per own file of a batch
    rule ``<b>_score_own_<k>``.

    The rule's input ``predictions`` holds the model's prediction file(s) and ``usage`` the
    predict stage's record; every other input is truth. A batch rule names its models in
    ``params.models`` (and the user's files in ``params.origins``); its predictions and each
    output are then parallel lists, item i belonging to model i.
    """
    benchmark, _ = stage_of_rule(smk.rule)
    params = dict(smk.params.items())
    models = list(params.get("models") or [smk.wildcards.model])
    origins = list(params.get("origins") or [""] * len(models))
    inputs = dict(smk.input.items())
    predictions = _listed(inputs.pop("predictions"))
    usage = inputs.pop("usage", None)
    outputs = {name: _listed(paths) for name, paths in smk.output.items()}
    common = dict(benchmark=benchmark, truth=inputs,
                  bootstrap=dict(params.get("bootstrap") or DEFAULT_BOOTSTRAP),
                  config_hash=str(params.get("config_hash", "")),
                  settings={k: v for k, v in params.items() if k not in WORKFLOW_PARAMS})
    if len(models) == 1:
        return [ScoreJob(model=models[0], predictions=tuple(predictions),
                         outputs={k: v[0] for k, v in outputs.items()}, usage=usage,
                         origin=origins[0], **common)]
    return [ScoreJob(model=model, predictions=(predictions[i],),
                     outputs={k: v[i] for k, v in outputs.items()}, origin=origins[i], **common)
            for i, model in enumerate(models)]
