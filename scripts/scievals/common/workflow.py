"""Helpers the rule files call at DAG-build time (kept out of the .smk files).

Every benchmark gets its model names the same way: the configured models split into
built-in baselines and LLMs (by their registry provider), plus the user's own prediction
files (bring your own), each turned into a wildcard constraint by :func:`model_regex`.

The rules every benchmark shares (``<b>_download``, ``<b>_curate``, ``<b>_predict_baseline``,
``<b>_predict_llm``, ``<b>_import``, ``<b>_score``) are written once, in
``rules/stages.smk``: it asks each enabled benchmark's ``scievals.<b>.workflow.stages(config,
models)`` for one :class:`Stage` per rule it has, and fills in what is the same for all
(code-version, retry and score params, the model wildcard's constraint).
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
        if name in configured:
            # Snakemake would see two rules making the model's predictions (import and
            # predict) and stop with AmbiguousRuleException.
            raise ScievalsError(
                path, f"own file named like the configured model {name!r}, whose predictions "
                "the workflow makes itself",
                f"rename the file (e.g. {path.with_name('my_' + path.name).name}), or take "
                f"{name!r} out of the benchmark's models",
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


# Files per batch, on average, beyond which the batches double (byo_batches): Snakemake
# records every output of a job with the checksum of every input (.snakemake/metadata), a cost
# of inputs x outputs per job, so 1,250 files per batch (10,000 files in 8) took it 4 minutes
# and 220 MB for one copy job; a batch of 100 pays its start-up (~1 s) over 100 files.
MAX_BATCH_FILES = 100


def byo_batches(models: list[str], jobs: int) -> dict[str, list[str]]:
    """The user's own files split into ``jobs`` score jobs, keyed ``"00"``, ``"01"``, ..., or
    into ``jobs`` x 2, x 4, ... when the batches would hold over MAX_BATCH_FILES files on
    average (at 8 jobs: over 800 files).

    A score job that takes a second is mostly interpreter and pandas start-up, so many own
    files are scored a batch per job. A file's batch is fixed by a checksum of its name
    (CRC-32, the same in every run and on every machine), so adding, editing or removing one
    file re-scores only the files of its batch (unless the number of batches doubles or
    halves: then every batch re-runs, and reuses each unchanged file's kept tables,
    scievals.common.score_cache); the batches keep the order of ``models``.
    """
    while len(models) > jobs * MAX_BATCH_FILES:
        jobs *= 2
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


def own_files_sha256(paths: list[str]) -> str:
    """SHA-256 of the bytes of the user's own files ``paths``, each named: what the import
    rules carry as their ``own_sha256`` param (:func:`own_content`)."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(f"\0{path}\0".encode())
        try:
            with open(path, "rb") as handle:
                digest.update(hashlib.file_digest(handle, "sha256").digest())
        except OSError as exc:
            # the import job reads it again and says what is wrong in one line
            digest.update(f"unreadable: {exc.strerror or exc}".encode())
    return digest.hexdigest()


def own_content(files: list[str] | str) -> Callable[[Any], str]:
    """The ``own_sha256`` param of a rule that imports the user's own ``files``: a list (a
    batch of them), or one file's pattern with the rule's wildcards (``p/x/{model}.json``).

    Snakemake re-runs a job when an input is newer than its outputs, so a file whose content
    changed but whose mtime did not (two files swapped with ``mv``; a backup restored by
    ``cp -p``, ``rsync -a`` or ``tar x``) kept the old file's scores under the new name. A
    param holding the files' content hash changes with their bytes, whatever their mtime, and
    Snakemake's params trigger re-runs the import (the scores follow). A function of the
    wildcards only: Snakemake compares no param derived from input or output. It is called
    when a job is built, so only the jobs of the run's DAG read their files, each once."""
    seen: dict[tuple[str, ...], str] = {}

    def own_sha256(wildcards) -> str:  # Snakemake's argument name
        paths = ((files.format(**dict(wildcards.items())),) if isinstance(files, str)
                 else tuple(files))
        if paths not in seen:
            seen[paths] = own_files_sha256(list(paths))
        return seen[paths]

    return own_sha256


def retry_failed(rule: str):
    """The ``retry_failed`` param of an LLM prediction rule: it changes when the job's last
    run left failed requests (a ``failed_request`` notice), so the next plain run re-runs
    that job and asks only for those requests (the answered ones are cached)."""
    return lambda wildcards: notices.retry_token(rule, dict(wildcards.items()))


# The shared rules, in DAG order; each is named <benchmark>_<role>.
ROLES = ("download", "curate", "predict_baseline", "predict_llm", "import", "score")
# The entry script of each role (scripts/<name>): one per stage, whatever the benchmark.
ENTRY_SCRIPTS = {"download": "download.py", "curate": "curate.py",
                 "predict_baseline": "predict.py", "predict_llm": "predict.py",
                 "import": "import_own.py", "score": "score.py"}


