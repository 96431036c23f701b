"""Lone surrogates and NUL in own gating files are refused at import (issue 19, item 16).

Before, import accepted them and the score step died writing its tables and review
(UnicodeEncodeError traceback). JSON allows both as escapes (``"\\ud800"``, ``"\\u0000"``).
"""

from __future__ import annotations

import json

import pytest
from scievals.common.errors import ScievalsError
from scievals.gating import predict as P
from scievals.gating.curate import build_cases
from scievals.gating.paths import OMIP_VERIFIED_DIR

TREE = {"name": "All Events", "children": [{"name": "Singlets", "children": [
    {"name": "Live cells"}]}]}


@pytest.fixture(scope="module")
def cases_jsonl(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cases")
    build_cases([OMIP_VERIFIED_DIR], None, tmp / "cases.jsonl", tmp / "curation.json")
    return tmp / "cases.jsonl"


@pytest.mark.parametrize(("second_line", "where", "problem"), [
    ('{"case_id": "OMIP-022", "raw_text": "All Events > T cells \\ud83d"}',
     "['raw_text']", "text holds a lone surrogate (\\ud83d), not valid Unicode"),
    ('{"case_id": "OMIP-022", "hierarchy": {"name": "All Events", "children": '
     '[{"name": "CD3\\u0000"}]}}',
     "['hierarchy']['children'][0]['name']", "text holds a NUL character (\\u0000)"),
])
def test_own_file_with_unwritable_text_is_one_error(cases_jsonl, tmp_path, second_line, where,
                                                    problem):
    user = tmp_path / "mine.jsonl"
    user.write_text(json.dumps({"case_id": "OMIP-008", "hierarchy": TREE}) + "\n"
                    + second_line + "\n", encoding="utf-8")
    with pytest.raises(ScievalsError) as err:
        P.import_predictions(user, cases_jsonl, "mine", tmp_path / "out.jsonl")
    assert (err.value.where, err.value.problem) == (f"{user}:2{where}", problem)
    assert not (tmp_path / "out.jsonl").exists()


def test_a_proper_surrogate_pair_is_imported(cases_jsonl, tmp_path):
    user = tmp_path / "mine.jsonl"
    user.write_text('{"case_id": "OMIP-008", "raw_text": "All Events > T cells \\ud83d\\ude00"}\n',
                    encoding="utf-8")
    (record,) = P.import_predictions(user, cases_jsonl, "mine", tmp_path / "out.jsonl")
    assert record["raw_text"].endswith("\U0001F600")
