"""Curation: valid OMIP cases kept, failing ones listed with reasons, workspace cases built."""

from __future__ import annotations

import json
import shutil

from scievals.common.io import read_jsonl, write_jsonl
from scievals.gating.cases import read_cases
from scievals.gating.curate import build_cases, dataset_label, workspace_cases
from scievals.gating.paths import OMIP_STAGING_DIR, OMIP_VERIFIED_DIR

FAILING_STAGING = ["OMIP-047", "OMIP-054", "OMIP-056", "OMIP-059", "OMIP-062", "OMIP-069", "OMIP-070",
                   "OMIP-079", "OMIP-080", "OMIP-081", "OMIP-085", "OMIP-086", "OMIP-090", "OMIP-096"]


def _gate(name, path, markers=(), count=None):
    return {"name": name, "path": list(path), "parent": path[-1] if len(path) > 1 else None,
            "gate_type": "PolygonGate", "dimensions": list(markers), "markers": list(markers),
            "count": count}


def _workspace_record(name, gates, samples=("s1.fcs",), status="ok"):
    return {"workspace": f"/data/{name}.wsp", "name": name, "origin": "flowrepository:FR-FCM-ZZZZ",
            "status": status, "reason": None if status == "ok" else "XMLSyntaxError: broken",
            "sha256": "0" * 64, "flowkit_version": "1.3.2", "groups": {"All Samples": list(samples)},
            "samples": [{"sample_id": s, "groups": ["All Samples", "G1"], "fcs_loaded": True,
                         "panel": [{"marker": "CD3", "fluorophore": "FITC"}],
                         "parameters": ["FSC-A", "FITC-A", "Time"], "gates": gates} for s in samples]}


def test_build_cases_keeps_valid_and_lists_failures(tmp_path):
    out, report_path = tmp_path / "cases.jsonl", tmp_path / "report.json"
    report = build_cases([OMIP_VERIFIED_DIR, OMIP_STAGING_DIR], None, out, report_path)
    assert report["dataset"] == "OMIP-verified+OMIP-staging"
    assert report["by_set"] == {"staging": 4, "verified": 10}
    cases = read_cases(out)
    assert [c["test_case_id"] for c in cases if c["case_set"] == "staging"] == [
        "OMIP-025", "OMIP-035", "OMIP-053", "OMIP-064"]
    rejected = {r["test_case_id"]: r for r in report["rejected"]}
    assert sorted(rejected) == FAILING_STAGING
    for entry in rejected.values():
        assert entry["case_set"] == "staging"
        assert entry["reasons"] == [("context.application: Input should be a valid string; "
                                    "metadata: Field required")]
    assert json.loads(report_path.read_text()) == report
    # Deterministic: the same inputs give byte-identical case files.
    build_cases([OMIP_VERIFIED_DIR, OMIP_STAGING_DIR], None, tmp_path / "again.jsonl", tmp_path / "r2.json")
    assert (tmp_path / "again.jsonl").read_bytes() == out.read_bytes()


def test_bad_files_and_duplicates(tmp_path):
    folder = tmp_path / "verified"
    folder.mkdir()
    shutil.copy(OMIP_VERIFIED_DIR / "omip_008.json", folder / "a.json")
    shutil.copy(OMIP_VERIFIED_DIR / "omip_008.json", folder / "b.json")
    (folder / "c.json").write_text("{not json")
    report = build_cases([folder], None, tmp_path / "cases.jsonl", tmp_path / "report.json")
    assert report["n_cases"] == 1
    reasons = {r["file"].split("/")[-1]: r["reasons"][0] for r in report["rejected"]}
    assert reasons["c.json"].startswith("unreadable JSON")
    assert reasons["b.json"].startswith("duplicate test_case_id")