@dataclass(frozen=True)
class Stage:
    """What one generated rule ``<b>_<role>`` needs from its benchmark (rules/stages.smk).

    Build one with :func:`stage`, which fills in the role's defaults; a field given there
    replaces its default.
    """

    role: str
    output: Mapping[str, Any]
    # Named inputs, or an input function of the wildcards (unpacked into named inputs).
    input: Mapping[str, Any] | Callable = field(default_factory=dict)
    # Benchmark-specific params; rules/stages.smk adds code_version, retry_failed and the
    # score params (bootstrap, config_hash).
    params: Mapping[str, Any] = field(default_factory=dict)
    log: str = ""
    benchmark: str = ""  # the `benchmark:` file ("" for none)
    resources: Mapping[str, int] = field(default_factory=dict)
    group: str | None = None
    localrule: bool = False
    env: str = "core"  # envs/<env>.yaml
    # Which of the benchmark's model lists (BenchmarkModels attribute) the {model} wildcard
    # may take; None when the rule has no {model}.
    models: str | None = None
    # Other wildcards -> the values they may take (e.g. a {suite} per suite of tasks).
    wildcards: Mapping[str, list[str]] = field(default_factory=dict)
    # Output name -> report() arguments, for outputs shown in the HTML report.
    reports: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # Outputs that are directories (Snakemake's directory()).
    directories: tuple[str, ...] = ()

    @property
    def script(self) -> str:
        """The entry script in scripts/ (run by scripts/job.py)."""
        return ENTRY_SCRIPTS[self.role]


def stage_defaults(benchmark: str, role: str) -> dict[str, Any]:
    """The fields every benchmark's ``<b>_<role>`` rule has unless it says otherwise: logs
    under ``logs/<b>_<step>/``, ``benchmark:`` files under ``logs/benchmarks/``, small
    resources, the benchmark's SLURM group for its many small per-model jobs, the ``llm`` env
    and an ``llm_api`` slot for LLM predictions, and downloads on the login node."""
    if role not in ROLES:
        raise ValueError(f"unknown stage {role!r}; stages: {list(ROLES)}")
    small = {"mem_mb": 1000, "runtime": 10}
    if role == "download":
        return {"log": f"logs/{benchmark}_download.log", "localrule": True}
    if role == "curate":
        return {"log": f"logs/{benchmark}_curate.log", "resources": small}
    step = "predict" if role.startswith("predict") else role
    defaults = {"log": f"logs/{benchmark}_{step}/{{model}}.log", "resources": small,
                "group": benchmark,
                "models": {"predict_baseline": "baselines", "predict_llm": "llms",
                           "import": "byo", "score": "all"}[role]}
    if role != "import":
        defaults["benchmark"] = f"logs/benchmarks/{benchmark}_{step}/{{model}}.tsv"
    if role == "predict_llm":
        defaults.update(env="llm", group=None,
                        resources={"llm_api": 1, "mem_mb": 2000, "runtime": 240})
    return defaults


def stage(name: str, role: str, /, **fields) -> Stage:
    """The :class:`Stage` of rule ``<name>_<role>``: the role's defaults, then ``fields``."""
    return Stage(role=role, **{**stage_defaults(name, role), **fields})


def score_outputs(benchmark: str, *extras: str) -> dict[str, str]:
    """The score stage's outputs under the contract's names: ``table`` (what the summary
    merges) and those of ``extras`` the benchmark writes (``per_case``, ``review``)."""
    paths = {"table": f"results/{benchmark}/scores/{{model}}.csv",
             "per_case": f"results/{benchmark}/scores/{{model}}.per_case.csv",
             "review": f"results/{benchmark}/review/{{model}}.md",
             "review_page": f"results/{benchmark}/review/{{model}}.html"}
    return {name: paths[name] for name in ("table", *extras)}


def folder_of(kind: str, name: str) -> Callable:
    """A param: the folder of the rule's ``input`` or ``output`` file ``name``, read from the
    job's file (a hard-coded path prefix fails without a shared file system: snakemake --lint)."""
    if kind == "output":
        return lambda wildcards, output: str(Path(getattr(output, name)).parent)
    return lambda wildcards, input: str(Path(getattr(input, name)).parent)


def own_file(section: dict, suffix: str) -> str:
    """The ``<b>_import`` rule's input: the user's ``<predictions_dir>/{model}<suffix>``."""
    return f"{section['predictions_dir']}/{{model}}{suffix}"


def stage_of_rule(rule: str) -> tuple[str, str]:
    """(benchmark, role) of a generated or batch rule name: ``b2_predict_llm`` ->
    ``("b2", "predict_llm")``, ``b1_score_own_03`` -> ``("b1", "score")``."""
    match = STAGE_RULE.match(rule)
    if not match:
        raise ValueError(f"rule {rule!r} is not named <benchmark>_<stage>")
    return match["benchmark"], match["role"]


STAGE_RULE = re.compile(rf"^(?P<benchmark>[a-z][a-z0-9_]*?)_(?P<role>{'|'.join(ROLES)})"
                        r"(?:_own_\w+)?$")
