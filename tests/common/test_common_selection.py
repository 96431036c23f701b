"""Smoke-run item selection (scievals.common.selection, issue 29 point 3)."""

from __future__ import annotations

import pytest
from scievals.common.errors import ScievalsError
from scievals.common.selection import limited_label, limited_params, select, selection

ITEMS = [{"id": f"c{i}"} for i in range(1, 6)]  # c1 .. c5


def _ids(items):
    return [item["id"] for item in items]


def test_no_limit_and_no_ids_is_a_full_run():
    assert selection({"gating": {}}, "gating", "cases") is None
    assert limited_params(None) == {}
    assert _ids(select(ITEMS, None, lambda i: i["id"])) == ["c1", "c2", "c3", "c4", "c5"]


def test_the_section_limit_wins_over_the_top_level_one():
    assert selection({"limit": 3, "gating": {"limit": 1}}, "gating", "cases")["limit"] == 1
    assert selection({"limit": 3, "gating": {}}, "gating", "cases")["limit"] == 3


def test_ids_are_kept_in_the_item_order_then_limited():
    chosen = selection({"gating": {"cases": ["c4", "c2", "c5"], "limit": 2}}, "gating", "cases")
    # c2, c4, c5 in the items' order; the first 2 of them
    assert _ids(select(ITEMS, chosen, lambda i: i["id"])) == ["c2", "c4"]


def test_an_unknown_id_is_one_error_naming_the_key_and_a_near_id():
    chosen = selection({"gating": {"cases": ["c2", "c9x"]}}, "gating", "cases")
    with pytest.raises(ScievalsError) as err:
        select(ITEMS, chosen, lambda i: i["id"])
    line = err.value.one_line()
    assert "gating.cases" in line and "'c9x'" in line and "known: c1, c2, c3, c4, c5" in line


def test_the_label_says_how_many_items_were_kept_and_nothing_when_none_was_cut():
    chosen = {"limit": 2, "ids": None, "key": "gating.cases"}
    assert limited_label("OMIP-verified", chosen, 2, 15) == "OMIP-verified (limited to 2 items)"
    assert limited_label("OMIP-verified", chosen, 1, 15) == "OMIP-verified (limited to 1 item)"
    # a limit above the item count cuts nothing: a full result, labelled as one
    assert limited_label("OMIP-verified", {"limit": 50}, 15, 15) == "OMIP-verified"
