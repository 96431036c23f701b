"""Bring-your-own and hand-given predictions: one depth limit, no duplicate lines."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scievals.cli import main
from scievals.common.errors import ScievalsError
from scievals.common.io import TOO_DEEP as JSON_TOO_DEEP
from scievals.common.io import write_jsonl
from scievals.gating import predict as P
from scievals.gating.curate import build_cases
from scievals.gating.parser import parse_prediction, parse_reply
from scievals.gating.paths import OMIP_VERIFIED_DIR
from scievals.gating.score import score_model
from scievals.gating.tree import MAX_DEPTH, TOO_DEEP, clean_tree, depth

TRUTH = str(OMIP_VERIFIED_DIR / "omip_008.json")
TREE = {"name": "All Events", "children": [{"name": "Singlets", "children": [
    {"name": "Live cells", "children": [{"name": "CD3+ T cells"}]}]}]}


def nested_json(levels: int) -> str:
    """A chain All Events > G0 > G1 > ... of ``levels`` edges, as JSON text.

    Built as text: json.dumps itself cannot write 10,000 levels.
    """
    return ('{"name": "All Events", "children": ['
            + "".join(f'{{"name": "G{i}", "children": [' for i in range(levels))
            + "]}" * levels + "]}")


@pytest.fixture(scope="module")
def cases_jsonl(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cases")
    build_cases([OMIP_VERIFIED_DIR], None, tmp / "cases.jsonl", tmp / "curation.json")
    return tmp / "cases.jsonl"


# --- depth (issue 14.8) ----------------------------------------------------------------------

def test_the_depth_limit_is_exact():
    at_limit = json.loads(nested_json(MAX_DEPTH))
    assert depth(clean_tree(at_limit)) == MAX_DEPTH
    assert parse_prediction(at_limit).ok
    over = parse_prediction(json.loads(nested_json(MAX_DEPTH + 1)))
    assert not over.ok and over.error == TOO_DEEP == "hierarchy nests deeper than 100 levels"


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 10_000])
def test_a_deep_reply_is_an_unparsed_prediction_not_a_crash(levels):
    # A model's reply: recorded as failed (scored 0), the run goes on.
    for text in (nested_json(levels), "```json\n" + nested_json(levels) + "\n```",
                 "\n".join("  " * i + f"- G{i}" for i in range(levels + 1))):
        parsed = parse_reply(text)
        assert not parsed.ok and parsed.error == TOO_DEEP


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 10_000])
def test_a_deep_bring_your_own_line_is_one_error(cases_jsonl, tmp_path, levels):
    user = tmp_path / "deep.jsonl"
    user.write_text(json.dumps({"case_id": "OMIP-022", "hierarchy": TREE}) + "\n"
                    + '{"case_id": "OMIP-008", "hierarchy": ' + nested_json(levels) + "}\n")
    with pytest.raises(ScievalsError) as err:
        P.import_predictions(user, cases_jsonl, "deep", tmp_path / "out.jsonl")
    assert err.value.one_line().startswith(f"{user}:2: {TOO_DEEP} (")
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 10_000])
def test_gating_score_refuses_a_deep_prediction(tmp_path, capsys, levels):
    pred = tmp_path / "pred.json"
    pred.write_text(nested_json(levels))
    assert main(["gating", "score", "--pred", str(pred), "--truth", TRUTH]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {pred}: {TOO_DEEP} (") and err.count("\n") == 1


def test_a_deep_test_case_is_one_error(tmp_path, capsys):
    case = json.loads((OMIP_VERIFIED_DIR / "omip_008.json").read_text())
    text = json.dumps({**case, "gating_hierarchy": {"root": "ROOT"}})
    bad = tmp_path / "case.json"
    for levels in (MAX_DEPTH + 1, 10_000):
        bad.write_text(text.replace('"ROOT"', nested_json(levels)))
        assert main(["gating", "score", "--pred", TRUTH, "--truth", str(bad)]) == 1
        err = capsys.readouterr().err
        # past Python's JSON parser limit the shared reader says so; below it the tree limit
        assert err.startswith(f"error: {bad}: ") and err.count("\n") == 1
        assert TOO_DEEP in err or JSON_TOO_DEEP in err


def test_score_refuses_a_deep_hand_written_record(cases_jsonl, tmp_path):
    preds = tmp_path / "m.jsonl"
    preds.write_text('{"case_id": "OMIP-008", "condition": "c", "model": "m", "hierarchy": '
                     + nested_json(10_000) + "}\n")
    with pytest.raises(ScievalsError, match=f"m.jsonl:1: {TOO_DEEP}"):
        score_model(cases_jsonl, preds, None, {"n_resamples": 10, "seed": 0},
                    tmp_path / "t.csv", tmp_path / "p.csv", tmp_path / "r.md")


# --- duplicate lines (issue 14.2) ------------------------------------------------------------

def test_duplicate_case_lines_are_refused_naming_the_lines(cases_jsonl, tmp_path):
    # Before: the two OMIP-008 lines were averaged and n still counted cases.
    user = tmp_path / "dup.jsonl"
    write_jsonl(user, [{"case_id": "OMIP-008", "hierarchy": TREE},
                       {"case_id": "OMIP-022", "hierarchy": TREE},
                       {"case_id": "OMIP-008", "raw_text": "All Events > Singlets > Live"},
                       {"case_id": "OMIP-022", "hierarchy": TREE, "condition": "other"}])
    with pytest.raises(ScievalsError) as err:
        P.import_predictions(user, cases_jsonl, "dup", tmp_path / "out.jsonl")
    assert err.value.one_line() == (
        f"{user}: duplicate predictions: case_id 'OMIP-008' (condition 'user', sample 0) on "
        "lines 1 and 3 (keep one line per case, condition and sample_index)")
    assert not (tmp_path / "out.jsonl").exists()


def test_repeated_samples_are_not_duplicates(cases_jsonl, tmp_path):
    user = tmp_path / "samples.jsonl"
    write_jsonl(user, [{"case_id": "OMIP-008", "hierarchy": TREE, "sample_index": 0},
                       {"case_id": "OMIP-008", "hierarchy": TREE, "sample_index": 1}])
    records = P.import_predictions(user, cases_jsonl, "s", tmp_path / "out.jsonl")
    assert [r["sample_index"] for r in records] == [0, 1]
    write_jsonl(user, [{"case_id": "OMIP-008", "hierarchy": TREE, "sample_index": "first"}])
    with pytest.raises(ScievalsError, match=r"samples.jsonl:1: sample_index 'first' is not"):
        P.import_predictions(user, cases_jsonl, "s", tmp_path / "out.jsonl")


def test_score_refuses_duplicate_records(cases_jsonl, tmp_path):
    preds = tmp_path / "m.jsonl"
    line = {"case_id": "OMIP-008", "condition": "c", "model": "m", "hierarchy": TREE}
    write_jsonl(preds, [line, {**line, "case_id": "OMIP-022"}, line])
    with pytest.raises(ScievalsError, match="on lines 1 and 3"):
        score_model(cases_jsonl, preds, None, {"n_resamples": 10, "seed": 0},
                    tmp_path / "t.csv", tmp_path / "p.csv", tmp_path / "r.md")


# --- any bring-your-own file: imported, or one error line naming the file ---------------------

_json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True),
                       st.text(max_size=12))
_json = st.recursive(_json_leaf, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(
        ["name", "children", "markers", "gate_name", "root", "x"]), inner, max_size=4)),
    max_leaves=12)
_line = st.fixed_dictionaries({}, optional={
    "case_id": st.one_of(st.sampled_from(["OMIP-008", "OMIP-022", "nope"]), _json),
    "hierarchy": st.one_of(st.just(TREE), _json),
    "raw_text": st.one_of(st.just("All Events > Singlets > Live"), _json),
    "condition": _json, "sample_index": _json})


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.one_of(_line, _json), max_size=4))
def test_any_bring_your_own_file_imports_or_fails_in_one_line(cases_jsonl, tmp_path, lines):
    user = tmp_path / "any.jsonl"
    user.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    try:
        records = P.import_predictions(user, cases_jsonl, "any", tmp_path / "out.jsonl")
    except ScievalsError as exc:
        assert exc.one_line().startswith(str(user)) and "\n" not in exc.one_line()
        return
    assert len(records) == len(lines)
    keys = [(r["case_id"], r["condition"], r["sample_index"]) for r in records]
    assert len(set(keys)) == len(keys)
