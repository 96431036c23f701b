"""Property: any bring-your-own prediction file either validates or fails in one line.

Hypothesis writes abdev CSVs and gating JSONL files of random shape: missing,
extra and duplicated columns, duplicated ids, text/empty/non-finite cells,
other encodings and delimiters, deep nesting. Whatever it writes, validation
ends with exit 0 or one error line naming the file: never a traceback, never a
half-written output, and never a changed result for another model.
(Issue 14: "a property-based test".)
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import string
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scievals.abdev.data import DEMO_CSV
from scievals.cli import main
from scievals.common.errors import ScievalsError

FUZZ = settings(
    max_examples=60, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
ABDEV_COLUMNS = ["antibody_name", "HIC", "Tm2", "Titer", "PR_CHO", "AC-SINS_pH7.4",
                 "hierarchical_cluster_IgG_isotype_stratified_fold", "notes"]
DEMO_NAMES = pd.read_csv(DEMO_CSV)["antibody_name"].tolist()
ENCODINGS = ["utf-8", "utf-8-sig", "latin-1", "utf-16"]
NON_FINITE = ["inf", "-inf", "Infinity", "-Infinity"]

text = st.text(alphabet=string.ascii_letters + string.digits + " ,;\"'\u00e9\u2028\n", max_size=8)
cell = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-10**6, 10**6).map(str),
    st.sampled_from(["", "nan", "NA", "null", *NON_FINITE]),
    text,
)


PROPERTIES = ["HIC", "Tm2", "Titer", "PR_CHO", "AC-SINS_pH7.4"]


@st.composite
def abdev_files(draw, non_finite: bool = False) -> bytes:
    """A valid prediction file for the demo truth, then a few random mutations
    (with ``non_finite``, first one inf/-inf prediction)."""
    import csv

    columns = ["antibody_name", *PROPERTIES]
    rows = [[name, *(repr(float(i * 7 % 13 + j)) for j in range(5))]
            for i, name in enumerate(DEMO_NAMES)]
    if non_finite:
        row, col = draw(st.integers(0, len(rows) - 1)), draw(st.integers(1, len(PROPERTIES)))
        rows[row][col] = draw(st.sampled_from(NON_FINITE))
    for _ in range(draw(st.integers(0, 3))):
        action = draw(st.sampled_from(["cell"] * 6 + ["drop_col", "add_col", "dup_row",
                                                      "drop_rows", "rename"]))
        if action == "cell" and rows:
            row, col = draw(st.integers(0, len(rows) - 1)), draw(st.integers(0, len(columns) - 1))
            rows[row][col] = draw(cell)
        elif action == "drop_col" and columns:
            col = draw(st.integers(0, len(columns) - 1))
            del columns[col]
            rows = [r[:col] + r[col + 1:] for r in rows]
        elif action == "add_col":
            columns.append(draw(st.sampled_from(ABDEV_COLUMNS)))
            rows = [[*r, draw(cell)] for r in rows]
        elif action == "dup_row" and rows:
            rows.append(list(draw(st.sampled_from(rows))))
        elif action == "drop_rows":
            rows = rows[: draw(st.integers(0, len(rows)))]
        elif action == "rename" and rows and "antibody_name" in columns:
            rows[draw(st.integers(0, len(rows) - 1))][columns.index("antibody_name")] = draw(text)
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=draw(st.sampled_from([","] * 6 + [";", "\t"])))
    writer.writerow(columns)
    writer.writerows(rows)
    encoding = draw(st.sampled_from(["utf-8"] * 5 + ENCODINGS))
    data = buffer.getvalue().encode(encoding, errors="replace")
    if draw(st.integers(0, 9)) == 0:  # sometimes cut mid-way, with junk bytes
        data = data[: draw(st.integers(0, len(data)))] + draw(st.binary(max_size=4))
    return data


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@FUZZ
@given(case=abdev_files())
def test_abdev_validate_any_file_valid_or_one_error_naming_it(tmp_path, case):
    data = case
    path = tmp_path / "fuzz.csv"
    path.write_bytes(data)
    code, out, err = _run(["abdev", "validate", "--pred", str(path), "--truth", str(DEMO_CSV)])
    assert code in (0, 1)
    if code == 1:
        first = (err or out).splitlines()[0]
        assert str(path) in first, (out, err)
        if err:  # a ScievalsError: exactly one line
            assert err.count("\n") == 1 and err.startswith("error: ")


@FUZZ
@given(case=abdev_files(non_finite=True))
def test_abdev_non_finite_prediction_is_never_valid(tmp_path, case):
    """Item 4 of issue 14 (abdev-perf team): -inf used to pass as valid."""
    path = tmp_path / "fuzz.csv"
    path.write_bytes(case)
    code, out, _ = _run(["abdev", "validate", "--pred", str(path), "--truth", str(DEMO_CSV)])
    if code == 0:  # then the inf cell did not survive the mutations as a prediction
        frame = pd.read_csv(path, sep=None, engine="python")
        for column in set(frame.columns) & set(PROPERTIES):
            values = pd.to_numeric(frame[column], errors="coerce")
            assert not values.isin([math.inf, -math.inf]).any(), f"{column}: {out}"


# --- gating ---------------------------------------------------------------------------------


def _tree(depth: int, fanout) -> dict:
    node = {"name": "leaf"}
    for level in range(depth):
        node = {"name": f"g{level}", "children": [node] * fanout}
    return node


def _deep_line(case_id: str, depth: int) -> str:
    """A prediction nested ``depth`` levels (written by hand: json.dumps would recurse)."""
    tree = '{"name": "g", "children": [' * depth + '{"name": "leaf"}' + "]}" * depth
    return f'{{"case_id": {json.dumps(case_id)}, "hierarchy": {tree}}}'


json_scalar = st.one_of(st.none(), st.booleans(), st.integers(), text,
                        st.floats(allow_nan=True, allow_infinity=True))
json_value = st.recursive(
    json_scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(["name", "children", "markers", "x"]),
                                            inner, max_size=4)),
    max_leaves=20,
)


@st.composite
def gating_files(draw, case_ids: list[str]) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["hierarchy", "deep", "text", "junk", "value"]))
        record: dict = {}
        if draw(st.integers(0, 9)):
            record["case_id"] = draw(st.one_of(st.sampled_from(case_ids), text, st.integers()))
        if kind == "hierarchy":
            record["hierarchy"] = draw(json_value)
        elif kind == "deep":  # the nesting that used to raise a raw RecursionError
            lines.append(_deep_line(draw(st.sampled_from(case_ids)),
                                    draw(st.sampled_from([3, 200, 900, 10_000]))))
            continue
        elif kind == "text":
            record["raw_text"] = draw(text)
        elif kind == "value":
            lines.append(json.dumps(draw(json_value)))
            continue
        else:
            lines.append(draw(text))
            continue
        lines.append(json.dumps(record))
    if lines and draw(st.booleans()):
        lines.append(draw(st.sampled_from(lines)))  # a duplicated line
    encoding = draw(st.sampled_from(ENCODINGS))
    return "\n".join(lines).encode(encoding, errors="replace")


@pytest.fixture(scope="module")
def gating_cases(tmp_path_factory):
    from scievals.gating.cases import read_cases
    from scievals.gating.curate import build_cases
    from scievals.gating.paths import OMIP_VERIFIED_DIR

    tmp = tmp_path_factory.mktemp("cases")
    build_cases([OMIP_VERIFIED_DIR], None, tmp / "cases.jsonl", tmp / "curation.json")
    ids = [c["test_case_id"] for c in read_cases(tmp / "cases.jsonl")]
    return tmp / "cases.jsonl", ids


@pytest.fixture(scope="module")
def baseline_scored(gating_cases, tmp_path_factory):
    """Another model's predictions and scores, which no import may change."""
    from scievals.gating import predict

    cases, _ = gating_cases
    tmp = tmp_path_factory.mktemp("baseline")
    config = {"models": {"marker_baseline": {"provider": "baseline"}}}
    predict.run(cases, "marker_baseline", config, tmp / "marker_baseline.jsonl", tmp / "u.json")
    return tmp / "marker_baseline.jsonl"


