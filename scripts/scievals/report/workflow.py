"""Helpers rules/report.smk calls at DAG-build time (kept out of the .smk file)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path


def report_models(benchmark: str, score_tables: Mapping[str, Callable[[], list[str]]],
                  config: Mapping) -> list[str]:
    """The models a benchmark scores: the stems of its score tables (own files included)."""
    if benchmark in score_tables:
        return [Path(p).stem for p in score_tables[benchmark]()]
    return list(config.get(benchmark, {}).get("models", []))


def caption_path(basedir: str | Path, benchmark: str, figure: str) -> str:
    """report/<benchmark>/<figure>.rst if it exists, else report/generic/<figure>.rst,
    relative to rules/ (where report() resolves captions)."""
    own = Path(basedir) / "report" / benchmark / f"{figure}.rst"
    folder = benchmark if own.exists() else "generic"
    return f"../report/{folder}/{figure}.rst"


def data_source(benchmark: str, config: Mapping) -> str:
    """The config's data source of a benchmark, for the captions."""
    return str(config.get(benchmark, {}).get("source", "the benchmark's configured sources"))


def per_model(pattern: str, benchmark: str, models: list[str]) -> list[str]:
    return [pattern.format(b=benchmark, model=m) for m in models]
