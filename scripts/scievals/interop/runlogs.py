"""Kept run logs: ``results/runs/<UTC stamp>-<id>/``, one folder per run, never rewritten.

``results/`` holds the latest state only; at the end of each successful run (the Snakefile's
``onsuccess``, so ``snakemake`` and ``python -m scievals run`` alike, and no rule: nothing a
job reads changes) :func:`keep_run` stores what that run's jobs made, per benchmark x model
(x condition), as Every Eval Ever 0.3.0 record pairs (:mod:`scievals.interop.eee`):

    results/runs/20261128T041500Z-3fa9c1/
      run.json                       the run record (results/run_manifest.json: command,
                                     config, versions, datasets and sha256, commit) + the
                                     list of records, limited or full, their digests
      data/<benchmark>/<developer>/<model>/<uuid>.json           aggregate (intervals, n)
      data/<benchmark>/<developer>/<model>/<uuid>_samples.jsonl  every item
      viewer/<n>.js                  the same items for the sample viewer (a file:// page
                                     can load a script, not read a JSONL file)
    results/runs/index.js            the kept runs, for the sample viewer's run picker

The folder is written under a temporary name and renamed when complete, so a log is whole
or absent. A log holds the records no kept run holds already: a re-run that changed nothing
(or only made a report) adds none, and a run of one benchmark after a full run holds that
benchmark only. Pruning (``run_logs`` in config.yaml): past ``keep`` runs or ``max_mb``, the
oldest go, except the newest run and the newest full run of each benchmark, so a smoke run
(``--limit``) never removes the last full result.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import secrets
import shutil
import socket
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from scievals.common.errors import ScievalsError
from scievals.common.io import canonical_json, sha256_text, write_json, write_text
from scievals.common.output import wrapped
from scievals.common.tables import read_result_table
from scievals.common.workflow import RESERVED_PARTS
from scievals.interop import eee
from scievals.report.viewer import RUNS_CALLBACK, data_script, embedded_json, item_groups

log = logging.getLogger(__name__)

RUNS_DIR = Path("results/runs")
RUN_FILE = "run.json"
VIEWER_INDEX = "index.js"
RUN_NAME = re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{6}")
DEFAULTS = {"keep": 20, "max_mb": 500}


def run_name(now: datetime) -> str:
    """``<YYYYmmddTHHMMSSZ>-<6 hex>``: sorts by time; the id tells apart runs of one second."""
    return f"{now.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(3)}"


def run_keys(results: Path, benchmark_names: Iterable[str],
             in_run: set[str] | None) -> list[tuple[str, str]]:
    """(benchmark, model) of each score table this run's jobs made or found up to date (all
    on disk when Snakemake does not say)."""
    keys = []
    for name in benchmark_names:
        folder = results / name / "scores"
        for table in sorted(folder.glob("*.csv")) if folder.is_dir() else []:
            model = table.stem
            if "." in model and model.rpartition(".")[2] in RESERVED_PARTS:
                continue  # <model>.reference.csv, <model>.per_case.csv, ...
            if in_run is None or str(Path("results") / name / "scores" / table.name) in in_run \
                    or str(table) in in_run:
                keys.append((name, model))
    return keys


def collect(results: Path, keys: list[tuple[str, str]]):
    """(result rows of ``keys``, their items): what a log holds, read from each model's score
    table (what the summaries merge; a benchmark's summary may be older than its scores when
    a run's target did not need it) and its per-item files."""
    frames = [read_result_table(results / bench / "scores" / f"{model}.csv")
              for bench, model in keys]
    summary = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    by_benchmark: dict[str, list[str]] = {}
    for bench, model in keys:
        by_benchmark.setdefault(bench, []).append(model)
    return summary, dict(item_groups(results.parent, by_benchmark))


def digests(summary, samples: Mapping, keys: list[tuple[str, str]]) -> dict[str, str]:
    """``benchmark/model`` -> a digest of what its records say (rows and items), without
    when they were made: equal digests, equal records."""
    rows: dict[tuple[str, str], list] = {}
    for row in summary.astype(str).to_dict("records"):
        rows.setdefault((row["benchmark"], eee.split_arm(row["model"])[0]), []).append(row)
    return {f"{b}/{m}": sha256_text(canonical_json({"rows": rows.get((b, m), []),
                                                    "items": samples.get((b, m), [])}))
            for b, m in keys}


def kept_digests(runs: list[dict]) -> set[str]:
    """Every ``benchmark/model:digest`` a kept run holds."""
    return {f"{key}:{value}" for run in runs for key, value in (run.get("digests") or {}).items()}


def keep_run(results_dir: str | Path = "results", benchmark_names: Iterable[str] = (),
             in_run: set[str] | None = None, config: Mapping | None = None,
             manifest: str | Path | None = None, now: datetime | None = None) -> Path | None:
    """Keep this run's log under ``<results_dir>/runs/``; its folder, or None when there
    was nothing to keep: no score table, ``run_logs.keep: 0``, or only records a kept run
    holds already (a re-run that only made a report, say)."""
    settings = {**DEFAULTS, **dict((config or {}).get("run_logs") or {})}
    results = Path(results_dir)
    runs = results / "runs"
    remove_stale_staging(runs)
    if not settings["keep"]:
        return None
    keys = run_keys(results, benchmark_names, in_run)
    if not keys:
        return None
    max_bytes = settings["max_mb"] * 1e6
    # every row of a score table is a result of a record, longer as JSON than as CSV: their
    # size is a floor of the log's, known before anything is read
    floor = sum((results / b / "scores" / f"{m}.csv").stat().st_size for b, m in keys)
    if floor > max_bytes:
        raise _too_large(runs, settings, f"its score tables alone take {floor / 1e6:.1f} MB")
    summary, samples = collect(results, keys)
    if not len(summary):
        return None
    content = digests(summary, samples, keys)
    kept = kept_digests(list_runs(runs))
    keys = [(b, m) for b, m in keys if f"{b}/{m}:{content[f'{b}/{m}']}" not in kept]
    if not keys:
        if runs.is_dir():
            write_viewer_index(runs)  # a run folder removed by hand leaves the picker too
        return None
    content = {k: v for k, v in content.items() if tuple(k.split("/", 1)) in set(keys)}
    now = now or datetime.now(UTC)
    name = run_name(now)
    while (runs / name).exists():
        name = run_name(now)
    record = _read_manifest(manifest or results / "run_manifest.json")
    facts = eee.RunFacts(
        retrieved_timestamp=str(int(now.timestamp())), started_utc=record.get("started_utc", ""),
        run_id=name, n_resamples=int(((config or {}).get("bootstrap") or {})
                                     .get("n_resamples") or 0))
    models = dict((config or {}).get("models") or {})
    records = eee.build_records(summary, samples, models, facts, keys)
    staging = runs / f".{name}{STAGING_SUFFIX}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        write_json(staging / OWNER_FILE, {"pid": os.getpid(), "host": socket.gethostname()})
        entries = _write(staging, name, records, max_bytes, settings)
        write_json(staging / RUN_FILE, {
            "run_id": name, "recorded_utc": now.isoformat(timespec="seconds"),
            "digests": content, "limited": any(e["limited"] for e in entries),
            "benchmarks": sorted({b for b, _ in keys}),
            "models": sorted({m for _, m in keys}),
            "records": entries, "run_record": record})
        (staging / OWNER_FILE).unlink()
        staging.rename(runs / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    try:  # the log is kept now: bookkeeping that fails after this never says otherwise
        prune(runs, settings)
        write_viewer_index(runs)
    except OSError as exc:
        log.warning("run logs: %s was kept, but pruning the older runs or the viewer's run "
                    "index failed: %s", runs / name, exc)
    return runs / name


STAGING_SUFFIX = ".partial"
OWNER_FILE = ".owner.json"  # in a staging folder: the process writing it
# A staging folder untouched this long is stale whoever wrote it (another host's, one of a
# version without an owner file): writing the largest log measured takes seconds.
STALE_AFTER_S = 3600


def remove_stale_staging(runs_dir: Path, now: float | None = None) -> list[str]:
    """Remove the staging folders (``.<id>.partial``) of runs that died while writing their
    log (``kill -9``), never another live run's: one is stale when the process its owner
    file names is gone from this host, or when nothing in it changed for an hour. Their
    names."""
    removed = []
    for folder in sorted(runs_dir.glob(f".*{STAGING_SUFFIX}")) if runs_dir.is_dir() else []:
        if folder.is_symlink() or not folder.is_dir() or not _stale(folder, now):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder.name)
    if removed:
        log.info("run logs: removed %d unfinished log(s) of runs that stopped while writing "
                 "them: %s", len(removed), ", ".join(removed))
    return removed


def _stale(folder: Path, now: float | None) -> bool:
    try:
        owner = json.loads((folder / OWNER_FILE).read_text(encoding="utf-8"))
        if owner.get("host") == socket.gethostname() and not _alive(int(owner["pid"])):
            return True
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass  # no owner said: by age alone
    try:
        newest = max([folder.lstat().st_mtime,
                      *(p.lstat().st_mtime for p in folder.rglob("*"))])
    except OSError:  # removed meanwhile (its run finished)
        return False
    return (time.time() if now is None else now) - newest > STALE_AFTER_S


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return pid > 0  # another user's live process (or a pid no process can have)
    return True


def _read_manifest(path: str | Path) -> dict:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _too_large(runs: Path, settings: Mapping, size: str) -> ScievalsError:
    return ScievalsError(runs, f"this run's log would take more than run_logs.max_mb "
                         f"({settings['max_mb']:g} MB; {size}): not kept",
                         "raise run_logs.max_mb in config.yaml to keep runs this large")


# Records written before the log's size is extrapolated from them (a run of 10,000 own files
# stops after these instead of writing up to max_mb first).
SIZE_PROBE = 20


def _write(folder: Path, name: str, records: list[eee.Record], max_bytes: float = math.inf,
           settings: Mapping = DEFAULTS) -> list[dict]:
    """Each record's EEE pair and viewer data under ``folder``; their run.json entries. Stops
    with a ScievalsError once the log would exceed ``max_bytes`` (its first records' mean
    size times the records, or the bytes written)."""
    entries = []
    written = 0
    for number, made in enumerate(records):
        paths = eee.write_record(made, folder)
        datasets = sorted({r["source_data"]["dataset_name"]
                           for r in made.aggregate["evaluation_results"]})
        items = made.items
        viewer = f"viewer/{number:04d}.js"
        key = f"{name}/{made.benchmark}/{made.model}/{made.condition}"
        write_text(folder / viewer, data_script(key, items))
        written += sum(p.stat().st_size for p in [*paths, folder / viewer])
        done = number + 1
        if written > max_bytes:
            raise _too_large(folder.parent, settings, f"over it after {done} of "
                             f"{len(records)} records")
        if done == SIZE_PROBE and written / done * len(records) > max_bytes:
            estimate = written / done * len(records) / 1e6
            raise _too_large(folder.parent, settings, f"about {estimate:.0f} MB "
                             f"from its first {done} of {len(records)} records")
        shown = made.condition and not eee.partitions(made.benchmark) \
            and not eee.split_arm(made.model)[1]
        entries.append({
            "benchmark": made.benchmark, "model": made.model, "condition": made.condition,
            "label": made.model + (f" [{made.condition}]" if shown else ""),
            "aggregate": str(made.aggregate_path),
            "samples": str(made.samples_path) if made.instances else "",
            "items": len(made.instances), "viewer": viewer, "viewer_key": key,
            "datasets": datasets, "limited": any("(limited to " in d for d in datasets),
            "conditions": sorted({i["condition"] for i in items}),
            "score_name": next((i["score_name"] for i in items if i.get("score_name")), "")})
    return entries


_SAID_LINKS: set[str] = set()


def list_runs(runs_dir: str | Path = RUNS_DIR) -> list[dict]:
    """The kept runs, oldest first: each ``run.json`` with its folder and size in bytes
    (a folder without a readable run.json is left out, with a log line). A symbolic link is
    not a kept run, whatever it points to: the runs are what the workflow wrote, so pruning
    removes only those and a link is never followed out of results/runs."""
    runs_dir = Path(runs_dir)
    out = []
    for folder in sorted(runs_dir.iterdir()) if runs_dir.is_dir() else []:
        if not RUN_NAME.fullmatch(folder.name):
            continue
        if folder.is_symlink():
            if str(folder) not in _SAID_LINKS:  # once per process, not at every listing
                _SAID_LINKS.add(str(folder))
                log.warning("run log %s left out: a symbolic link, not a run this workflow "
                            "kept", folder)
            continue
        if not folder.is_dir():
            continue
        try:
            data = json.loads((folder / RUN_FILE).read_text(encoding="utf-8"))
            fine = isinstance(data, dict) and data.get("run_id") == folder.name and all(
                isinstance(e, dict) and {"benchmark", "model", "condition", "label"} <= set(e)
                for e in data.get("records", []))
            if not fine:
                raise ValueError("not a run record of this folder")
        except (OSError, ValueError) as exc:
            log.warning("run log %s left out: no readable %s (%s)", folder, RUN_FILE, exc)
            continue
        data["folder"] = str(folder)
        data["bytes"] = sum(p.lstat().st_size for p in folder.rglob("*")
                            if p.is_file() and not p.is_symlink())
        out.append(data)
    return out


def protected(runs: list[dict]) -> set[str]:
    """Runs pruning never removes: the newest, and the newest full run of each benchmark."""
    keep = {runs[-1]["run_id"]} if runs else set()
    newest_full: dict[str, str] = {}
    for run in runs:
        for entry in run.get("records", []):
            if not entry.get("limited"):
                newest_full[entry["benchmark"]] = run["run_id"]
    return keep | set(newest_full.values())


def last_full_run(benchmark: str, runs_dir: str | Path = RUNS_DIR) -> str | None:
    """The id of the newest kept run with a full (not limited) record of ``benchmark``."""
    found = None
    for run in list_runs(runs_dir):
        if any(e["benchmark"] == benchmark and not e.get("limited")
               for e in run.get("records", [])):
            found = run["run_id"]
    return found


def prune(runs_dir: Path, settings: Mapping) -> list[str]:
    """Remove the oldest unprotected runs past ``keep`` runs or ``max_mb``; their ids."""
    runs = list_runs(runs_dir)
    safe = protected(runs)
    total = sum(r["bytes"] for r in runs)
    count = len(runs)
    removed = []
    for run in runs:
        if count <= settings["keep"] and total <= settings["max_mb"] * 1e6:
            break
        if run["run_id"] in safe:
            continue
        try:
            shutil.rmtree(run["folder"])
        except OSError as exc:  # one run that can not go (permissions) stops no other
            log.warning("run logs: %s could not be removed (%s)", run["folder"], exc)
            continue
        removed.append(run["run_id"])
        count -= 1
        total -= run["bytes"]
    if removed:
        log.info("run logs: removed %d old run(s): %s", len(removed), ", ".join(removed))
    return removed


def write_viewer_index(runs_dir: Path) -> None:
    """``index.js``: the kept runs for the sample viewer's run picker, one entry per run,
    benchmark and model, named as the current results name it (``fake``, its conditions
    beside it), its records' viewer files as the entry's ``parts``."""
    entries: dict[tuple[str, str, str], dict] = {}
    for run in list_runs(runs_dir):
        for entry in run.get("records", []):
            model = str(entry["model"])
            key = (run["run_id"], entry["benchmark"], model)
            if key not in entries:
                entries[key] = {
                    "run": run["run_id"], "limited": False, "benchmark": entry["benchmark"],
                    "model": model, "key": "/".join(key), "n": 0, "parts": [],
                    "conditions": [], "score_name": entry.get("score_name", "")}
            shown = entries[key]
            shown["limited"] = shown["limited"] or bool(entry.get("limited", False))
            shown["n"] += entry["items"]
            shown["parts"].append({"key": entry["viewer_key"],
                                   "file": f"{run['run_id']}/{entry['viewer']}"})
            shown["conditions"] = sorted({*shown["conditions"],
                                          *entry.get("conditions", [])})
    write_text(runs_dir / VIEWER_INDEX,
               f"{RUNS_CALLBACK}({embedded_json(list(entries.values()))});\n")


def find_run(ref: str, runs_dir: str | Path = RUNS_DIR) -> dict:
    """A kept run by id (or a unique prefix of it), ``latest`` or ``latest-full``
    (:func:`latest_full`: the last complete result, gathered from the runs that hold it)."""
    runs = list_runs(runs_dir)
    if ref == "latest-full":
        whole = latest_full(runs)
        if whole is not None:
            return whole
        runs = []
    matches = runs[-1:] if ref == "latest" else [
        r for r in runs if r["run_id"].startswith(ref)]
    if len(matches) != 1:
        known = ", ".join(r["run_id"] for r in runs[-5:]) or "none kept yet"
        raise ScievalsError(f"{runs_dir}", f"no single kept run {ref!r} "
                            f"({len(matches)} match)",
                            f"give a run id from `python -m scievals logs` (newest: {known})")
    return matches[0]


def run_models(run: dict) -> dict[str, list[str]]:
    """benchmark -> its models in a kept run, named as the current results name them: the
    model, and how many conditions it ran when more than one (``fake (6 conditions)``), not
    one ``fake [minimal_cot]`` per record."""
    conditions: dict[str, dict[str, set[str]]] = {}
    for entry in run.get("records", []):
        model = str(entry["model"])
        found = conditions.setdefault(entry["benchmark"], {}).setdefault(model, set())
        found.update(str(c) for c in entry.get("conditions") or [entry.get("condition") or ""])
    return {bench: [m if len(c - {""}) <= 1 else f"{m} ({len(c - {''})} conditions)"
                    for m, c in models.items()] for bench, models in conditions.items()}


def latest_full(runs: list[dict]) -> dict | None:
    """The last complete result as one run-like record (None without a full record): for
    each benchmark and model, the full (not limited) records of the newest run holding any.
    A log keeps only what changed, so after a full run a one-benchmark run (or a re-run that
    changed one model) holds a part of the result; the rest stays in the older runs. Each
    record carries its run's ``folder``; ``run_id`` names the runs gathered."""
    newest: dict[tuple[str, str], tuple[dict, list[dict]]] = {}
    for run in runs:  # oldest first: a newer run's records replace an older one's
        full: dict[tuple[str, str], list[dict]] = {}
        for entry in run.get("records", []):
            if not entry.get("limited"):
                full.setdefault((entry["benchmark"], entry["model"]), []).append(entry)
        for key, entries in full.items():
            newest[key] = (run, entries)
    if not newest:
        return None
    records, used = [], []
    for run, entries in newest.values():
        records += [{**entry, "folder": run["folder"]} for entry in entries]
        if run["run_id"] not in used:
            used.append(run["run_id"])
    used.sort()
    return {"run_id": f"latest-full ({', '.join(used)})", "folder": runs[-1]["folder"],
            "limited": False, "records": records, "runs": used,
            "benchmarks": sorted({r["benchmark"] for r in records})}


def lines(runs: list[dict], width: int | None = None) -> list[str]:
    """``python -m scievals logs``: one line per kept run, newest last (wrapped at ``width``
    with the continuation indented, for a terminal)."""
    if not runs:
        return ["no kept runs in results/runs/ (every successful workflow run keeps one)"]
    out = [f"{'run':<24} {'recorded (UTC)':<20} {'kind':<8} {'MB':>6}  benchmarks: models"]
    for run in runs:
        what = "; ".join(f"{b}: {', '.join(m)}" for b, m in run_models(run).items())
        out.append(wrapped(f"{run['run_id']:<24} {run.get('recorded_utc', '')[:19]:<20} "
                           f"{'limited' if run.get('limited') else 'full':<8} "
                           f"{run['bytes'] / 1e6:>6.2f}  {what}", width, "", " " * 4))
    return out
