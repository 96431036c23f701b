"""Prompts: three context levels x two strategies."""

from __future__ import annotations

import pytest
from scievals.common.errors import ScievalsError
from scievals.gating.prompts import PROMPT_VERSION, build_prompt, build_request, context_block


def test_minimal_lists_markers_only(omip_008):
    block = context_block(omip_008, "minimal")
    assert block == ("## Panel\n\nMarkers: IL-2, IL-4, IL-10, IFN-g, TNF-a, CD3, CD4, CD8, CD14, "
                     "CD19, ViViD")


def test_standard_and_rich(omip_008):
    standard = context_block(omip_008, "standard")
    assert "Species: human" in standard and "- CD3: Ax700" in standard
    assert "Additional Information" not in standard
    rich = context_block(omip_008, "rich")
    assert rich.startswith(standard)
    assert "Panel Size: 11 colors" in rich and "Complexity: simple" in rich
    assert "Notes: Panel for measuring Th1 and Th2" in rich
    for level in ("minimal", "standard", "rich"):
        assert "OMIP-008" not in build_prompt(omip_008, level, "cot")  # the id would leak the answer


def test_missing_fluorophore_and_clone(make_case):
    case = make_case("X", {"name": "All Events", "children": []}, ["CD3"])
    case["panel"]["entries"][0]["clone"] = "UCHT1"
    assert "- CD3: unknown (clone: UCHT1)" in context_block(case, "standard")


def test_strategies_differ_and_carry_the_schema(omip_008):
    direct = build_prompt(omip_008, "standard", "direct")
    cot = build_prompt(omip_008, "standard", "cot")
    assert "Give only the JSON hierarchy" in direct and "step by step" not in direct
    assert "step by step" in cot and cot.rstrip().endswith("End your answer with only the JSON hierarchy.")
    assert '"children": [{"name": "Gate name"' in direct
    request = build_request(omip_008, "rich", "direct")
    assert request.case_id == "OMIP-008" and [m.role for m in request.messages] == ["system", "user"]
    assert PROMPT_VERSION


def test_unknown_levels_are_errors(omip_008):
    with pytest.raises(ScievalsError):
        build_prompt(omip_008, "huge", "direct")
    with pytest.raises(ScievalsError):
        build_prompt(omip_008, "minimal", "tree-of-thought")
