"""Read FlowJo workspaces into gate hierarchies with flowkit.

This is the only module that imports flowkit (about 4 s), and only inside
:func:`read_workspace`, so scoring and prediction never pay for it.

One JSONL record per workspace: ``status`` "ok" with its samples, or "skipped"
with the reason (a corrupt or unsupported workspace never stops the run; flowkit
missing does, with one error line). Per sample: groups, whether its FCS file was
loaded, panel entries from the ``$PnN``/``$PnS`` keywords, the acquisition
parameters, and every gate with its name, path, parent, gate type, dimensions,
markers and (with FCS data) event count.

FCS files are offered to a workspace from its own folder and from downloads of its
own source only, and each is read on its own first: an unreadable FCS file is a
recorded skip (``fcs_skipped``) of that file, never the loss of other workspaces.
"""

from __future__ import annotations

import logging
import os
import re
import time
import warnings
from pathlib import Path

from scievals.common import notices
from scievals.common.errors import ScievalsError
from scievals.common.extras import import_extra
from scievals.common.io import sha256_file, write_json, write_jsonl
from scievals.gating.paths import FLOWKIT_DIR

log = logging.getLogger(__name__)

_SCATTER = re.compile(r"^(FSC|SSC)(-[AHW])?$|^(FSC|SSC)\b", re.IGNORECASE)
_DETECTOR_SUFFIX = re.compile(r"(\s+FLR)?-[AHW]$|\s+FLR-[AHW]$")
_COMP_PREFIX = re.compile(r"^(FJComp-|Comp-|comp-)")
_VIABILITY = re.compile(r"viab|live|dead|vivid|zombie|aqua|amine|7-?aad|dapi|fixable|propidium",
                        re.IGNORECASE)


def _is_scatter_or_time(name: str) -> bool:
    return bool(_SCATTER.match(name)) or name.strip().lower() in ("time", "event_length", "width")


def _strip_channel(name: str) -> str:
    return _DETECTOR_SUFFIX.sub("", _COMP_PREFIX.sub("", name.strip())).strip()


def panel_from_keywords(keywords: dict) -> tuple[list[dict], list[str], dict[str, str]]:
    """(panel entries, parameter names, channel -> marker) from FCS text keywords.

    ``$PnS`` (stain) names the marker when present and ``$PnN`` the channel;
    without ``$PnS``, ``$PnN`` of the form "<marker> <fluorophore>" is split at the
    first space (a viability dye keeps its whole name). Scatter and time
    parameters are listed in parameters, not in the panel; compensated copies
    ("Comp-...") are folded into their channel.
    """
    upper = {str(k).upper(): v for k, v in keywords.items()}
    count = int(str(upper.get("$PAR", "0")).strip() or 0)
    if not count:  # FlowJo keyword sets sometimes lack $PAR; count the $PnN keys instead
        count = max((int(m.group(1)) for k in upper if (m := re.match(r"^\$P(\d+)N$", k))),
                    default=0)
    entries: list[dict] = []
    parameters: list[str] = []
    channel_marker: dict[str, str] = {}
    seen: set[str] = set()
    for i in range(1, count + 1):
        pn = str(upper.get(f"$P{i}N", "") or "").strip()
        ps = str(upper.get(f"$P{i}S", "") or "").strip()
        if not pn:
            continue
        parameters.append(pn)
        base = _strip_channel(pn)
        if _is_scatter_or_time(base) or base in seen:
            if base in channel_marker:
                channel_marker[pn] = channel_marker[base]
            continue
        seen.add(base)
        if ps:
            marker, fluorophore = _strip_channel(ps), base
        elif _VIABILITY.search(base):
            marker, fluorophore = base, base
        else:
            marker, _, rest = base.partition(" ")
            fluorophore = rest.strip() or None
        entries.append({"marker": marker, "fluorophore": fluorophore, "clone": None,
                        "channel": pn, "vendor": None, "cat_number": None})
        channel_marker[pn] = channel_marker[base] = marker
    return entries, parameters, channel_marker


def _dimension_marker(dim_id: str, channel_marker: dict[str, str]) -> str:
    for candidate in (dim_id, _COMP_PREFIX.sub("", dim_id), _strip_channel(dim_id)):
        if candidate in channel_marker:
            return channel_marker[candidate]
    return dim_id


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]


def import_flowkit():
    """flowkit, or one clear error: a missing dependency stops the job, it is no skip."""
    try:
        return import_extra("flowkit")  # heavy (about 4 s): imported only when a workspace is read
    except ImportError as exc:  # installed but broken (a dependency of flowkit missing, ...)
        raise ScievalsError("flowkit", f"cannot be imported ({_one_line(exc)})",
                            "reinstall the gating extra (pip install -e '.[gating]') or "
                            "run with --sdm conda (envs/workspaces.yaml)") from None


