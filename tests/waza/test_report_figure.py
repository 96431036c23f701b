"""The waza report figure: suites become the colours, only the headline metrics are drawn."""

from __future__ import annotations

import pytest
from scievals.common.provenance import Provenance
from scievals.common.tables import result_rows, write_result_table
from scievals.waza.figures import suite_comparison, suite_frame


def _summary(tmp_path):
    frames = []
    for suite, score in (("code-explainer-demo", 0.9), ("grader-showcase-demo", 0.78)):
        prov = Provenance("waza", suite, "ab" * 32, "0123456789ab", "0.1.0", "abc")
        frames.append(result_rows(prov, "waza_mock", "", [
            {"metric": "pass_rate", "value": 1.0, "ci_low": 0.8, "ci_high": 1.0, "n": 4},
            {"metric": "weighted_score", "value": score, "n": 4},
            {"metric": "run_pass_rate", "value": 0.5, "n": 12}]))
    import pandas as pd

    path = tmp_path / "summary.csv"
    write_result_table(path, pd.concat(frames, ignore_index=True))
    return path


def test_suite_frame_and_png(tmp_path):
    from scievals.common.tables import read_result_table

    path = _summary(tmp_path)
    frame = suite_frame(read_result_table(path), str(path))
    assert list(frame["metric"].cat.categories) == ["pass_rate", "weighted_score"]
    assert list(frame["condition"].cat.categories) == ["code-explainer-demo",
                                                       "grader-showcase-demo"]
    assert len(frame) == 4  # run_pass_rate is not drawn
    out = tmp_path / "fig.png"
    suite_comparison({"summary": [str(path)]}, str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_no_headline_rows_is_an_error(tmp_path):
    from scievals.common.errors import ScievalsError
    from scievals.common.tables import read_result_table

    table = read_result_table(_summary(tmp_path))
    with pytest.raises(ScievalsError, match="score waza first"):
        suite_frame(table[table["metric"] == "run_pass_rate"], "summary.csv")
