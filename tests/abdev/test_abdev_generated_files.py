"""Generated bring-your-own abdev files: scored, or refused in one line naming the file.

Random shapes, column names, cell types, duplicates, non-finite numbers and
encodings go through the score job's entry point (``score_to_tables``); any
exception other than one :class:`ScievalsError` (a traceback for the user) fails.
"""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from scievals.abdev.constants import DEFAULT_FOLD_COL, PROPERTY_LIST
from scievals.abdev.data import DEMO_CSV, fetch_gdpa1
from scievals.abdev.score import score_to_tables
from scievals.common.errors import ScievalsError

NAMES = pd.read_csv(DEMO_CSV, usecols=["antibody_name"])["antibody_name"].tolist()

cells = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-10**6, 10**6).map(str),
    st.sampled_from(["", "NaN", "inf", "-inf", "n/a", "1e400", "True", "1,5", '"2.5"', " 3 "]),
    st.text(max_size=6),
)
columns = st.lists(
    st.one_of(st.sampled_from(PROPERTY_LIST + ["antibody_name", DEFAULT_FOLD_COL, "hic", "HIC "]), st.text(max_size=5)),
    min_size=1, max_size=7,
)


@st.composite
def prediction_files(draw) -> bytes:
    header = draw(columns)
    n_rows = draw(st.integers(0, 60))
    names = st.one_of(st.sampled_from(NAMES), st.text(max_size=8))
    lines = [",".join(header)]
    for _ in range(n_rows):
        row = [draw(names) if col == "antibody_name" else draw(cells) for col in header]
        lines.append(",".join(row))
    text = "\n".join(lines) + "\n"
    encoding = draw(st.sampled_from(["utf-8", "utf-16", "latin-1"]))
    return text.encode(encoding, errors="replace")


@pytest.fixture(scope="module")
def demo_source(tmp_path_factory):
    folder = tmp_path_factory.mktemp("abdev_source")
    fetch_gdpa1({"source": "demo"}, folder / "GDPa1.csv", folder / "heldout.csv", folder / "source.json")
    return folder


def well_formed_file(draw_rows: int) -> bytes:
    """A valid file: every demo antibody, noisy copies of the truth (scores must come out)."""
    truth = pd.read_csv(DEMO_CSV)
    frame = truth[["antibody_name"] + PROPERTY_LIST].head(draw_rows)
    return frame.to_csv(index=False).encode()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.one_of(prediction_files(), st.integers(60, 246).map(well_formed_file), st.binary(max_size=200)))
def test_a_generated_file_is_scored_or_refused_in_one_line(demo_source, tmp_path_factory, content):
    work = tmp_path_factory.mktemp("generated")
    pred = work / "model.csv"
    pred.write_bytes(content)
    out, ref = work / "scores.csv", work / "reference.csv"
    try:
        table = score_to_tables(
            pred, demo_source / "GDPa1.csv", demo_source / "source.json", "model", DEFAULT_FOLD_COL, 5,
            {"n_resamples": 20, "seed": 0}, "h", out, ref,
        )
    except ScievalsError as exc:
        event("refused")
        line = exc.one_line()
        assert str(pred) in line and "\n" not in line, line
        assert not out.exists() and not ref.exists()  # nothing half-written
    else:
        event("scored")
        assert out.exists() and ref.exists() and len(table) % 21 == 0


def test_perfect_predictions_score_perfectly(demo_source, tmp_path):
    # The truth as its own prediction: Spearman 1 and top-10% recall 1 in every row (argsort
    # orders two identical arrays identically, ties included).
    pred = tmp_path / "perfect.csv"
    pred.write_bytes(well_formed_file(246))
    table = score_to_tables(
        pred, demo_source / "GDPa1.csv", demo_source / "source.json", "perfect", DEFAULT_FOLD_COL, 5,
        {"n_resamples": 20, "seed": 0}, "h", tmp_path / "s.csv", tmp_path / "r.csv",
    )
    rho = table[table["metric"].str.endswith(":spearman")]["value"]
    recall = table[table["metric"].str.endswith(":top_10_recall")]["value"]
    assert len(rho) == len(recall) == 5 * 7
    assert rho.tolist() == pytest.approx([1.0] * 35, abs=1e-12)  # np.corrcoef rounds in the last bit
    assert (recall == 1.0).all()
