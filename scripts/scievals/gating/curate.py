"""Build the normalised case file: OMIP cases plus cases extracted from workspaces.

- OMIP files (``data/demo/gating/omip/{verified,staging}``): kept when they pass
  :func:`cases.validation_problems` (the reference schema plus our checks); a file
  that fails is listed in the report with the reason. ``case_set`` is the folder name.
- Workspaces (records of :mod:`extract`): samples sharing one gate structure
  become one case, ``WSP-<workspace name>`` (``-2``, ``-3`` ... for further
  structures). A workspace case must be a hierarchy: at least 3 gates and depth
  >= 2 (flat synthetic test workspaces are reported, not used). Context comes from
  ``workspaces.yaml`` next to the workspaces, else "unknown".

The report names the dataset by what went in, e.g. "OMIP-verified+OMIP-staging+flowkit-wsp".
"""

from __future__ import annotations

import json
import logging
import os
from collections import OrderedDict
from pathlib import Path

from scievals.common.io import (
    read_json,
    read_jsonl,
    read_yaml,
    sha256_file,
    write_json,
    write_jsonl,
)
from scievals.common.selection import limited_label, limited_summary, say_limited, select
from scievals.gating import tree as T
from scievals.gating.cases import sorted_cases, summary_row, validation_problems
from scievals.gating.paths import FLOWKIT_DIR, REPO_DIR, WORKSPACE_CONTEXT_FILE

log = logging.getLogger(__name__)

# Workspace cases carry no curation date of their own; this is the date of this
# extractor's case format (a constant, so the case file's checksum is stable).
EXTRACTOR_CASE_DATE = "2026-01-15"
MIN_WORKSPACE_GATES = 3
MIN_WORKSPACE_DEPTH = 2


def _display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO_DIR))
    except ValueError:
        return str(path)


def load_omip_dir(folder: str | os.PathLike) -> tuple[list[dict], list[dict]]:
    """(valid cases, rejected entries) of one folder of test-case JSON files."""
    folder = Path(folder)
    case_set = folder.name
    valid, rejected = [], []
    for path in sorted(folder.glob("*.json")):
        entry = {"file": _display_path(path), "case_set": case_set}
        try:
            case = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            rejected.append({**entry, "test_case_id": None, "reasons": [f"unreadable JSON: {exc}"]})
            continue
        except RecursionError:
            rejected.append({**entry, "test_case_id": None, "reasons": [T.TOO_DEEP]})
            continue
        problems = validation_problems(case)
        cid = case.get("test_case_id") if isinstance(case, dict) else None
        if problems:
            rejected.append({**entry, "test_case_id": cid, "reasons": problems})
            continue
        case = dict(case)
        case["case_set"] = case_set
        case["source"] = {"file": entry["file"], "sha256": sha256_file(path)}
        valid.append(case)
    return valid, rejected


def _workspace_context(workspace: str) -> dict:
    contexts = read_yaml(WORKSPACE_CONTEXT_FILE) if WORKSPACE_CONTEXT_FILE.exists() else {}
    try:
        key = str(Path(workspace).resolve().relative_to(FLOWKIT_DIR.resolve()))
    except ValueError:
        key = None
    return dict((contexts or {}).get(key) or {}) if key else {}


def _case_tree(gates: list[dict], sample_ids: list[str], counts: dict) -> dict:
    root = T.node("All Events", gate_type="root")
    index = {("root",): root}
    for gate in gates:
        path = tuple(gate["path"])
        extra = {"gate_type": gate["gate_type"], "dimensions": gate["dimensions"],
                 "is_critical": False}
        key = path + (gate["name"],)
        if counts.get(key):
            extra["event_counts"] = counts[key]
        new = T.node(gate["name"], gate["markers"], **extra)
        index[path]["children"].append(new)
        index[key] = new
    return root


def _flowrepository_id(origin: str | None) -> str | None:
    """"flowrepository:FR-FCM-Z7YM" -> "FR-FCM-Z7YM"."""
    prefix, _, ident = str(origin or "").partition(":")
    return ident or None if prefix == "flowrepository" else None


