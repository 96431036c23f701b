"""Helpers the rule files call at DAG-build time (kept out of the .smk files).

Every benchmark's rules file gets its model names the same way: the configured models
split into built-in baselines and LLMs (by their registry provider), plus the user's own
prediction files (bring your own), each turned into a wildcard constraint by
:func:`model_regex`.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from pathlib import Path

from scievals.common import notices
from scievals.common.errors import ScievalsError

MODEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
# Per-model outputs are named ``<model>.<part>.<ext>`` beside ``<model>.<ext>`` (e.g.
# ``scores/my.reference.csv``): an own file called ``my.reference`` would be the same file as
# model ``my``'s part, which Snakemake reports as an ambiguous rule (or, in one batch, silently
# overwrites). These parts are reserved as the last dot-part of a model name.
RESERVED_PARTS = ("reference", "per_case", "per_article", "usage", "review", "failures",
                  "manifest", "samples", "comparisons", "summary")


def byo_prediction_models(predictions_dir: str, suffix: str, configured: list[str]) -> list[str]:
    """Model names of the user's own prediction files (``<dir>/<model><suffix>``).

    A file whose name is not a valid model name, or that shadows a configured
    model, is an error: silently scoring the wrong file would be worse.
    """
    folder = Path(predictions_dir)
    if not folder.is_dir():
        return []
    names = []
    for path in sorted(folder.glob(f"*{suffix}")):
        name = path.name[: -len(suffix)]
        if not path.is_file():
            # A named pipe would block the import job forever when it opens it.
            raise ScievalsError(
                path, "not a regular file (a folder, named pipe, socket or device)",
                "put a regular file here, or move this out of the predictions folder",
            )
        if not MODEL_NAME.match(name):
            raise ScievalsError(
                path, "file name is not a valid model name",
                "rename it to letters, digits, '.', '_' or '-' (it names the model in the tables)",
            )
        base, _, raw = name.rpartition(".")
        if base and raw.lower() in RESERVED_PARTS:
            raise ScievalsError(
                path, f"model name {name!r} ends in '.{raw}', a per-model output name of the "
                f"workflow (model {base!r} writes one under that name)",
                f"rename the file without the '.{raw}' ending",
            )
        names.append(name)
    return names


@dataclass(frozen=True)
class BenchmarkModels:
    """The models of one benchmark, by the rule that makes their predictions."""

    baselines: list[str]  # <b>_predict_baseline
    llms: list[str]  # <b>_predict_llm
    byo: list[str]  # <b>_import (the user's own files)

    @property
    def configured(self) -> list[str]:
        return self.baselines + self.llms

    @property
    def all(self) -> list[str]:
        return self.configured + self.byo


def benchmark_models(config: dict, benchmark: str, byo_suffix: str) -> BenchmarkModels:
    section = config[benchmark]
    configured = list(section["models"])
    baselines = [m for m in configured if config["models"][m]["provider"] == "baseline"]
    return BenchmarkModels(
        baselines=baselines,
        llms=[m for m in configured if m not in baselines],
        byo=byo_prediction_models(section["predictions_dir"], byo_suffix, configured),
    )


def model_regex(models: list[str]) -> str:
    """A wildcard constraint matching exactly these model names (never anything if empty)."""
    return "|".join(re.escape(m) for m in models) or "^$"


def byo_batches(models: list[str], jobs: int) -> dict[str, list[str]]:
    """The user's own files split into at most ``jobs`` score jobs, keyed ``"00"``, ``"01"``, ...

    A score job that takes a second is mostly interpreter and pandas start-up, so many own
    files are scored a batch per job. A file's batch is fixed by a checksum of its name
    (CRC-32, the same in every run and on every machine), so adding, editing or removing one
    file re-scores only the files of its batch; the batches keep the order of ``models``.
    """
    width = len(str(max(jobs - 1, 0)))
    batches: dict[str, list[str]] = {}
    for model in models:
        batches.setdefault(f"{zlib.crc32(model.encode()) % jobs:0{width}d}", []).append(model)
    return dict(sorted(batches.items()))


def score_inputs(model: str, byo_models: list[str], fixed: dict[str, str], predictions: str,
                 usage: str) -> dict[str, str]:
    """Inputs of a ``<b>_score`` job: the fixed files, the model's predictions, and its usage
    summary unless the predictions are the user's own file (which has none)."""
    inputs = {**fixed, "predictions": predictions.format(model=model)}
    if model not in byo_models:
        inputs["usage"] = usage.format(model=model)
    return inputs


def retry_failed(rule: str):
    """The ``retry_failed`` param of an LLM prediction rule: it changes when the job's last
    run left failed requests (a ``failed_request`` notice), so the next plain run re-runs
    that job and asks only for those requests (the answered ones are cached)."""
    return lambda wildcards: notices.retry_token(rule, dict(wildcards.items()))