def test_workspace_cases_group_samples_and_reject_flat_trees(tmp_path):
    deep = [_gate("Time", ["root"], ["Time"], 100), _gate("Singlets", ["root", "Time"], ["FSC-A"], 90),
            _gate("CD3+", ["root", "Time", "Singlets"], ["CD3"], 40)]
    cases, rejected = workspace_cases(_workspace_record("deep", deep, samples=("s1.fcs", "s2.fcs")))
    assert rejected == [] and len(cases) == 1
    case = cases[0]
    assert case["test_case_id"] == "WSP-deep" and case["source_type"] == "flowrepository_wsp"
    assert case["flowrepository_id"] == "FR-FCM-ZZZZ"
    assert case["workspace"]["sample_group"] == "G1"
    time_gate = case["gating_hierarchy"]["root"]["children"][0]
    assert time_gate["event_counts"] == {"s1.fcs": 100, "s2.fcs": 100}
    assert case["context"]["species"] == "unknown"
    flat = [_gate("a", ["root"]), _gate("b", ["root"]), _gate("c", ["root"])]
    cases, rejected = workspace_cases(_workspace_record("flat", flat))
    assert cases == [] and "flat" in rejected[0]["reasons"][0]
    cases, rejected = workspace_cases(_workspace_record("broken", [], status="skipped"))
    assert rejected[0]["reasons"] == ["workspace skipped: XMLSyntaxError: broken"]
    extracted = tmp_path / "extracted.jsonl"
    write_jsonl(extracted, [_workspace_record("deep", deep)])
    report = build_cases([], extracted, tmp_path / "c.jsonl", tmp_path / "r.json")
    assert report["dataset"] == "FlowRepository-wsp" and read_jsonl(tmp_path / "c.jsonl")[0]["case_set"] == "workspace"


def test_dataset_label_names_what_went_in():
    assert dataset_label([]) == "empty"
    assert dataset_label([{"case_set": "verified"}]) == "OMIP-verified"
    assert dataset_label([{"case_set": "workspace", "workspace": {"origin": "embedded-flowkit"}},
                          {"case_set": "verified"}]) == "OMIP-verified+flowkit-wsp"


def test_skipped_inputs_are_in_the_dataset_label(tmp_path):
    """Issue 10 item 5: a configured source that failed (and a skipped workspace) changes the
    label every table row carries, and the report lists them."""
    download = tmp_path / "download.json"
    download.write_text(json.dumps({"sources": [
        {"source": "url:good", "status": "ok", "files": []},
        {"source": "flowrepository:FR-FCM-X", "status": "failed", "reason": "HTTP 404"}]}))
    extracted = tmp_path / "x.jsonl"
    write_jsonl(extracted, [{"workspace": str(tmp_path / "bad.wsp"), "name": "bad",
                             "status": "skipped", "reason": "XMLSyntaxError: truncated"}])
    report = build_cases([OMIP_VERIFIED_DIR], extracted, tmp_path / "c.jsonl", tmp_path / "r.json",
                         download_json=download)
    # 1 failed source + 1 skipped workspace = 2
    assert report["dataset"] == "OMIP-verified+2-skipped"
    assert [(s["what"], s["reason"]) for s in report["skipped"]] == [
        ("source", "HTTP 404"), ("workspace", "XMLSyntaxError: truncated")]
    # Nothing skipped: the label is the plain one.
    clean = build_cases([OMIP_VERIFIED_DIR], None, tmp_path / "c2.jsonl", tmp_path / "r2.json",
                        download_json=None)
    assert clean["dataset"] == "OMIP-verified" and clean["skipped"] == []


def test_a_smoke_run_keeps_the_chosen_cases_and_says_so_in_the_label(tmp_path):
    """Issue 29 point 3: `gating: {cases: [...], limit: N}` cut at the curate step."""
    import pytest
    from scievals.common.errors import ScievalsError

    out, report_path = tmp_path / "cases.jsonl", tmp_path / "report.json"
    staging = ["OMIP-064", "OMIP-025", "OMIP-053"]  # 3 of the 4 valid staging cases (above)
    chosen = {"limit": 2, "ids": staging, "key": "gating.cases"}
    report = build_cases([OMIP_VERIFIED_DIR, OMIP_STAGING_DIR], None, out, report_path,
                         chosen=chosen)
    # the case file's order (as the full run's), then the first 2
    assert [c["test_case_id"] for c in read_cases(out)] == ["OMIP-025", "OMIP-053"]
    # the label names the full set it was cut from (10 verified + 4 staging = 14 cases)
    assert report["dataset"] == "OMIP-verified+OMIP-staging (limited to 2 items)"
    assert report["limited"] == {"kept": 2, "of": 14, "limit": 2, "ids": staging}
    with pytest.raises(ScievalsError, match=r"gating\.cases: unknown id\(s\) 'OMIP-64'"):
        build_cases([OMIP_VERIFIED_DIR], None, out, report_path,
                    chosen={"limit": None, "ids": ["OMIP-64"], "key": "gating.cases"})