def workspace_cases(record: dict) -> tuple[list[dict], list[dict]]:
    """(cases, rejected) from one extraction record."""
    name = record["name"]
    if record.get("status") != "ok":
        return [], [{"file": _display_path(Path(record["workspace"])), "case_set": "workspace", "test_case_id": None,
                     "reasons": [f"workspace skipped: {record.get('reason')}"]}]
    structures: OrderedDict[tuple, list[dict]] = OrderedDict()
    for sample in record["samples"]:
        key = tuple((tuple(g["path"]), g["name"], g["gate_type"]) for g in sample["gates"])
        structures.setdefault(key, []).append(sample)
    context = _workspace_context(record["workspace"])
    source_type = context.pop("source_type", None) or (
        "flowrepository_wsp" if str(record.get("origin", "")).startswith("flowrepository")
        else "flowjo_wsp")
    cases, rejected = [], []
    for k, samples in enumerate(structures.values(), 1):
        cid = f"WSP-{name}" + (f"-{k}" if k > 1 else "")
        first = samples[0]
        counts: dict = {}
        for s in samples:
            for g in s["gates"]:
                if g.get("count") is not None:
                    counts.setdefault(tuple(g["path"]) + (g["name"],), {})[s["sample_id"]] = g["count"]
        groups = [g for g in first["groups"] if g != "All Samples"] or first["groups"]
        root = _case_tree(first["gates"], [s["sample_id"] for s in samples], counts)
        case = {
            "test_case_id": cid, "source_type": source_type, "omip_id": None, "doi": None,
            "flowrepository_id": _flowrepository_id(record.get("origin")),
            "has_wsp": True, "wsp_validated": True,
            "context": {"sample_type": context.get("sample_type", "unknown"),
                        "species": context.get("species", "unknown"),
                        "application": context.get("application", "unknown"),
                        "tissue": context.get("tissue"), "disease_state": None,
                        "additional_notes": context.get("additional_notes")},
            "panel": {"entries": first["panel"]},
            "acquisition": {"parameters": first["parameters"]},
            "gating_hierarchy": {"root": root},
            "workspace": {"file": _display_path(Path(record["workspace"])),
                          "sha256": record.get("sha256"), "origin": record.get("origin"),
                          "sample_group": groups[0] if groups else None,
                          "samples": [s["sample_id"] for s in samples],
                          "fcs_loaded": [s["sample_id"] for s in samples if s["fcs_loaded"]],
                          "flowkit_version": record.get("flowkit_version")},
            "metadata": {"curation_date": EXTRACTOR_CASE_DATE,
                         "curator": f"scievals.gating.extract (flowkit {record.get('flowkit_version')})"},
            "case_set": "workspace",
            "source": {"file": _display_path(Path(record["workspace"])), "sha256": record.get("sha256")},
        }
        gates = T.count_nodes(root) - 1
        problems = validation_problems(case)
        if gates < MIN_WORKSPACE_GATES:
            problems.append(f"only {gates} gate(s); a benchmark case needs {MIN_WORKSPACE_GATES}")
        if T.depth(root) < MIN_WORKSPACE_DEPTH:
            problems.append("flat: every gate sits directly under the root (no hierarchy)")
        if problems:
            rejected.append({"file": _display_path(Path(record["workspace"])), "case_set": "workspace",
                             "test_case_id": cid, "reasons": problems})
        else:
            cases.append(case)
    return cases, rejected


def dataset_label(cases: list[dict]) -> str:
    sets = {c["case_set"] for c in cases}
    parts = [f"OMIP-{s}" for s in ("verified", "staging") if s in sets]
    parts += sorted(f"OMIP-{s}" for s in sets - {"verified", "staging", "workspace"})
    origins = {str(c["workspace"].get("origin", "")) for c in cases if c["case_set"] == "workspace"}
    if any(o == "embedded-flowkit" for o in origins):
        parts.append("flowkit-wsp")
    if any(o.startswith("flowrepository") for o in origins):
        parts.append("FlowRepository-wsp")
    if any(o not in ("embedded-flowkit",) and not o.startswith("flowrepository") for o in origins):
        parts.append("other-wsp")
    return "+".join(parts) or "empty"


