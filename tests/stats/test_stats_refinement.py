"""Counting what refinement turns changed (scievals.stats.refinement), worked by hand."""

from __future__ import annotations

import pandas as pd
from scievals.stats.refinement import change_rows, followup_rows, turn_rows


def frame(rows):
    return pd.DataFrame(rows, columns=["condition", "case_id", "f1", "halluc"])


def test_improved_and_worsened_per_item_against_turn_0():
    per_sample = frame([
        # turn 0                          turn 1
        ("s", "a", 0.5, 0.2), ("s#turn1", "a", 0.75, 0.0),  # f1 up, halluc down: both better
        ("s", "b", 0.5, 0.0), ("s#turn1", "b", 0.25, 0.5),  # both worse
        ("s", "c", 0.5, 0.1), ("s#turn1", "c", 0.5, 0.1),  # unchanged
        # d: two samples at turn 0 (means 0.5, 0.3), one at turn 1: f1 same, halluc worse
        ("s", "d", 0.25, 0.2), ("s", "d", 0.75, 0.4), ("s#turn1", "d", 0.5, 0.5),
        ("s", "e", 0.5, float("nan")),  # e has no turn 1: not compared
        ("other", "a", 1.0, 0.0),  # another base condition, no later turn: no rows
    ])
    rows = change_rows(per_sample, {"f1": False, "halluc": True})
    assert list(rows) == ["s#turn1"]
    got = {r["metric"]: (r["value"], r["n"]) for r in rows["s#turn1"]}
    # f1: a better, b worse, c and d equal (d: mean(0.25, 0.75) = 0.5) -> 1 / 1 of 4
    # halluc (lower is better): a better, b worse (0 -> 0.5), d worse (0.3 -> 0.5) -> 1 / 2 of 4
    assert got == {"f1:improved": (1, 4), "f1:worsened": (1, 4),
                   "halluc:improved": (1, 4), "halluc:worsened": (2, 4)}


def test_no_turns_no_rows():
    assert change_rows(frame([("s", "a", 0.5, 0.1)]), {"f1": False}) == {}
    assert turn_rows(frame([("s", "a", 0.5, 0.1)]), [{"condition": "s"}], {"f1": False}) == {}


def test_follow_ups_counted_from_records():
    records = [{"condition": "s", "turn": 0, "refine_status": "answered"}] * 3 + [
        {"condition": "s#turn1", "turn": 1, "refine_status": "revised"},
        {"condition": "s#turn1", "turn": 1, "refine_status": "revised"},
        {"condition": "s#turn1", "turn": 1, "refine_status": "stood"},
    ]
    assert followup_rows(records) == {"s#turn1": [
        {"metric": "followups_sent", "value": 2, "n": 3},
        {"metric": "replies_stood", "value": 1, "n": 3}]}
