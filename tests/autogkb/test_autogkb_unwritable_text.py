"""Lone surrogates and NUL in own autogkb files are refused at import and by ``validate``
(issue 19, item 16); before, the score step died writing them (UnicodeEncodeError)."""

from __future__ import annotations

import pytest
from scievals.autogkb import curate, predict
from scievals.common.errors import ScievalsError


@pytest.mark.parametrize(("escape", "problem"), [
    ("\\udfff", "text holds a lone surrogate (\\udfff), not valid Unicode"),
    ("\\u0000", "text holds a NUL character (\\u0000)"),
])
def test_own_file_with_unwritable_text_is_one_error(cases_jsonl, tmp_path, escape, problem):
    pmcid = curate.read_cases(cases_jsonl)[0]["case_id"]
    user = tmp_path / "mine.json"
    user.write_text(f'{{"{pmcid}": [{{"Gene": "CYP2C9", "Phenotype": "bleeding{escape}"}}]}}',
                    encoding="utf-8")
    with pytest.raises(ScievalsError) as err:
        predict.import_predictions(user, cases_jsonl, "mine", tmp_path / "out.jsonl")
    assert (err.value.where, err.value.problem) == (f"{user}['{pmcid}'][0]['Phenotype']",
                                                    problem)
    assert not (tmp_path / "out.jsonl").exists()
    # `autogkb validate` says the same line.
    assert predict.check_user_file(user, cases_jsonl) == ([err.value.one_line()], [])