def _fcs_candidates(wsp: Path, fcs_dirs: list[Path], origins: dict[str, str]) -> list[str]:
    """FCS files next to the workspace and in ``fcs_dirs``, minus other sources' downloads.

    ``origins`` maps each downloaded file to its source: a downloaded FCS file is offered
    only to a workspace of the same source, so one source's bad file cannot cost another.
    """
    own = origins.get(str(wsp))
    found = set()
    for folder in (wsp.parent, wsp.parent / "fcs_files", *fcs_dirs):
        if folder.is_dir():
            found |= {str(p) for p in folder.glob("*.fcs") if origins.get(str(p), own) == own}
    return sorted(found)


def _load_fcs(fk, paths: list[str]) -> tuple[list, list[dict]]:
    """(Sample objects, skipped files): each file on its own, so one bad file costs itself."""
    samples, skipped = [], []
    for path in paths:
        try:
            # As flowkit's Workspace loads paths itself (FlowJo's "/" -> "_" in labels).
            samples.append(fk.Sample(path, use_flowjo_labels=True))
        except ImportError:
            raise
        except Exception as exc:  # noqa: BLE001 - an unreadable FCS file is recorded, not fatal
            reason = _one_line(exc)
            log.warning("skipped FCS file %s: %s", path, reason)
            skipped.append({"file": Path(path).name, "reason": reason})
    return samples, skipped


def _gates(ws, sample_id: str, channel_marker: dict[str, str], counts: dict) -> list[dict]:
    hierarchy = ws.get_gate_hierarchy(sample_id, output="dict")
    gates: list[dict] = []
    stack = [(child, ("root",)) for child in reversed(hierarchy.get("children", []))]
    while stack:
        item, path = stack.pop()
        name = item["name"]
        problem = None
        try:
            gate = ws.get_gate(sample_id, name, gate_path=path)
            dims = [d.id for d in getattr(gate, "dimensions", []) or []]
        except Exception as exc:  # noqa: BLE001 - a gate flowkit cannot rebuild keeps its name and path
            dims, problem = [], _one_line(exc)
            log.warning("sample %s, gate %s: dimensions unreadable (%s); markers left empty",
                        sample_id, "/".join(path + (name,)), problem)
        gate_record = {
            "name": name, "path": list(path), "parent": path[-1] if len(path) > 1 else None,
            "gate_type": str(item.get("gate_type") or "Unknown"),
            "dimensions": dims,
            "markers": [_dimension_marker(d, channel_marker) for d in dims],
            "count": counts.get((name, path)),
        }
        if problem:
            gate_record["dimensions_error"] = problem
        gates.append(gate_record)
        for child in reversed(item.get("children", [])):
            stack.append((child, path + (name,)))
    return gates


def _event_counts(ws, sample_id: str, fcs_skipped: list[dict]) -> dict | None:
    """Gate -> event count of one loaded sample; None (and a skip recorded) when flowkit
    cannot gate its data, e.g. an FCS file whose $TOT lies (0 events: a division by zero
    in flowkit). Such a file then costs its sample's counts, not the whole workspace."""
    try:
        ws.analyze_samples(sample_id=sample_id, use_mp=False)
        report = ws.get_gating_results(sample_id).report
        return {(row.gate_name, tuple(row.gate_path)): int(row.count)
                for row in report.itertuples()}
    except ImportError:
        raise
    except Exception as exc:  # noqa: BLE001 - any analysis failure costs only these counts
        reason = f"event counts failed: {_one_line(exc)}"
        log.warning("sample %s: %s; its gates keep no counts", sample_id, reason)
        fcs_skipped.append({"file": sample_id, "reason": reason})
        return None


