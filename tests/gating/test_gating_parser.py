"""Reply parser (fallback chain) and task-failure classification."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scievals.gating.parser import parse_prediction, parse_reply
from scievals.gating.task_failure import classify
from scievals.gating.tree import depth, names

TREE = {"name": "All Events", "markers": [], "children": [
    {"name": "Singlets", "markers": ["FSC-A", "FSC-H"], "children": [
        {"name": "Live", "markers": ["Viability"], "children": [
            {"name": "CD3+", "markers": ["CD3"], "children": []}]}]}]}


def _names(result):
    return names(result.hierarchy)


def test_fenced_json():
    result = parse_reply("Here it is:\n```json\n" + json.dumps(TREE) + "\n```\nThanks.")
    assert (result.status, result.method) == ("ok", "json_fence")
    assert _names(result) == ["All Events", "Singlets", "Live", "CD3+"]
    assert result.hierarchy["children"][0]["markers"] == ["FSC-A", "FSC-H"]


def test_unlabelled_fence():
    result = parse_reply("```\n" + json.dumps(TREE) + "\n```")
    assert result.method == "json_fence" and depth(result.hierarchy) == 3


def test_raw_json_with_trailing_junk():
    text = "Reasoning first {not a tree}. Final: " + json.dumps(TREE) + " -- end {broken"
    result = parse_reply(text)
    assert (result.status, result.method) == ("ok", "json_raw")
    assert _names(result)[-1] == "CD3+"


def test_broken_json_is_repaired():
    text = '{"name": "All Events", "children": [{"name": "Singlets", "children": [{"name": "Live",},],}'
    result = parse_reply(text)
    assert (result.status, result.method) == ("ok", "json_raw_repaired")
    assert _names(result) == ["All Events", "Singlets", "Live"]


def test_truncated_fence_is_repaired():
    text = '```json\n{"name": "All Events", "children": [{"name": "Singlets", "children": [{"name": "Live cells", "children": [{"name": "CD3+"'
    result = parse_reply(text)
    assert (result.status, result.method) == ("ok", "json_fence_repaired")
    assert _names(result) == ["All Events", "Singlets", "Live cells", "CD3+"]


def test_root_wrapper_and_missing_names():
    result = parse_reply(json.dumps({"root": {"gate_name": "Ungated", "children": [
        {"name": "Singlets", "children": [{"name": "Live"}]}]}}))
    assert _names(result) == ["Ungated", "Singlets", "Live"]


def test_markdown_list():
    text = ("Gating strategy:\n- All Events\n  - Singlets\n    - **Live cells**: viability dye negative\n"
            "      - CD3+ T cells\n        - CD4+\n        - CD8+\n      - CD19+ B cells\n")
    result = parse_reply(text)
    assert (result.status, result.method) == ("ok", "markdown_list")
    assert _names(result) == ["All Events", "Singlets", "Live cells", "CD3+ T cells", "CD4+",
                              "CD8+", "CD19+ B cells"]
    live = result.hierarchy["children"][0]["children"][0]
    assert [c["name"] for c in live["children"]] == ["CD3+ T cells", "CD19+ B cells"]


def test_indented_text_and_box_drawing():
    plain = parse_reply("All Events\n    Singlets\n        Live\n            CD3+\n")
    assert plain.method == "indented_text" and depth(plain.hierarchy) == 3
    boxed = parse_reply("All Events\n├── Singlets\n│   └── Live\n│       ├── CD3+\n│       └── CD19+\n")
    assert boxed.method == "indented_text"
    assert [c["name"] for c in boxed.hierarchy["children"][0]["children"][0]["children"]] == ["CD3+", "CD19+"]


def test_arrow_paths():
    result = parse_reply("All Events > Singlets > Live > CD3+ > CD4+\nAll Events > Singlets > Live > CD3+ > CD8+")
    assert result.method == "arrow_paths"
    assert _names(result) == ["All Events", "Singlets", "Live", "CD3+", "CD4+", "CD8+"]


def test_meta_terms_reject_only_whole_words():
    result = parse_reply("- All Events\n  - Adherent cells\n  - This would be debris\n  - Singlets\n")
    assert _names(result) == ["All Events", "Adherent cells", "Singlets"]


@pytest.mark.parametrize("text", ["", "   \n", None])
def test_empty_reply_fails(text):
    result = parse_reply(text)
    assert result.status == "failed" and result.error == "empty reply"


def test_json_tree_with_fewer_than_three_nodes_fails():
    result = parse_reply('```json\n{"name": "All Events", "children": [{"name": "Singlets"}]}\n```')
    assert result.status == "failed" and result.method == "json_fence"
    assert "2 node(s)" in result.error
    assert parse_prediction({"name": "A", "children": [{"name": "B"}]}).status == "failed"


def test_prose_without_a_hierarchy_fails():
    assert parse_reply("I cannot predict a gating strategy for this panel.").status == "failed"


def test_parse_prediction_accepts_objects():
    assert parse_prediction(TREE).method == "tree_object"
    assert parse_prediction({"gating_hierarchy": {"root": TREE}}).ok
    assert parse_prediction([TREE]).ok
    assert not parse_prediction({"foo": 1}).ok


@pytest.mark.parametrize("text, parsed, error, expected", [
    (None, False, "timeout", "error"),
    ("", False, None, "empty"),
    ("I cannot determine a gating strategy for this panel; it is impossible to predict.",
     False, None, "refusal"),
    ("Which markers are being used? What is the research question? Please clarify.", False, None,
     "meta_questions"),
    ("All Events > Singlets > Live > CD3+ T cells > CD4+ > CD8+, B cells, NK cells, monocytes",
     True, None, "none"),
    ("random words without any gates", False, None, "unparseable"),
])
def test_task_failure(text, parsed, error, expected):
    assert classify(text, parsed, error) == expected


_gate_names = st.sampled_from(["Singlets", "Live cells", "CD3+ T cells", "CD4+", "CD8+", "B cells",
                               "NK cells", "CD45RA+ CCR7+", "Monocytes", "Non-classical monocytes"])


def _subtrees(depth: int):
    if depth == 0:
        return st.builds(lambda n: {"name": n, "markers": [], "children": []}, _gate_names)
    return st.builds(lambda n, kids: {"name": n, "markers": [], "children": kids}, _gate_names,
                     st.lists(_subtrees(depth - 1), max_size=3))


def _markdown(tree: dict, level: int = 0) -> list[str]:
    lines = ["  " * level + "- " + tree["name"]]
    for child in tree["children"]:
        lines += _markdown(child, level + 1)
    return lines


@settings(max_examples=100, deadline=None)
@given(children=st.lists(_subtrees(2), min_size=2, max_size=4))
def test_round_trips(children):
    tree = {"name": "All Events", "markers": [], "children": children}
    assert parse_reply("Answer:\n" + json.dumps(tree) + "\nDone.").hierarchy == tree
    assert parse_reply("```json\n" + json.dumps(tree, indent=2) + "\n```").hierarchy == tree
    from_markdown = parse_reply("\n".join(_markdown(tree)))
    assert from_markdown.method == "markdown_list" and from_markdown.hierarchy == tree
