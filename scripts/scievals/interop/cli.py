"""``python -m scievals logs`` (the kept run logs) and ``python -m scievals export eee`` (the
latest results, or a kept run, as Every Eval Ever 0.3.0 records).

Each command imports what it needs inside its own function: `python -m scievals` imports
every command's module to build its parser (pandas, jsonschema and the statistics would
load for any command otherwise).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from scievals.common.errors import ScievalsError

RUNS_DIR = "results/runs"

EXPORT_DIR = Path("results/export/eee")


def cmd_logs(args: argparse.Namespace) -> int:
    from scievals.common.output import wrap_width
    from scievals.interop import imported_store, runlogs

    for line in runlogs.lines(runlogs.list_runs(args.runs_dir), wrap_width()):
        print(line)
    for line in imported_store.imported_lines(args.imported_dir):  # kept imports, by id
        print(line)
    return 0


def latest_records(results: Path, organization: str) -> list:
    """Records (:class:`scievals.interop.eee.Record`) of every (benchmark, model) of
    ``results/summary.csv`` as the results stand, with the run record's config (model
    registry, bootstrap) beside it."""
    from scievals.common.tables import read_result_table
    from scievals.interop import eee
    from scievals.report.viewer import item_groups

    summary_path = results / "summary.csv"
    if not summary_path.is_file():
        raise ScievalsError(summary_path, "not found", "run the workflow first "
                            "(snakemake --cores 8), or export a kept run with --run")
    summary = read_result_table(summary_path)
    manifest = {}
    if (results / "run_manifest.json").is_file():
        manifest = json.loads((results / "run_manifest.json").read_text(encoding="utf-8"))
    config = manifest.get("config") or {}
    models: dict[str, list[str]] = {}
    for bench, model in sorted(set(zip(summary["benchmark"], summary["model"]))):
        base = eee.split_arm(model)[0]
        if base not in models.setdefault(bench, []):
            models[bench].append(base)
    samples = dict(item_groups(results.parent, models))
    now = datetime.now(UTC)
    facts = eee.RunFacts(retrieved_timestamp=str(int(now.timestamp())),
                         started_utc=manifest.get("started_utc", ""),
                         n_resamples=int((config.get("bootstrap") or {}).get("n_resamples")
                                         or 0), organization=organization)
    return eee.build_records(summary, samples, config.get("models") or {}, facts)


def run_records(run: dict) -> list[tuple[str, dict, list[dict]]]:
    """(repo path, aggregate, instance rows) of each record a kept run holds."""
    out = []
    for entry in run.get("records", []):
        folder = Path(entry.get("folder") or run["folder"])  # latest-full gathers runs
        path = folder / entry["aggregate"]
        try:
            aggregate = json.loads(path.read_text(encoding="utf-8"))
            rows = []
            if entry.get("samples"):
                path = folder / entry["samples"]
                with open(path, encoding="utf-8") as handle:
                    rows = [json.loads(line) for line in handle if line.strip()]
        except (OSError, ValueError) as exc:
            raise ScievalsError(path, f"kept run {folder.name} is damaged "
                                f"({type(exc).__name__}: {exc})",
                                "export another run (python -m scievals logs)") from None
        out.append((entry["aggregate"], aggregate, rows))
    return out


def cmd_export(args: argparse.Namespace) -> int:
    from scievals.interop import eee, runlogs

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ScievalsError(out, "--out names an existing file, not a folder",
                            "give a folder to write data/... into")
    if (out / "data").exists() and any((out / "data").iterdir()):
        raise ScievalsError(out / "data", "already holds records (an export adds new uuid4 "
                            "files, so exporting twice would list every result twice)",
                            "give another --out, or remove that folder first")
    if args.run:
        run = runlogs.find_run(args.run, args.runs_dir)
        pairs = run_records(run)
        source = (f"kept run {run['run_id']}" if "runs" not in run else
                  f"the last complete result, from kept run(s) {', '.join(run['runs'])}")
    else:
        records = latest_records(Path(args.results), args.organization)
        pairs = [(str(r.aggregate_path), r.aggregate, r.instances) for r in records]
        source = f"the latest results ({args.results}/summary.csv)"
    found = [p for path, aggregate, rows in pairs for p in eee.problems(aggregate, rows, path)]
    if found:
        raise ScievalsError(found[0], f"would not pass Every Eval Ever 0.3.0 validation "
                            f"({len(found)} problem(s))", "report it: an export should always pass")
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".export-", dir=out))
    try:  # all files or none: written aside, then moved into place
        for path, aggregate, rows in pairs:
            eee.write_pair(staging, path, aggregate, rows)
        (staging / "data").rename(out / "data")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    items = sum(len(rows) for _, _, rows in pairs)
    print(f"wrote {len(pairs)} Every Eval Ever 0.3.0 record(s) with {items} sample row(s) of "
          f"{source} to {out / 'data'} (validate: python -m every_eval_ever validate "
          f"'{out}/data/*/*/*/*.json*')")
    print(eee.NOT_CARRIED)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("logs", help="list the kept run logs (results/runs/)",
                            description="List the kept run logs: when, which benchmarks "
                            "and models, a limited (smoke) or full run, and their size.")
    parser.add_argument("--runs-dir", default=RUNS_DIR, help=argparse.SUPPRESS)
    parser.add_argument("--imported-dir", default="results/imported", help=argparse.SUPPRESS)
    parser.set_defaults(func=cmd_logs)

    # --- leaderboard of logs and kept runs (scievals.interop.leaderboard) ---
    from scievals.interop.leaderboard_cli import register as register_leaderboard

    register_leaderboard(sub)
    # --- end leaderboard ---

    parser = sub.add_parser(
        "export", help="export results in an open format (eee: Every Eval Ever 0.3.0)",
        description="Write Every Eval Ever 0.3.0 records (data/<collection>/<developer>/"
        "<model>/<uuid4>.json + <uuid4>_samples.jsonl), one per benchmark x model x "
        "condition, from the latest results or a kept run; each is checked against the "
        "schema first.")
    parser.add_argument("format", choices=["eee"], help="eee: Every Eval Ever 0.3.0")
    parser.add_argument("--out", default=str(EXPORT_DIR),
                        help=f"folder to write data/... into (default {EXPORT_DIR})")
    parser.add_argument("--run", help="a kept run (id or prefix from `python -m scievals "
                        "logs`, or latest) instead of the latest results; latest-full: the "
                        "last complete result, the newest full record of each benchmark and "
                        "model the kept runs hold")
    parser.add_argument("--organization", default="scievals",
                        help="source_organization_name of the records (default scievals)")
    parser.add_argument("--results", default="results", help=argparse.SUPPRESS)
    parser.add_argument("--runs-dir", default=RUNS_DIR, help=argparse.SUPPRESS)
    parser.set_defaults(func=cmd_export)
