"""flowkit extraction on the real embedded workspaces (flowkit import: slow)."""

from __future__ import annotations

import json
import shutil

import pytest
from scievals.common import notices
from scievals.common.io import read_jsonl
from scievals.gating.curate import build_cases
from scievals.gating.extract import panel_from_keywords
from scievals.gating.paths import (
    FLOWKIT_DIR,
    OMIP_STAGING_DIR,
    OMIP_VERIFIED_DIR,
    embedded_workspaces,
)
from scievals.gating.tree import count_nodes, depth, render

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    from scievals.gating.extract import extract_workspaces

    tmp = tmp_path_factory.mktemp("extract")
    corrupt = tmp / "corrupt.wsp"
    shutil.copy(FLOWKIT_DIR / "8_color_data_set" / "8_color_ICS.wsp", corrupt)
    with open(corrupt, "r+b") as handle:
        handle.truncate(20000)
    out, report = tmp / "extracted.jsonl", tmp / "report.json"
    notices.start_job("gating_extract", {}, [str(out)], tmp / "notices")
    try:
        extract_workspaces(embedded_workspaces() + [corrupt], out, report)
    finally:
        notices.end_job()
    records = {r["name"]: r for r in read_jsonl(out)}
    return records, json.loads(report.read_text()), out, tmp


def test_8_color_ics_hierarchy(extracted):
    records, _, _, _ = extracted
    ics = records["8_color_ICS"]
    assert ics["status"] == "ok" and ics["origin"] == "embedded-flowkit"
    assert ics["groups"]["DEN"] == [
        "101_DEN084Y5_15_E01_008_clean.fcs", "101_DEN084Y5_15_E03_009_clean.fcs",
        "101_DEN084Y5_15_E05_010_clean.fcs"]
    sample = ics["samples"][0]
    assert sample["groups"] == ["All Samples", "DEN"] and not sample["fcs_loaded"]
    gates = sample["gates"]
    assert len(gates) == 14
    by_path = {(tuple(g["path"]), g["name"]): g for g in gates}
    live = by_path[(("root", "Time", "Singlets"), "aAmine-")]
    assert live["gate_type"] == "PolygonGate" and live["markers"] == ["Aqua Amine", "SSC-A"]
    assert live["parent"] == "Singlets" and live["count"] is None
    cd4 = by_path[(("root", "Time", "Singlets", "aAmine-", "CD3+"), "CD4+")]
    assert cd4["dimensions"] == ["CD4 PE-Cy7 FLR-A", "CD8 PerCP-Cy55 FLR-A"]
    assert cd4["markers"] == ["CD4", "CD8"]
    cytokines = sorted(g["name"] for g in gates if g["parent"] == "CD8+")
    assert cytokines == ["CD107a+", "IFNg+", "IL2+", "TNFa+"]
    panel = {e["marker"]: e["fluorophore"] for e in sample["panel"]}
    assert panel == {"TNFa": "FITC", "CD8": "PerCP-Cy55", "IL2": "BV421", "Aqua Amine": "Aqua Amine",
                     "IFNg": "APC", "CD3": "APC-H7", "CD107a": "PE", "CD4": "PE-Cy7"}
    assert "Time" in sample["parameters"]


def test_event_counts_where_fcs_files_exist(extracted):
    records, report, _, _ = extracted
    counts = {name: {g["name"]: g["count"] for g in records[name]["samples"][0]["gates"]}
              for name in ("simple_poly_and_rect", "simple_poly_and_rect_v2_poly50",
                           "single_ellipse_51_events")}
    assert counts == {"simple_poly_and_rect": {"poly1": 0, "rect1": 0},
                      "simple_poly_and_rect_v2_poly50": {"poly1": 50, "rect1": 0},
                      "single_ellipse_51_events": {"ellipse1": 51}}
    assert records["simple_poly_and_rect"]["samples"][0]["fcs_loaded"]
    assert report["samples_with_fcs"] == 3


def test_corrupt_workspace_is_recorded_not_fatal(extracted):
    records, report, _, _ = extracted
    bad = records["corrupt"]
    assert bad["status"] == "skipped" and bad["reason"].startswith("XMLSyntaxError")
    assert [s["workspace"] for s in report["skipped"]] == [bad["workspace"]]
    assert len(report["extracted"]) == len(embedded_workspaces())
    # Said at the end of the run: one notice, naming the workspace.
    [notice] = notices.collect(extracted[3] / "notices")
    assert (notice.kind, notice.benchmark) == ("skipped_source", "gating")
    assert notice.message.startswith(f"workspace {bad['workspace']} skipped at extraction: "
                                     "XMLSyntaxError")


