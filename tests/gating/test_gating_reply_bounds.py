"""Parsing a reply is bounded in time whatever its shape (issue 19, item 4).

The probe: a degenerate reply of repeated ``{`` (a repetition loop up to ``max_tokens``) took
the parser 18 s at 4 KB, 70 s at 16 KB and over 150 s at 200 KB (each of the first 50 ``{``
restarted a JSON repair whose cost grows with the nesting); three 8 KB own replies took
``gating_import`` 110 s. A long run of spaces in one line was quadratic in the list and
arrow parsers.
"""

from __future__ import annotations

import json
import time

import pytest
from scievals.gating import predict as P
from scievals.gating.curate import build_cases
from scievals.gating.parser import parse_reply
from scievals.gating.paths import OMIP_VERIFIED_DIR
from scievals.gating.tree import TOO_DEEP

KB = 1024
# A generous bound for a shared 2-core machine; each shape takes well under 0.5 s alone.
BOUND_S = 2.0


def _timed(text: str):
    started = time.monotonic()
    parsed = parse_reply(text)
    return parsed, time.monotonic() - started


@pytest.mark.parametrize("size", [4 * KB, 16 * KB, 200 * KB])
def test_repeated_open_brace_fails_fast(size):
    parsed, seconds = _timed("{" * size)
    assert not parsed.ok
    assert seconds < BOUND_S, f"{size} bytes of '{{' took {seconds:.1f} s"


@pytest.mark.parametrize("shape", [
    "[", "{[", '{"', '{"\\', '{"a": 1, ', "```json\n{", "{}",
])
def test_other_repetition_loops_fail_fast(shape):
    text = shape * (200 * KB // len(shape))
    parsed, seconds = _timed(text)
    assert not parsed.ok
    assert seconds < BOUND_S, f"{shape!r} x {len(text)} took {seconds:.1f} s"


@pytest.mark.parametrize("line", [
    "- a" + " " * 200 * KB + "b",  # the markdown item's trailing-space match
    "A" + " " * 200 * KB + "-> B",  # the arrow split's surrounding spaces
    "1." + " " * 200 * KB + "x",
])
def test_a_long_run_of_spaces_is_linear(line):
    parsed, seconds = _timed(line)
    assert not parsed.ok
    assert seconds < BOUND_S


def test_bounds_keep_real_replies_parsing():
    # A truncated JSON tree after prose still gets repaired, and list/arrow replies parse
    # as before: the limits only stop work no hierarchy needs.
    tree = {"name": "All Events", "children": [{"name": "Singlets", "children": [
        {"name": "Live", "children": [{"name": "T cells"}]}]}]}
    truncated = "Here it is: " + json.dumps(tree)[:-4]
    parsed = parse_reply(truncated)
    assert parsed.ok and parsed.method == "json_raw_repaired"
    assert parsed.hierarchy["children"][0]["children"][0]["name"] == "Live"
    arrows = parse_reply("All Events -> Singlets -> Live\nAll Events  >  Singlets > Dead")
    assert arrows.ok and arrows.method == "arrow_paths"
    singlets = arrows.hierarchy["children"][0]
    assert [c["name"] for c in singlets["children"]] == ["Live", "Dead"]
    listed = parse_reply("- All Events   \n  - Singlets\t \n    - Live cells  ")
    assert listed.ok and listed.method == "markdown_list"
    assert listed.hierarchy["children"][0]["children"][0]["name"] == "Live cells"


def test_a_closed_object_nested_too_deep_is_still_refused():
    deep = '{"name": "A", "children": [' + "{" * 300 + "}" * 300 + "]}"
    assert parse_reply(deep).error == TOO_DEEP


@pytest.fixture(scope="module")
def cases_jsonl(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cases")
    build_cases([OMIP_VERIFIED_DIR], None, tmp / "cases.jsonl", tmp / "curation.json")
    return tmp / "cases.jsonl"


def test_three_degenerate_own_replies_import_fast(cases_jsonl, tmp_path):
    case_ids = sorted(json.loads(line)["test_case_id"]
                      for line in cases_jsonl.read_text().splitlines())[:3]
    user = tmp_path / "loop.jsonl"
    user.write_text("".join(json.dumps({"case_id": c, "raw_text": "{" * 8 * KB}) + "\n"
                            for c in case_ids))
    started = time.monotonic()
    records = P.import_predictions(user, cases_jsonl, "loop", tmp_path / "out.jsonl")
    assert time.monotonic() - started < BOUND_S  # was 110 s
    # Each is an unparsed reply (scored as a failure), not a refused file.
    assert [r["parse_status"] for r in records] == ["failed"] * 3
