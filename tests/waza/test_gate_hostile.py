"""``waza gate`` on hostile thresholds and values (issue 30, item 5): NaN compares false
with everything, so ``--max-regression-pct nan`` or a current ``success_rate: NaN`` let a
50-point regression pass with exit 0 on main; "abc" or null were a traceback with exit 1
(the regression code) and a bad ``--golden-must-pass`` exited 2 (the golden code). Each is
now one line and exit 3, the documented config-error code."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scievals.cli import main
from scievals.waza import gate


def _results(rate, tasks=(("a", "passed"), ("b", "failed"))) -> dict:
    return {"skill": "s", "eval_name": "s", "schemaVersion": "1.5",
            "tasks": [{"test_id": i, "status": st_, "runs": []} for i, st_ in tasks],
            "summary": {"success_rate": rate}}


def _files(tmp: Path, base, cur) -> list[str]:
    paths = []
    for name, data in (("base.json", base), ("cur.json", cur)):
        # json.dumps writes NaN/Infinity as waza's Go would never, but a hand-edited
        # or other-tool file can hold them; read_json reads them as floats
        (tmp / name).write_text(data if isinstance(data, str) else json.dumps(data))
        paths.append(str(tmp / name))
    return ["waza", "gate", "--baseline", paths[0], "--current", paths[1]]


@pytest.mark.parametrize("pct", ["nan", "NaN", "inf", "-inf", "abc", "-1", ""])
def test_bad_threshold_is_exit_3(tmp_path, capsys, pct):
    # the reference regression: 1.0 -> 0.5 is 50 percentage points
    args = _files(tmp_path, _results(1.0), _results(0.5))
    # "=" form: argparse would read a bare "-inf" as an option
    assert main([*args, f"--max-regression-pct={pct}"]) == gate.EXIT_CONFIG
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --max-regression-pct")


def test_a_50_point_regression_fails_with_a_finite_threshold(tmp_path, capsys):
    args = _files(tmp_path, _results(1.0), _results(0.5))
    assert main([*args, "--max-regression-pct", "49.9"]) == gate.EXIT_REGRESSION
    assert main([*args, "--max-regression-pct", "50"]) == gate.EXIT_PASS  # 50 > 50 is false


@pytest.mark.parametrize("value", ["NaN", "Infinity", '"abc"', "null", "true", "1.5", "-0.1",
                                   "[0.5]"])
def test_bad_current_success_rate_is_exit_3(tmp_path, capsys, value):
    text = json.dumps(_results(0.0)).replace('"success_rate": 0.0', f'"success_rate": {value}')
    args = _files(tmp_path, _results(1.0), text)
    assert main(args) == gate.EXIT_CONFIG
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cur.json: summary.success_rate" in err[0]
    assert "Traceback" not in err[0]


def test_summary_not_an_object_is_exit_3(tmp_path, capsys):
    text = json.dumps({**_results(1.0), "summary": "x"})
    assert main(_files(tmp_path, _results(1.0), text)) == gate.EXIT_CONFIG


@pytest.mark.parametrize("word", ["maybe", "", "2"])
def test_bad_golden_must_pass_is_exit_3(tmp_path, capsys, word):
    args = _files(tmp_path, _results(1.0), _results(1.0))
    assert main([*args, f"--golden-must-pass={word}"]) == gate.EXIT_CONFIG
    assert "--golden-must-pass" in capsys.readouterr().err


def test_golden_must_pass_words_still_work(tmp_path, capsys):
    golden = _results(0.5)
    golden["tasks"][1]["golden"] = True  # task b is golden and failed
    args = _files(tmp_path, golden, golden)
    assert main(args) == gate.EXIT_GOLDEN
    assert main([*args, "--golden-must-pass", "false"]) == gate.EXIT_PASS
    assert main([*args, "--golden-must-pass", "No"]) == gate.EXIT_PASS


RATE = st.floats(0, 1, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(base=RATE, cur=RATE, pct=st.floats(0, 200, allow_nan=False))
def test_gate_verdict_is_the_documented_rule(base, cur, pct):
    # the rule of docs/waza.md: regression = max(0, (base - cur) * 100) pp; exit 1 when
    # above the threshold, else 0 (no golden tasks, no task-set policy)
    report = gate.gate(_results(base), _results(cur), gate.GateOptions(pct))
    expected = max(0.0, (base - cur) * 100)
    assert report["regression_pct"] == pytest.approx(expected)
    assert report["exit_code"] == (1 if expected > pct else 0)
    assert report["exit_code"] == 0 or cur < base


BAD = st.one_of(st.just(math.nan), st.just(math.inf), st.just(-math.inf), st.none(),
                st.text(max_size=5), st.booleans(), st.floats(1.0001, 1e9),
                st.floats(-1e9, -1e-9))


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=BAD, pct=st.one_of(st.just("nan"), st.just("inf"), st.just("5")))
def test_no_bad_value_or_threshold_ever_passes(tmp_path, capsys, value, pct):
    args = _files(tmp_path, _results(1.0), json.dumps(_results(0.0)).replace(
        '"success_rate": 0.0', f'"success_rate": {json.dumps(value)}'))
    assert main([*args, "--max-regression-pct", pct]) == gate.EXIT_CONFIG
    capsys.readouterr()
