"""A malformed own autogkb file stops its import in one line (issue 19, items 8 and 13).

Probes: an annotation with a number, list or dict in a text field turned its whole article
into a parse failure scored 0 (score 76.93 -> 71.87) at exit 0, the reason only in the
review; ``NaN`` and ``Infinity`` (not JSON) were accepted as the texts "nan"/"inf"; a
misspelt key was dropped.
"""

from __future__ import annotations

import json

import pytest
from scievals.autogkb import curate, predict
from scievals.autogkb.data import load_articles
from scievals.autogkb.metrics import FIELDS
from scievals.cli import main
from scievals.common.errors import ScievalsError


@pytest.fixture(scope="module")
def perfect(cases_jsonl) -> dict:
    """Every test article's own annotations, as a perfect own file would hold them."""
    articles = load_articles()
    return {c["case_id"]: [{f: a.get(f) for f in FIELDS} for a in articles[c["case_id"]]["var_pheno_ann"]]
            for c in curate.read_cases(cases_jsonl)}


def _refused(tmp_path, cases_jsonl, text: str) -> str:
    user = tmp_path / "own.json"
    user.write_text(text)
    with pytest.raises(ScievalsError) as caught:
        predict.import_predictions(user, cases_jsonl, "own", tmp_path / "own.jsonl")
    assert not (tmp_path / "own.jsonl").exists()
    return caught.value.one_line().replace(str(user), "own.json")


@pytest.mark.parametrize("value, shown", [
    (5, "a int (5)"), (2.5, "a float (2.5)"), (True, "a bool (true)"),
    (["a", "b"], 'a list (["a", "b"])'), ({"x": 1}, 'a dict ({"x": 1})'),
])
def test_a_non_text_value_names_file_article_and_field(tmp_path, cases_jsonl, perfect, value, shown):
    pmcid = sorted(perfect)[3]
    data = json.loads(json.dumps(perfect))
    data[pmcid][1]["Gene"] = value
    message = _refused(tmp_path, cases_jsonl, json.dumps(data))
    assert message.startswith(f"own.json: {pmcid}: item 1 field 'Gene': {shown}, not text")
    assert "\n" not in message


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(tmp_path, cases_jsonl, perfect, constant):
    pmcid = sorted(perfect)[0]
    data = json.loads(json.dumps(perfect))
    data[pmcid][0]["Alleles"] = "PLACEHOLDER"
    text = json.dumps(data).replace('"PLACEHOLDER"', constant)
    message = _refused(tmp_path, cases_jsonl, text)
    assert message.startswith(f"own.json: {pmcid}: item 0 field 'Alleles': {constant} is not JSON")


def test_a_misspelt_key_is_named_with_the_field_meant(tmp_path, cases_jsonl, perfect):
    pmcid = sorted(perfect)[2]
    data = json.loads(json.dumps(perfect))
    data[pmcid][0]["Phenotpye"] = data[pmcid][0].pop("Phenotype")
    message = _refused(tmp_path, cases_jsonl, json.dumps(data))
    assert message.startswith(f"own.json: {pmcid}: item 0: unknown key(s) 'Phenotpye' "
                              "(did you mean 'Phenotype'?)")


def test_known_spellings_and_nulls_still_import(tmp_path, cases_jsonl, perfect):
    pmcid = sorted(perfect)[0]
    data = json.loads(json.dumps(perfect))
    data[pmcid][0]["gene"] = data[pmcid][0].pop("Gene")  # an accepted spelling of 'Gene'
    data[pmcid][0]["Direction of effect"] = None
    user = tmp_path / "own.json"
    user.write_text(json.dumps(data))
    records = predict.import_predictions(user, cases_jsonl, "own", tmp_path / "own.jsonl")
    assert all(r["parse_status"] == "ok" for r in records) and len(records) == len(perfect)


def test_validate_lists_each_bad_article(tmp_path, cases_jsonl, perfect):
    data = json.loads(json.dumps(perfect))
    first, second = sorted(perfect)[:2]
    data[first][0]["Gene"] = 5
    data[second][0]["Drug(s)"] = ["a"]
    user = tmp_path / "own.json"
    user.write_text(json.dumps(data))
    problems, _warnings = predict.check_user_file(user, cases_jsonl)  # (errors, warnings)
    assert [p.split(":")[0] for p in problems] == [first, second]


@pytest.mark.parametrize("threshold", ["1.5", "-0.1", "nan"])
def test_score_threshold_outside_0_1_is_refused(tmp_path, threshold, capsys):
    # issue 19 item 17 (documented in docs/autogkb.md): one line, exit 2, nothing scored
    row = [{"Gene": "CYP2C19", "Drug(s)": "clopidogrel"}]
    (tmp_path / "p.json").write_text(json.dumps(row))
    (tmp_path / "t.json").write_text(json.dumps(row))
    code = main(["autogkb", "score", "--pred", str(tmp_path / "p.json"), "--truth",
                         str(tmp_path / "t.json"), "--threshold", threshold])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.strip() == f"error: --threshold {float(threshold)}: must be within 0..1"