def read_workspace(wsp_path: str | os.PathLike, fcs_dirs: list | None = None,
                   origins: dict | None = None) -> dict:
    """Read one workspace; raises on a corrupt or unsupported file (caller records it)."""
    fk = import_flowkit()
    wsp = Path(wsp_path)
    fcs = _fcs_candidates(wsp, [Path(d) for d in fcs_dirs or []], origins or {})
    fcs_samples, fcs_skipped = _load_fcs(fk, fcs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ws = fk.Workspace(str(wsp), fcs_samples=fcs_samples or None, load_missing_file_data=True)
        sample_ids = ws.get_sample_ids(loaded_only=False)
        loaded = set(ws.get_sample_ids(loaded_only=True))
        groups = {g: list(ws.get_sample_ids(group_name=g, loaded_only=False))
                  for g in ws.get_sample_groups()}
        samples = []
        for sid in sample_ids:
            counts = _event_counts(ws, sid, fcs_skipped) if sid in loaded else None
            keywords = ws.get_keywords(sid)
            entries, parameters, channel_marker = panel_from_keywords(keywords)
            samples.append({
                "sample_id": sid,
                "groups": [g for g, members in groups.items() if sid in members],
                "fcs_loaded": counts is not None,
                "panel": entries,
                "parameters": parameters,
                "gates": _gates(ws, sid, channel_marker, counts or {}),
            })
    return {
        "groups": groups,
        "samples": samples,
        "fcs_files": [Path(f).name for f in fcs],
        "fcs_skipped": fcs_skipped,
        "flowkit_version": getattr(fk, "__version__", "unknown"),
        "warnings": sorted({f"{w.category.__name__}: {w.message}" for w in caught})[:20],
    }


def _origin(path: Path, origins: dict) -> str:
    """Where a workspace came from: the embedded FlowKit data, a download, or local."""
    if str(path) in origins:
        return origins[str(path)]
    try:
        path.resolve().relative_to(FLOWKIT_DIR.resolve())
        return "embedded-flowkit"
    except ValueError:
        return "local"


def extract_workspaces(wsp_paths: list, out_jsonl, report_json, fcs_dirs: list | None = None,
                       origins: dict | None = None) -> list[dict]:
    """Extract every workspace; a bad one is skipped with its reason, never a crash.

    ``origins`` maps downloaded files to their source (see :func:`_fcs_candidates`).
    """
    origins = origins or {}
    if wsp_paths:
        import_flowkit()
    records = []
    for path in wsp_paths:
        path = Path(path)
        record = {"workspace": str(path), "name": path.stem, "origin": _origin(path, origins)}
        started = time.perf_counter()
        try:
            record["sha256"] = sha256_file(path)
            data = read_workspace(path, fcs_dirs, origins)
            if not data["samples"]:
                raise ValueError("workspace lists no samples")
            if not any(s["gates"] for s in data["samples"]):
                raise ValueError("workspace has no gates")
            record.update(status="ok", reason=None, **data)
        except ImportError as exc:  # a dependency flowkit loads lazily: the job cannot work
            raise ScievalsError("flowkit", f"a dependency cannot be imported ({_one_line(exc)})",
                                "reinstall the gating environment (envs/flowkit.yaml)") from None
        except Exception as exc:  # noqa: BLE001 - corrupt/unsupported files are recorded, not fatal
            reason = _one_line(exc)
            log.warning("skipped workspace %s: %s", path, reason)
            record.update(status="skipped", reason=reason)
        record["seconds"] = round(time.perf_counter() - started, 3)
        if record["status"] == "ok":
            # one line per workspace: the job's log file keeps them, the terminal gets the
            # curation's one-line total (scievals.common.entry.TerminalLines)
            log.info("%s: %d sample(s), %d gate(s), FCS loaded for %d (%.2f s)", path,
                     len(record["samples"]), max(len(s["gates"]) for s in record["samples"]),
                     sum(s["fcs_loaded"] for s in record["samples"]), record["seconds"],
                     extra={"terminal": False})
        records.append(record)
    write_jsonl(out_jsonl, records)
    _notice_skips(records)
    write_json(report_json, {
        "workspaces": len(records),
        "extracted": [r["workspace"] for r in records if r["status"] == "ok"],
        "skipped": [{"workspace": r["workspace"], "reason": r["reason"]}
                    for r in records if r["status"] != "ok"],
        "fcs_skipped": [{"workspace": r["workspace"], **s}
                        for r in records for s in r.get("fcs_skipped", [])],
        "samples": sum(len(r.get("samples", [])) for r in records),
        "samples_with_fcs": sum(1 for r in records for s in r.get("samples", []) if s["fcs_loaded"]),
    })
    return records


def _notice_skips(records: list[dict]) -> None:
    """Say every skipped workspace and FCS file again at the end of the run (the curation
    report counts them in the dataset label)."""
    for record in records:
        if record["status"] != "ok":
            notices.record("skipped_source", "gating",
                           f"workspace {record['workspace']} skipped at extraction: "
                           f"{record['reason']}", details={"workspace": record["workspace"]})
        for item in record.get("fcs_skipped", []):
            notices.record("skipped_source", "gating",
                           f"FCS file {item['file']} skipped for workspace {record['name']} "
                           f"(its sample has no event counts): {item['reason']}",
                           details={"workspace": record["workspace"], **item})
