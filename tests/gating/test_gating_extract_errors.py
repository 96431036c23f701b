"""Extraction failures that need no flowkit import: a missing flowkit, unreadable gates."""

from __future__ import annotations

import logging
import sys

import pytest
from scievals.common.errors import ScievalsError
from scievals.gating import extract
from scievals.gating.paths import embedded_workspaces


def test_missing_flowkit_stops_the_job_with_one_line(tmp_path, monkeypatch):
    # Defect 5: without flowkit every workspace was "skipped: ModuleNotFoundError" and the run
    # went on with fewer cases. A missing dependency is an error, not a skipped workspace.
    monkeypatch.setitem(sys.modules, "flowkit", None)  # "import flowkit" raises ImportError
    out, report = tmp_path / "x.jsonl", tmp_path / "x.json"
    with pytest.raises(ScievalsError) as err:
        extract.extract_workspaces(embedded_workspaces(), out, report)
    message = err.value.one_line()
    assert message.startswith("flowkit: this needs the 'gating' extra") and "\n" not in message
    assert not out.exists() and not report.exists()
    # Nothing to read, nothing needed: no workspaces and no flowkit is fine.
    extract.extract_workspaces([], out, report)
    assert out.read_text() == ""


class _Gate:
    def __init__(self, dims):
        self.dimensions = [type("Dim", (), {"id": d})() for d in dims]


class _Workspace:
    """The two flowkit calls ``_gates`` makes; the second gate cannot be rebuilt."""

    def get_gate_hierarchy(self, sample_id, output):
        return {"children": [{"name": "Singlets", "gate_type": "PolygonGate", "children": [
            {"name": "Broken", "gate_type": "QuadrantGate", "children": []}]}]}

    def get_gate(self, sample_id, name, gate_path):
        if name == "Broken":
            raise KeyError("quadrant gate dimension not found")
        return _Gate(["FSC-A", "FSC-H"])


def test_unreadable_gate_dimensions_are_logged_and_recorded(caplog):
    with caplog.at_level(logging.WARNING, logger="scievals.gating.extract"):
        gates = extract._gates(_Workspace(), "s1", {}, {})
    assert [g["dimensions"] for g in gates] == [["FSC-A", "FSC-H"], []]
    assert "dimensions_error" not in gates[0]
    assert gates[1]["dimensions_error"] == "KeyError: 'quadrant gate dimension not found'"
    assert "sample s1, gate root/Singlets/Broken: dimensions unreadable" in caplog.text
