"""Property: hostile own files of abdev, gating and autogkb end in one line or a correct score.

Hypothesis starts from a file whose right answer is known and applies mutations of the kinds
issue 19 found (renamed or repeated columns, too few rows per fold, misspelt keys, junk gate
names, degenerate replies, numbers/lists/objects/NaN in text fields). The generator records
which mutations make the file unusable, so the expected outcome comes from the test, not from
the code under test: an unusable file gives one ScievalsError line naming the file (and the
article or line) and a non-zero exit; a usable one imports and scores correctly (a perfect
abdev prediction keeps Spearman 1 in every fold; every usable autogkb article keeps its
annotations). Never a traceback, and parsing stays fast whatever the reply.
"""

from __future__ import annotations

import contextlib
import io
import json
import time

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scievals.abdev.constants import DEFAULT_FOLD_COL
from scievals.abdev.data import DEMO_CSV
from scievals.abdev.score import merge, read_inputs
from scievals.abdev.metrics import MIN_ROWS, reference_rows
from scievals.cli import main
from scievals.common.errors import ScievalsError

FUZZ = settings(
    max_examples=40, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
FOLD = DEFAULT_FOLD_COL
TRUTH = pd.read_csv(DEMO_CSV)


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


# --- abdev -----------------------------------------------------------------------------------

# Columns the test knows are not abdev's (near misses of HIC and others) and that are.
UNKNOWN_COLUMNS = ["HIC_score", "hic", "HIC ", "pred_HIC", "my_notes", "Tm_2"]
TRUTH_COLUMNS = ["Purity", "hc_subtype", "vh_protein_sequence"]


@st.composite
def abdev_case(draw):
    """(frame, header, expected_ok): a perfect HIC prediction (the truth's own values), a
    subset of its rows and some extra columns."""
    frame = TRUTH[["antibody_name", FOLD, "HIC"]].copy()
    keep_folds = draw(st.sets(st.sampled_from(sorted(TRUTH[FOLD].unique())), min_size=1))
    per_fold = draw(st.sampled_from([3, 9, 10, 12, 60]))
    frame = frame[frame[FOLD].isin(keep_folds)].groupby(FOLD, group_keys=False).head(per_fold)
    header = list(frame.columns)
    bad = False
    for column in draw(st.lists(st.sampled_from(UNKNOWN_COLUMNS + TRUTH_COLUMNS), max_size=2,
                                unique=True)):
        frame[f"extra{len(header)}"] = 1.0
        header.append(column)
        bad = bad or column in UNKNOWN_COLUMNS
    if draw(st.integers(0, 4)) == 0:  # HIC twice, the second negated (the probe)
        frame["HIC_twice"] = -frame["HIC"]
        header.append("HIC")
        bad = True
    # Scorable antibodies per truth fold: a prediction (here: every kept row with a measured
    # HIC) in the fold; cross-validation (what validate checks) needs MIN_ROWS in every fold.
    measured = frame[frame["HIC"].notna()]
    counts = [int((measured[FOLD] == f).sum()) for f in sorted(TRUTH[FOLD].unique())]
    enough = min(counts) >= MIN_ROWS and len(measured) >= MIN_ROWS
    return frame, header, (not bad) and enough


@FUZZ
@given(case=abdev_case())
def test_abdev_own_file_one_line_or_a_correct_score(tmp_path, case):
    frame, header, expected_ok = case
    path = tmp_path / "own.csv"
    frame.to_csv(path, index=False, header=header)
    code, out, err = _run(["abdev", "validate", "--pred", str(path), "--truth", str(DEMO_CSV)])
    assert "Traceback" not in out + err
    assert code == (0 if expected_ok else 1), out
    preds, truth, report = read_inputs(path, DEMO_CSV, FOLD)
    assert report.ok == expected_ok  # score's validation agrees with validate's
    if not expected_ok:
        return
    merged, properties = merge(preds, truth, path, DEMO_CSV, FOLD)
    rows = reference_rows(merged, properties, "own", "GDPa1_cross_validation", FOLD, 5)
    # The prediction is the truth itself: Spearman 1 in every fold, aggregated and average.
    assert {r["assay"] for r in rows} == {"HIC"}
    assert all(r["spearman"] == pytest.approx(1.0) for r in rows)


# --- gating ----------------------------------------------------------------------------------

TREE = {"name": "All Events", "children": [{"name": "Singlets", "children": [
    {"name": "Live cells", "children": [{"name": "CD3+ T cells"}]}]}]}
JUNK_NAMES = ["", "  ", 5, 2.5, None, True, [], ["Live"], {"x": 1}]
BAD_KEYS = ["id", "caseid", "hierachy", "rawtext", "zzz"]
DEGENERATE = ["{", "[", "{[", '{"', "```json\n{", " "]


@st.composite
def gating_line(draw, case_id: str):
    """(line, bad): one own prediction line and whether it must be refused."""
    kind = draw(st.sampled_from(["tree", "junk_name", "bad_key", "reply", "degenerate"]))
    if kind == "tree":
        return {"case_id": case_id, "hierarchy": TREE}, False
    if kind == "junk_name":
        tree = json.loads(json.dumps(TREE))
        tree["children"][0]["children"][0]["name"] = draw(st.sampled_from(JUNK_NAMES))
        return {"case_id": case_id, "hierarchy": tree}, True
    if kind == "bad_key":
        return {draw(st.sampled_from(BAD_KEYS)): case_id, "hierarchy": TREE}, True
    if kind == "reply":
        return {"case_id": case_id, "raw_text": "All Events > Singlets > Live cells"}, False
    unit = draw(st.sampled_from(DEGENERATE))
    size = draw(st.sampled_from([1, 4, 8, 16])) * 1024
    return {"case_id": case_id, "raw_text": "- A" + unit * (size // len(unit))}, False


@pytest.fixture(scope="module")
def gating_cases(tmp_path_factory):
    from scievals.gating.cases import read_cases
    from scievals.gating.curate import build_cases
    from scievals.gating.paths import OMIP_VERIFIED_DIR

    tmp = tmp_path_factory.mktemp("cases")
    build_cases([OMIP_VERIFIED_DIR], None, tmp / "cases.jsonl", tmp / "curation.json")
    return tmp / "cases.jsonl", [c["test_case_id"] for c in read_cases(tmp / "cases.jsonl")]


@FUZZ
@given(data=st.data())
def test_gating_own_file_one_line_or_clean_records(tmp_path, gating_cases, data):
    from scievals.gating.predict import import_predictions

    cases, ids = gating_cases
    chosen = data.draw(st.lists(st.sampled_from(ids), min_size=1, max_size=3, unique=True))
    lines = [data.draw(gating_line(case_id)) for case_id in chosen]
    user = tmp_path / "own.jsonl"
    user.write_text("".join(json.dumps(line) + "\n" for line, _ in lines))
    out = tmp_path / "out.jsonl"
    out.unlink(missing_ok=True)
    first_bad = next((i for i, (_, bad) in enumerate(lines, 1) if bad), None)
    started = time.monotonic()
    try:
        records = import_predictions(user, cases, "own", out)
    except ScievalsError as exc:
        message = exc.one_line()
        assert first_bad is not None, message
        assert message.startswith(f"{user}:{first_bad}: ") and "\n" not in message
        assert not out.exists()
    else:
        assert first_bad is None
        assert len(records) == len(lines)
        for record in records:  # parsed trees hold only real names
            if record["hierarchy"]:
                stack = [record["hierarchy"]]
                while stack:
                    node = stack.pop()
                    assert isinstance(node["name"], str) and node["name"].strip()
                    stack.extend(node["children"])
    assert time.monotonic() - started < 10  # three 8 KB degenerate replies took 110 s


# --- autogkb ---------------------------------------------------------------------------------

NOT_TEXT = [5, 2.5, True, ["a", "b"], {"x": 1}]
NOT_JSON = ["NaN", "Infinity", "-Infinity"]
# Spellings that are no accepted alias of the field (fields.KEY_ALIASES takes "Allele_s").
MISSPELT = {"Gene": "Gen", "Phenotype": "Phenotpye", "Alleles": "Alleels", "Drug(s)": "Drugz"}


@pytest.fixture(scope="module")
def autogkb_perfect(tmp_path_factory):
    from scievals.autogkb import curate
    from scievals.autogkb.data import load_articles
    from scievals.autogkb.metrics import FIELDS

    d = tmp_path_factory.mktemp("autogkb")
    curate.curate({"origin": "demo", "articles": []}, d, d / "cases.jsonl", d / "report.json",
                  d / "vocab.json")
    articles = load_articles()
    perfect = {c["case_id"]: [{f: a.get(f) for f in FIELDS} for a in articles[c["case_id"]]["var_pheno_ann"]]
               for c in curate.read_cases(d / "cases.jsonl")}
    return d / "cases.jsonl", perfect


@FUZZ
@given(data=st.data())
def test_autogkb_own_file_one_line_naming_the_article_or_imported_as_written(
    tmp_path, autogkb_perfect, data
):
    from scievals.autogkb.predict import import_predictions

    cases, perfect = autogkb_perfect
    own = json.loads(json.dumps(perfect))
    placeholders = {}
    bad_articles = set()
    for _ in range(data.draw(st.integers(0, 3))):
        pmcid = data.draw(st.sampled_from(sorted(own)))
        kind = data.draw(st.sampled_from(["drop", "not_text", "not_json", "misspelt"]))
        if kind == "drop":
            own.pop(pmcid)
            bad_articles.discard(pmcid)
            continue
        if pmcid not in own or not own[pmcid]:
            continue
        item = own[pmcid][data.draw(st.integers(0, len(own[pmcid]) - 1))]
        field = data.draw(st.sampled_from(sorted(MISSPELT)))
        if kind == "not_text":
            item[field] = data.draw(st.sampled_from(NOT_TEXT))
        elif kind == "not_json":
            token = f"@@{len(placeholders)}@@"
            placeholders[token] = data.draw(st.sampled_from(NOT_JSON))
            item[field] = token
        else:
            item[MISSPELT[field]] = item.pop(field, None)
        bad_articles.add(pmcid)
    text = json.dumps(own)
    for token, constant in placeholders.items():
        text = text.replace(json.dumps(token), constant)
    user = tmp_path / "own.json"
    user.write_text(text)
    out = tmp_path / "out.jsonl"
    out.unlink(missing_ok=True)
    try:
        records = import_predictions(user, cases, "own", out)
    except ScievalsError as exc:
        message = exc.one_line()
        assert bad_articles, message
        # the first bad article in file order (sorted PMCIDs) is the one named
        assert message.startswith(f"{user}: {min(bad_articles)}: ") and "\n" not in message
        assert not out.exists()
        code, out_text, err = _run(["autogkb", "validate", str(user), "--cases", str(cases)])
        assert code != 0 and "Traceback" not in out_text + err
    else:
        assert not bad_articles
        assert {r["case_id"] for r in records} == set(own)
        for record in records:  # what was written is what is scored
            assert record["parse_status"] == "ok"
            from scievals.autogkb.metrics import FIELDS
            assert [[a[f] for f in FIELDS] for a in record["annotations"]] == \
                   [[a.get(f) for f in FIELDS] for a in own[record["case_id"]]]
