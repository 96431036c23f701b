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

# Bootstrap settings when a caller gives none (the config schema's defaults).
DEFAULT_BOOTSTRAP = MappingProxyType({"n_resamples": 1000, "seed": 0})


def _frozen(mapping: Mapping | None) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class ScoreJob:
    """One model's predictions to score against one benchmark's truth.

    - ``predictions``: the model's prediction file(s) as the predict or import stage wrote
      them (one file for most benchmarks; one per suite for waza).
    - ``truth``: named truth inputs (``cases``, ``curation``, ``source``, ...).
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
    truth: Mapping[str, Path]
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
        object.__setattr__(self, "truth", _frozen({k: Path(v) for k, v in self.truth.items()}))
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