def skipped_inputs(download: dict, workspace_records: list[dict]) -> list[dict]:
    """What the user configured or gave that did not make it into the cases: failed
    sources, workspaces skipped at extraction, FCS files flowkit could not read."""
    skipped = [{"what": "source", "name": e["source"], "reason": e.get("reason")}
               for e in download.get("sources", []) if e.get("status") == "failed"]
    for record in workspace_records:
        if record.get("status") != "ok":
            skipped.append({"what": "workspace", "name": _display_path(Path(record["workspace"])),
                            "reason": record.get("reason")})
        skipped += [{"what": "fcs_file", "name": f"{record['name']}: {item['file']}",
                     "reason": item.get("reason")} for item in record.get("fcs_skipped", [])]
    return skipped


def build_cases(omip_dirs: list, extracted_jsonl, out_cases_jsonl, report_json,
                download_json=None, chosen: dict | None = None) -> dict:
    """Write the case file and the curation report; return the report.

    The dataset label gains ``+<n>-skipped`` when sources, workspaces or FCS files were
    skipped (listed under ``skipped`` in the report), and `` (limited to N items)`` when the
    config's item selection (``chosen``, :mod:`scievals.common.selection`) cut the cases, so a
    table row never looks like the full data set when it is not."""
    cases: list[dict] = []
    rejected: list[dict] = []
    for folder in omip_dirs:
        valid, bad = load_omip_dir(folder)
        cases += valid
        rejected += bad
    workspace_records = read_jsonl(extracted_jsonl) if extracted_jsonl else []
    for record in workspace_records:
        valid, bad = workspace_cases(record)
        cases += valid
        rejected += bad
    unique: dict[str, dict] = {}
    for case in cases:
        cid = case["test_case_id"]
        if cid in unique:
            rejected.append({"file": case["source"]["file"], "case_set": case["case_set"],
                             "test_case_id": cid,
                             "reasons": [f"duplicate test_case_id (kept {unique[cid]['source']['file']})"]})
            continue
        unique[cid] = case
    every = sorted_cases(unique.values())
    final = select(every, chosen, lambda case: case["test_case_id"])
    if not final:
        log.warning("no valid test cases: the case file is empty")
    skipped = skipped_inputs(read_json(download_json) if download_json else {},
                             workspace_records)
    report = {
        "dataset": limited_label(dataset_label(every) + (f"+{len(skipped)}-skipped" if skipped
                                                         else ""), chosen, len(final), len(every)),
        "n_cases": len(final),
        "by_set": {s: sum(1 for c in final if c["case_set"] == s)
                   for s in sorted({c["case_set"] for c in final})},
        "cases": [summary_row(c) for c in final],
        "rejected": rejected,
        "skipped": skipped,
        "workspaces": [{"workspace": r["workspace"], "status": r.get("status"),
                        "reason": r.get("reason")} for r in workspace_records],
    }
    if limited_summary(chosen, len(final), len(every)):
        report["limited"] = limited_summary(chosen, len(final), len(every))
        say_limited("gating", f"{len(final)} of {len(every)} cases")
    write_jsonl(out_cases_jsonl, final)
    write_json(report_json, report)
    log.info("%d cases (%s); %d rejected", len(final), report["dataset"], len(rejected))
    return report


# The job of gating_curate: scievals.common.entry.run_stage imports this module
# for it alone, so the job loads its own stage's code and nothing else.
def stage_curate(smk) -> None:
    """OMIP cases + extracted workspaces -> cases.jsonl and its curation report."""
    build_cases(list(smk.params.omip_dirs), smk.input.extracted, smk.output.cases,
                smk.output.report, download_json=smk.input.source,
                chosen=getattr(smk.params, "selection", None))
