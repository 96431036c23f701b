"""Unknown keys and junk gate names in own gating files (issue 19, items 8 and 16).

Probes: a line with ``id`` instead of ``case_id`` said ``unknown case_id None``; gate names
``""``, numbers, lists and dicts were turned into text with ``str()`` and the tree counted as
parsed.
"""

from __future__ import annotations

import json

import pytest
from scievals.common.errors import ScievalsError
from scievals.gating import predict as P
from scievals.gating.curate import build_cases
from scievals.gating.paths import OMIP_VERIFIED_DIR

TREE = {"name": "All Events", "children": [{"name": "Singlets", "children": [
    {"name": "Live cells", "children": [{"name": "CD3+ T cells"}]}]}]}


@pytest.fixture(scope="module")
def cases_jsonl(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cases")
    build_cases([OMIP_VERIFIED_DIR], None, tmp / "cases.jsonl", tmp / "curation.json")
    return tmp / "cases.jsonl"


@pytest.fixture(scope="module")
def case_id(cases_jsonl):
    return json.loads(cases_jsonl.read_text().splitlines()[0])["test_case_id"]


def _import(tmp_path, cases_jsonl, *lines):
    user = tmp_path / "own.jsonl"
    user.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(ScievalsError) as caught:
        P.import_predictions(user, cases_jsonl, "own", tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()
    return caught.value.one_line().replace(str(user), "own.jsonl")


@pytest.mark.parametrize("key, hint", [("id", "case_id"), ("caseid", "case_id"),
                                       ("hierachy", "hierarchy"), ("Raw_Text", "raw_text")])
def test_a_misspelt_key_is_named_with_the_key_meant(tmp_path, cases_jsonl, case_id, key, hint):
    line = {"case_id": case_id, "hierarchy": TREE}
    line[key] = line.pop("case_id") if hint == "case_id" else line.pop(hint, TREE)
    message = _import(tmp_path, cases_jsonl, line)
    assert message.startswith(f"own.jsonl:1: unknown key(s) {key!r} (did you mean {hint!r}?)")


def test_an_unrelated_key_is_named_without_a_guess(tmp_path, cases_jsonl, case_id):
    message = _import(tmp_path, cases_jsonl, {"case_id": case_id, "hierarchy": TREE, "zzz": 1})
    assert message.startswith("own.jsonl:1: unknown key(s) 'zzz' (a prediction line's keys")


def test_a_record_written_by_the_workflow_imports_as_it_is(tmp_path, cases_jsonl, case_id):
    record = P._record(case_id, "m", "user", P.parse_prediction(TREE))
    user = tmp_path / "copy.jsonl"
    user.write_text(json.dumps(record) + "\n")
    records = P.import_predictions(user, cases_jsonl, "copy", tmp_path / "out.jsonl")
    assert records[0]["parse_status"] == "ok"


@pytest.mark.parametrize("bad", ["", "   ", 5, 1.5, True, None, ["Live"], {"x": 1}])
def test_junk_gate_names_are_refused(tmp_path, cases_jsonl, case_id, bad):
    tree = json.loads(json.dumps(TREE))
    tree["children"][0]["children"][0]["name"] = bad
    message = _import(tmp_path, cases_jsonl, {"case_id": case_id, "hierarchy": tree})
    assert message.startswith("own.jsonl:1: gate name(s) that are not non-empty text: "
                              f"root.children[0].children[0].name = {json.dumps(bad)}")


def test_a_node_without_a_name_is_still_all_events(tmp_path, cases_jsonl, case_id):
    # The reference's convention (a nameless node is "All Events") is kept.
    tree = {"children": TREE["children"]}
    user = tmp_path / "own.jsonl"
    user.write_text(json.dumps({"case_id": case_id, "hierarchy": tree}) + "\n")
    records = P.import_predictions(user, cases_jsonl, "own", tmp_path / "out.jsonl")
    assert records[0]["hierarchy"]["name"] == "All Events"
