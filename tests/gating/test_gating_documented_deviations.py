"""The four gating differences from the reference found by differential testing (issue 19,
item 17), now rows 20-23 of docs/gating.md's deviation table: each keeps scievals' behaviour,
checked here on the probe's inputs with hand-derived values."""

from __future__ import annotations

from pathlib import Path

import pytest
from scievals.gating import tree as T
from scievals.gating.metrics import (
    critical_gate_recall,
    critical_gates,
    hierarchy_prf,
    synonym_f1,
)
from scievals.gating.normalize import norm_reference, sem
from scievals.gating.parser import parse_reply

DOC = Path(__file__).resolve().parents[2] / "docs" / "gating.md"


def test_the_four_rows_are_in_the_deviation_table():
    text = DOC.read_text()
    for row in ("| 20 | whitespace inside gate names", "| 21 | critical gates flagged twice",
                "| 22 | parentheticals in markdown-list names",
                "| 23 | tab indentation in list and indented replies"):
        assert row in text


def test_row20_a_trailing_space_is_not_a_second_gate():
    truth = T.clean_tree({"name": "All Events", "children": [{"name": "Singlets", "children": [
        {"name": "Live"}]}]})
    pred = T.clean_tree({"name": "All Events", "children": [{"name": "Singlets", "children": [
        {"name": "Live"}, {"name": "Live "}]}]})
    # 3 distinct predicted names = the 3 truth names: P = R = 1 (the reference saw 4 names:
    # P = 3/4, F1 = 2 * 0.75 / 1.75 = 0.857)
    assert T.name_set(pred) == {"All Events", "Singlets", "Live"}
    match = hierarchy_prf(T.name_set(pred), T.name_set(truth), norm_reference)
    assert (match.precision, match.recall) == (1.0, 1.0)


def test_row21_a_gate_flagged_twice_is_one_critical_gate():
    truth = T.clean_tree({"name": "All Events", "children": [
        {"name": "CD4+ T cells", "is_critical": True, "children": [
            {"name": "Tregs", "is_critical": True}]},
        {"name": "CD8+ T cells", "children": [{"name": "Tregs", "is_critical": True}]}]})
    critical = critical_gates(truth, None)
    assert critical == ["CD4+ T cells", "Tregs"]
    # the prediction finds CD4+ T cells only: 1 of 2 (the reference's list: 1 of 3)
    recall, missing = critical_gate_recall({"All Events", "CD4+ T cells"}, critical)
    assert recall == 0.5 and missing == ["Tregs"]


def test_row22_markdown_list_names_keep_their_parentheticals():
    parsed = parse_reply("- All Events\n  - Lymphocytes\n    - T cells (CD3+)\n")
    assert parsed.method == "markdown_list"
    assert T.name_set(parsed.hierarchy) == {"All Events", "Lymphocytes", "T cells (CD3+)"}


def test_row22_figures_belong_to_the_right_side():
    """The row's probe: which synonym F1 is the reference's and which is ours (issue 30:
    the row had them swapped)."""
    reply = ("- All Events\n  - Lymphocytes\n    - CD4+ T cells (helper)\n"
             "    - CD8+ T cells (cytotoxic)\n")
    truth = {"All Events", "Lymphocytes", "T cells", "CD4+ T cells", "CD8+ T cells"}
    ours = T.name_set(parse_reply(reply).hierarchy)
    # the reference's markdown_list removes every (...): the names left are exact keys
    reference = {"All Events", "Lymphocytes", "CD4+ T cells", "CD8+ T cells"}
    # truth canonical names: all_events, lymphocytes, t_cells, cd4_t_cells, cd8_t_cells (5)
    assert sem("CD4+ T cells") == "cd4_t_cells" and sem("CD8+ T cells") == "cd8_t_cells"
    # kept: "cd4+ t cells (helper)" is no key; the first key found as a word in table order
    # is "t cells" (spec §4.2): both bracketed names read t_cells -> 3 canonical names, all
    # in the truth: p = 3/3, r = 3/5, F1 = 2 * 0.6 / 1.6 = 0.75
    assert sem("CD4+ T cells (helper)") == sem("CD8+ T cells (cytotoxic)") == "t_cells"
    assert synonym_f1(ours, truth) == pytest.approx(0.75)
    # stripped: 4 canonical names, all in the truth: p = 4/4, r = 4/5, F1 = 1.6 / 1.8 = 0.889
    assert synonym_f1(reference, truth) == pytest.approx(8 / 9)
    row = next(line for line in DOC.read_text().splitlines() if line.startswith("| 22 |"))
    reference_cell, ours_cell = row.split(" | ")[2:4]
    assert "0.889" in reference_cell and "0.75" in ours_cell


def test_row23_a_tab_is_four_columns():
    # "\t" = 4 columns, deeper than the 2-space item after it: Live attaches to All Events.
    # (A tab of one column would make Live, at 2, a child of Singlets, at 1.)
    parsed = parse_reply("- All Events\n\t- Singlets\n  - Live\n")
    root = parsed.hierarchy
    assert [c["name"] for c in root["children"]] == ["Singlets", "Live"]