def _import(user: Path, cases: Path, out: Path):
    from scievals.gating.predict import import_predictions

    return import_predictions(user, cases, "fuzz", out)


@FUZZ
@given(data=st.data())
def test_gating_import_any_file_valid_or_one_error_naming_it(
    tmp_path, gating_cases, baseline_scored, data
):
    cases, ids = gating_cases
    user = tmp_path / "fuzz.jsonl"
    user.write_bytes(data.draw(gating_files(ids)))
    out = baseline_scored.parent / "fuzz.jsonl"
    out.unlink(missing_ok=True)
    before = baseline_scored.read_bytes()
    try:
        records = _import(user, cases, out)
    except ScievalsError as exc:
        line = exc.one_line()
        assert str(user) in line and "\n" not in line
        assert not out.exists()  # nothing half-written
    else:
        assert out.exists() and len(records) >= 1
    assert baseline_scored.read_bytes() == before


@FUZZ
@given(data=st.data())
def test_gating_import_refuses_duplicate_cases(tmp_path, gating_cases, data):
    """Item 2 of issue 14 (gating-metrics team): duplicate lines used to be averaged."""
    cases, ids = gating_cases
    case_id = data.draw(st.sampled_from(ids))
    line = json.dumps({"case_id": case_id, "hierarchy": _tree(data.draw(st.integers(1, 4)), 2)})
    user = tmp_path / "dup.jsonl"
    user.write_text(f"{line}\n{line}\n", encoding="utf-8")
    with pytest.raises(ScievalsError) as info:
        _import(user, cases, tmp_path / "out.jsonl")
    assert str(user) in info.value.one_line()
