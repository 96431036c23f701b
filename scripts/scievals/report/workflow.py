"""Helpers rules/report.smk calls at DAG-build time (kept out of the .smk file)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def report_inputs(benchmark, models: list[str]) -> dict[str, list[str]]:
    """Input name -> files for a benchmark's figures: its summary plus its registry entry's
    ``report_inputs`` (patterns with ``{model}`` expand to one file per model)."""
    inputs = {"summary": [f"results/{benchmark.name}/summary.csv"]}
    for name, pattern in benchmark.report_inputs.items():
        if "{model}" in pattern:
            inputs[name] = [pattern.format(model=m) for m in models]
        else:
            inputs[name] = [pattern]
    return inputs


def caption_path(basedir: str | Path, benchmark: str, figure: str) -> str:
    """report/<benchmark>/<figure>.rst if it exists, else report/generic/<figure>.rst,
    relative to rules/ (where report() resolves captions)."""
    own = Path(basedir) / "report" / benchmark / f"{figure}.rst"
    folder = benchmark if own.exists() else "generic"
    return f"../report/{folder}/{figure}.rst"


def data_source(benchmark: str, config: Mapping) -> str:
    """The config's data source of a benchmark, for the captions."""
    return str(config.get(benchmark, {}).get("source", "the benchmark's configured sources"))


def figure_job(spec) -> dict:
    """What the benchmark's figure job needs of one ``FigureSpec``: its output name (the
    figure's name), the function to call and the input names it reads."""
    return {"name": spec.name, "function": spec.function, "inputs": list(spec.inputs)}
