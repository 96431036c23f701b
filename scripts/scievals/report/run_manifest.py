"""The run record: ``results/run_manifest.json``, what produced a run, written at its end.

A result must be reproducible and auditable a year later, so the record keeps what the
tables' provenance columns (commit, config hash) leave out: the command line and targets,
the resolved config, the version of every installed distribution, Python and the OS, every
dataset's name and sha256, per LLM model the model id and ``system_fingerprint`` the
provider returned (``usage.json`` beside the predictions, kept by ``scievals.llm``), and the
sha256 of each benchmark's prompt templates (its ``prompt_modules``).

The workflow's ``onsuccess``/``onerror`` call :func:`write_manifest`; a copy goes beside the
newest history entry that has none yet (``results/history/<entry>.manifest.json``), so
``python -m scievals history`` says which record belongs to each summary.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import logging
import platform
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from scievals import __version__
from scievals import registry
from scievals.common.io import sha256_file, write_json, write_text
from scievals.common.notices import now_utc
from scievals.common.provenance import RUN_RECORD_SUFFIX, git_commit
from scievals.common.redaction import redact_data

log = logging.getLogger(__name__)

MANIFEST = Path("results/run_manifest.json")
HISTORY_DIR = Path("results/history")
MANIFEST_SUFFIX = RUN_RECORD_SUFFIX  # `history` lists the copies by this suffix


def package_versions() -> dict[str, str]:
    """Every installed distribution (``importlib.metadata``), name -> version, sorted."""
    found: dict[str, str] = {}
    for dist in importlib.metadata.distributions():
        fields = _name_and_version(dist)
        if fields.get("Name"):
            found.setdefault(fields["Name"].lower(), fields.get("Version", ""))
    return dict(sorted(found.items()))


def _name_and_version(dist: importlib.metadata.Distribution) -> dict[str, str]:
    """The ``Name`` and ``Version`` fields of a distribution's metadata header, read as
    lines: ``dist.metadata`` parses the whole file as e-mail (long descriptions included),
    10x slower, 0.05 CPU-s at the end of every run."""
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    fields: dict[str, str] = {}
    for line in text.split("\n\n", 1)[0].splitlines():  # the header ends at a blank line
        key, sep, value = line.partition(": ")
        if sep and key in ("Name", "Version") and key not in fields:
            fields[key] = value.strip()
    return fields


def platform_info() -> dict[str, str]:
    return {
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "executable": sys.executable,
        "os": platform.platform(),
        "machine": platform.machine(),
    }


def datasets(summaries: Iterable[Path]) -> list[dict]:
    """Each (benchmark, dataset, sha256) the result tables name, as their provenance says."""
    rows = []
    for path in summaries:
        if Path(path).is_file():
            frame = pd.read_csv(path, usecols=["benchmark", "dataset", "dataset_sha256"],
                                dtype=str, keep_default_na=False)
            rows += frame.drop_duplicates().to_dict("records")
    unique = {(r["benchmark"], r["dataset"], r["dataset_sha256"]): r for r in rows}
    return [{"benchmark": b, "dataset": d, "sha256": s} for b, d, s in sorted(unique)]


def _usage_total(data: dict) -> dict:
    """usage.json is the usage summary itself or ``{"total": ..., "conditions": ...}``."""
    return data.get("total", data) if isinstance(data, dict) else {}


def llm_models(usage_files: Iterable[Path]) -> dict[str, dict]:
    """Per LLM model: configured id, provider, and the model ids and system fingerprints its
    replies carried (over every benchmark that used it)."""
    models: dict[str, dict] = {}
    for path in sorted(usage_files):
        try:
            usage = _usage_total(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            log.warning("run record: %s left out (%s)", path, exc)
            continue
        if usage.get("provider") in (None, "baseline") or not usage.get("model"):
            continue
        entry = models.setdefault(usage["model"], {
            "provider": usage["provider"], "model_id": usage.get("model_id"),
            "response_models": [], "system_fingerprints": [], "usage_files": []})
        for key in ("response_models", "system_fingerprints"):
            entry[key] = sorted(set(entry[key]) | set(usage.get(key) or []))
        entry["usage_files"].append(str(path))
    return dict(sorted(models.items()))


def prompt_templates(benchmark_names: Iterable[str]) -> dict[str, dict[str, str]]:
    """benchmark -> {prompt module: sha256 of its source file} (registry ``prompt_modules``)."""
    out: dict[str, dict[str, str]] = {}
    for name in benchmark_names:
        modules = registry.get(name).prompt_modules
        if modules:
            out[name] = {m: sha256_file(importlib.util.find_spec(m).origin) for m in modules}
    return out


def build_manifest(status: str, started_utc: str, command: list[str], targets: Iterable[str],
                   config: Mapping, benchmark_names: list[str],
                   results_dir: str | Path = "results", in_run: set[str] | None = None) -> dict:
    """The record; ``in_run`` (the output files of this run's jobs, run or up to date) keeps
    the LLM models to those this run used, not every ``usage.json`` an earlier run left."""
    results = Path(results_dir)
    summaries = [results / "summary.csv"] + [results / b / "summary.csv"
                                             for b in benchmark_names]
    usage_files = [p for b in benchmark_names
                   for p in (results / b / "predictions").rglob("*usage.json")
                   if in_run is None or str(p) in in_run]
    return {
        "status": status,
        "started_utc": started_utc,
        "finished_utc": now_utc(),
        "command": redact_data(list(command)),  # `--config models=...` may hold a URL
        "targets": sorted(targets),
        "scievals_version": __version__,
        "git_commit": git_commit(),
        "platform": platform_info(),
        "benchmarks": list(benchmark_names),
        "datasets": datasets(summaries),
        "llm_models": llm_models(usage_files),
        "prompt_templates": prompt_templates(benchmark_names),
        "config": redact_data(json.loads(json.dumps(config, default=str))),  # no credentials
        "packages": package_versions(),
    }


def keep_with_history(manifest: Path, history_dir: str | Path = HISTORY_DIR) -> Path | None:
    """Copy the record beside the newest history entry that has none yet (the run that first
    produced a summary is the one that explains it); the copy's path, or None."""
    index = Path(history_dir) / "index.csv"
    if not index.is_file():
        return None
    try:
        entries = pd.read_csv(index, dtype=str, keep_default_na=False)["file"]
    except (OSError, ValueError, KeyError):
        return None  # the history's own checks say what is wrong with it
    if entries.empty:
        return None
    copy = manifest_for(history_dir, entries.iloc[-1])
    if copy.exists():
        return None
    write_text(copy, manifest.read_text(encoding="utf-8"))
    return copy


def manifest_for(history_dir: str | Path, entry_file: str) -> Path:
    """The record kept beside history entry ``entry_file`` (it may not exist)."""
    return Path(history_dir) / (Path(entry_file).stem + MANIFEST_SUFFIX)


def write_manifest(status: str, started_utc: str, command: list[str], targets: Iterable[str],
                   config: Mapping, benchmark_names: list[str],
                   out: str | Path = MANIFEST, history_dir: str | Path = HISTORY_DIR,
                   in_run: set[str] | None = None) -> Path:
    """Write the run record (atomically) and keep a copy with the history; its path."""
    manifest = build_manifest(status, started_utc, command, targets, config, benchmark_names,
                              Path(out).parent, in_run)
    write_json(out, manifest)
    keep_with_history(Path(out), history_dir)
    return Path(out)
