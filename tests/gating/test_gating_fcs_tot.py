"""An FCS file whose $TOT lies costs its sample's event counts, not its workspace
(issue 19, item 16)."""

from __future__ import annotations

import json
import shutil

import pytest
from scievals.common import notices
from scievals.gating.paths import FLOWKIT_DIR

pytestmark = pytest.mark.slow  # imports flowkit


def test_fcs_file_with_a_lying_tot_costs_only_its_counts(tmp_path):
    from scievals.gating.extract import extract_workspaces

    folder = tmp_path / "src"
    folder.mkdir()
    wsp = folder / "single_ellipse_51_events.wsp"
    shutil.copy(FLOWKIT_DIR / "simple_line_example" / wsp.name, wsp)
    good = (FLOWKIT_DIR / "simple_line_example" / "data_set_simple_line_100.fcs").read_bytes()
    # $TOT says 0 events although 100 follow; $P1R gains the two characters $TOT lost, so
    # the TEXT segment keeps its length and every offset in the header stays right.
    assert b"$TOT/100/" in good and b"$P1R/262144/" in good
    lying = good.replace(b"$TOT/100/", b"$TOT/0/").replace(b"$P1R/262144/", b"$P1R/26214400/")
    assert len(lying) == len(good)
    (folder / "data_set_simple_line_100.fcs").write_bytes(lying)
    out, report = tmp_path / "x.jsonl", tmp_path / "x.json"
    notices.start_job("gating_extract", {}, [str(out)], tmp_path / "notices")
    try:
        (record,) = extract_workspaces([wsp], out, report)
    finally:
        notices.end_job()
    # The workspace is read: its hierarchy (one ellipse gate) is kept, without a count.
    assert record["status"] == "ok"
    (sample,) = record["samples"]
    assert [(g["name"], g["count"]) for g in sample["gates"]] == [("ellipse1", None)]
    assert sample["fcs_loaded"] is False
    (skip,) = record["fcs_skipped"]
    assert skip["file"] == "data_set_simple_line_100.fcs"
    assert skip["reason"].startswith("event counts failed: ZeroDivisionError")
    assert json.loads(report.read_text())["extracted"] == [str(wsp)]
    (notice,) = notices.collect(tmp_path / "notices")
    assert "(its sample has no event counts): event counts failed" in notice.message