def test_curated_workspace_case(extracted):
    _, _, out, tmp = extracted
    report = build_cases([OMIP_VERIFIED_DIR, OMIP_STAGING_DIR], out, tmp / "cases.jsonl",
                         tmp / "curation.json")
    # The corrupt workspace was skipped: the label says one input is missing.
    assert report["dataset"] == "OMIP-verified+OMIP-staging+flowkit-wsp+1-skipped"
    assert [(s["what"], s["name"]) for s in report["skipped"]] == [
        ("workspace", str(tmp / "corrupt.wsp"))]
    assert report["by_set"] == {"staging": 4, "verified": 10, "workspace": 1}
    case = next(c for c in read_jsonl(tmp / "cases.jsonl") if c["case_set"] == "workspace")
    assert case["test_case_id"] == "WSP-8_color_ICS"
    assert case["workspace"]["sample_group"] == "DEN" and len(case["workspace"]["samples"]) == 3
    root = case["gating_hierarchy"]["root"]
    assert count_nodes(root) - 1 == 14 and depth(root) == 6
    assert render(root)[:5] == ["All Events", "└── Time", "    └── Singlets", "        └── aAmine-",
                                "            └── CD3+"]
    rejected = {r["test_case_id"]: r["reasons"] for r in report["rejected"]}
    assert "flat: every gate sits directly under the root (no hierarchy)" in \
        rejected["WSP-simple_diamond_example_quad_gate"]
    assert any("XMLSyntaxError" in reason for r in report["rejected"] if r["test_case_id"] is None
               for reason in r["reasons"])


def test_every_embedded_case_scores_perfectly_against_itself(extracted, assert_scores_itself_perfectly):
    # All cases the default run curates from embedded data: verified, staging and workspace.
    _, _, out, tmp = extracted
    build_cases([OMIP_VERIFIED_DIR, OMIP_STAGING_DIR], out, tmp / "all.jsonl", tmp / "all.json")
    cases = read_jsonl(tmp / "all.jsonl")
    assert {c["case_set"] for c in cases} == {"verified", "staging", "workspace"}
    for case in cases:
        assert_scores_itself_perfectly(case)


def test_panel_from_stain_keywords():
    entries, parameters, channel_marker = panel_from_keywords({
        "$PAR": "5", "$P1N": "FSC-A", "$P2N": "FITC-A", "$P2S": "CD3", "$P3N": "PE-A", "$P3S": "",
        "$P4N": "Comp-FITC-A", "$P4S": "CD3", "$P5N": "Time"})
    assert [(e["marker"], e["fluorophore"], e["channel"]) for e in entries] == [
        ("CD3", "FITC", "FITC-A"), ("PE", None, "PE-A")]
    assert parameters == ["FSC-A", "FITC-A", "PE-A", "Comp-FITC-A", "Time"]
    assert channel_marker["Comp-FITC-A"] == "CD3"


def test_a_bad_fcs_file_costs_only_itself(tmp_path):
    # Issue 14.1: a configured source whose archive holds one unreadable FCS file made flowkit
    # fail for every workspace (all downloaded FCS folders were offered to all of them).
    from scievals.gating.extract import extract_workspaces

    source = tmp_path / "sources" / "b"
    source.mkdir(parents=True)
    wsp = source / "single_ellipse_51_events.wsp"
    shutil.copy(FLOWKIT_DIR / "simple_line_example" / wsp.name, wsp)
    good = FLOWKIT_DIR / "simple_line_example" / "data_set_simple_line_100.fcs"
    bad = source / good.name  # the same sample, cut short: its data section is missing
    bad.write_bytes(good.read_bytes()[:600])
    origins = {str(wsp): "url:b", str(bad): "url:b"}
    out, report = tmp_path / "x.jsonl", tmp_path / "x.json"
    notices.start_job("gating_extract", {}, [str(out)], tmp_path / "notices")
    try:
        records = extract_workspaces(embedded_workspaces() + [wsp], out, report,
                                     fcs_dirs=[str(source)], origins=origins)
    finally:
        notices.end_job()
    by_name = {(r["name"], r["origin"]): r for r in records}
    # Every embedded workspace is still read, with its own event counts.
    assert all(r["status"] == "ok" for r in records) and len(records) == 6
    ellipse = by_name[("single_ellipse_51_events", "embedded-flowkit")]
    assert ellipse["samples"][0]["gates"][0]["count"] == 51
    # The source's own workspace is read without the bad file, which is recorded as a skip.
    copy = by_name[("single_ellipse_51_events", "url:b")]
    assert not copy["samples"][0]["fcs_loaded"]
    assert [s["file"] for s in copy["fcs_skipped"]] == [bad.name]
    skipped = json.loads(report.read_text())["fcs_skipped"]
    assert [(s["workspace"], s["file"]) for s in skipped] == [(str(wsp), bad.name)]
    assert skipped[0]["reason"].startswith("FCSParsingError")
    [notice] = notices.collect(tmp_path / "notices")
    assert notice.message.startswith(
        f"FCS file {bad.name} skipped for workspace single_ellipse_51_events "
        "(its sample has no event counts): FCSParsingError")
    # The curated data set says so in its label (which every table row carries).
    cases = build_cases([], out, tmp_path / "c.jsonl", tmp_path / "c.json")
    assert cases["dataset"].endswith("+1-skipped")
    assert [s["what"] for s in cases["skipped"]] == ["fcs_file"]
