"""Issue 42's acceptance test for gating: a hand-made own file whose stated confidences are
the rates at which its gates are right gets the Brier score and ECE of hand arithmetic, with
intervals that hold them; the same gates with over-stated confidences get a worse ECE, and
the paired comparison says so."""

from __future__ import annotations

import pandas as pd
import pytest
from scievals.common.io import write_jsonl
from scievals.common.provenance import Provenance
from scievals.gating.predict import import_predictions
from scievals.gating.score import score_model
from scievals.stats.calibration_rows import per_case_with_calibration
from scievals.stats.comparisons import comparison_table

PROV = Provenance(benchmark="gating", dataset="hand-made", dataset_sha256="0" * 64,
                  config_hash="abc123def456", git_commit="testcommit")
BOOT = {"n_resamples": 1000, "seed": 3}
TRUTH = [f"Gate T{i}" for i in range(1, 9)]
# Six cases. Type A (cases 0-2): five truth gates stated at `high`, five invented gates at
# `low`. Type B (cases 3-5): three truth + two invented at `high`, two truth + three invented
# at `low`. Pooled: the high gates are right 24 / 30 = 0.8 of the time, the low ones
# 6 / 30 = 0.2: stating 0.8 and 0.2 is exactly calibrated.
RIGHT_HIGH = {"A": 5, "B": 3}
RIGHT_LOW = {"A": 0, "B": 2}


def _case(make_case, i):
    root = {"name": "All Events", "children": [
        {"name": "Singlets", "children": [{"name": name, "children": []} for name in TRUTH]}]}
    return make_case(f"case{i}", root, ["CD3", "CD4"])


def _prediction(i, high, low):
    kind = "A" if i < 3 else "B"
    truth = iter(TRUTH)
    invented = iter(f"Invented X{k}" for k in range(1, 11))
    gates = ([(next(truth), high) for _ in range(RIGHT_HIGH[kind])]
             + [(next(invented), high) for _ in range(5 - RIGHT_HIGH[kind])]
             + [(next(truth), low) for _ in range(RIGHT_LOW[kind])]
             + [(next(invented), low) for _ in range(5 - RIGHT_LOW[kind])])
    return {"case_id": f"case{i}", "hierarchy": {"name": "All Events", "children": [
        {"name": name, "confidence": conf, "children": []} for name, conf in gates]}}


@pytest.fixture(scope="module")
def scored(tmp_path_factory, make_case):
    tmp = tmp_path_factory.mktemp("calibration")
    cases = tmp / "cases.jsonl"
    write_jsonl(cases, [_case(make_case, i) for i in range(6)])
    out = {}
    for model, (high, low) in (("calibrated", (0.8, 0.2)), ("overstated", (0.95, 0.5))):
        own = tmp / f"{model}.own.jsonl"
        write_jsonl(own, [_prediction(i, high, low) for i in range(6)])
        pred = tmp / f"{model}.jsonl"
        import_predictions(own, cases, model, pred)
        paths = {k: tmp / f"{model}.{k}" for k in ("csv", "per_case.csv", "md")}
        score_model(cases, pred, PROV, BOOT, paths["csv"], paths["per_case.csv"], paths["md"],
                    model=model)
        out[model] = paths
    return out


def _row(paths, metric):
    table = pd.read_csv(paths["csv"]).set_index("metric")
    return table.loc[metric]


def test_calibrated_file_brier_and_ece_by_hand(scored):
    # Brier, per case of type A: 5 right at 0.8 -> 5 x 0.2^2 = 0.2; 5 wrong at 0.2 -> 0.2;
    # sum 0.4. Type B: 3 right at 0.8 -> 0.12, 2 wrong at 0.8 -> 2 x 0.64 = 1.28, 2 right at
    # 0.2 -> 1.28, 3 wrong at 0.2 -> 0.12; sum 2.8. (3 x 0.4 + 3 x 2.8) / 60 units = 0.16.
    # ECE: bin [0.8, 0.9) mean confidence 0.8, accuracy 0.8; bin [0.2, 0.3) 0.2 and 0.2: 0.
    brier, ece = _row(scored["calibrated"], "calibration_brier"), _row(
        scored["calibrated"], "calibration_ece")
    assert brier["value"] == pytest.approx(0.16) and brier["n"] == 60
    assert ece["value"] == pytest.approx(0.0, abs=1e-12)
    assert brier["ci_low"] <= 0.16 <= brier["ci_high"] and brier["ci_low"] < brier["ci_high"]
    assert ece["ci_low"] <= 0.0 <= ece["ci_high"]
    assert _row(scored["calibrated"], "confidence_coverage")["value"] == 1.0
    # the 30 gates stated at 0.8 hold 24 right ones; the 30 at 0.2 hold 6. AUROC: a right
    # gate outranks a wrong one unless both share a confidence (ties count 1/2):
    # pairs (right high, wrong low) 24 x 24 = 576 win; (right high, wrong high) 24 x 6 and
    # (right low, wrong low) 6 x 24 tie -> 144; (right low, wrong high) 6 x 6 = 36 lose.
    # (576 + 144) / (30 x 30) = 0.8.
    assert _row(scored["calibrated"], "calibration_auroc")["value"] == pytest.approx(0.8)
    # the 50 % most confident = the 30 high gates: precision 0.8; 80 % = 48 units: the 30
    # high ones and 18 of the low ones at their 0.2 accuracy -> (24 + 3.6) / 48 = 0.575
    assert _row(scored["calibrated"], "selective_precision@50")["value"] == pytest.approx(0.8)
    assert _row(scored["calibrated"], "selective_precision@80")["value"] == pytest.approx(0.575)


def test_overstated_confidences_worse_ece_paired(scored, tmp_path):
    # ECE: bin [0.9, 1.0] 0.95 vs accuracy 0.8 -> 0.15; bin [0.5, 0.6) 0.5 vs 0.2 -> 0.3;
    # each holds half the units: 0.5 x 0.15 + 0.5 x 0.3 = 0.225.
    # Brier: type A 5 x 0.05^2 + 5 x 0.5^2 = 1.2625; type B 3 x 0.0025 + 2 x 0.9025
    # + 5 x 0.25 = 3.0625; (3 x 1.2625 + 3 x 3.0625) / 60 = 0.21625.
    assert _row(scored["overstated"], "calibration_ece")["value"] == pytest.approx(0.225)
    assert _row(scored["overstated"], "calibration_brier")["value"] == pytest.approx(0.21625)
    models = ["calibrated", "overstated"]
    inputs = {"per_case": [scored[m]["per_case.csv"] for m in models],
              "table": [scored[m]["csv"] for m in models]}
    metrics = per_case_with_calibration(inputs, models, ["hierarchy_f1"], {}, BOOT)
    table = comparison_table("gating", metrics, BOOT)
    ece = table[table["metric"] == "calibration_ece"].iloc[0]
    values = {ece["arm_a"]: ece["value_a"], ece["arm_b"]: ece["value_b"]}
    assert values == pytest.approx({"calibrated": 0.0, "overstated": 0.225})
    assert abs(ece["diff"]) == pytest.approx(0.225) and ece["p_value"] < 0.05
    assert ece["method"].startswith("paired cluster bootstrap") and ece["n"] == 6
    # the same gates are named in both files: hierarchy_f1 does not differ
    f1 = table[table["metric"] == "hierarchy_f1"].iloc[0]
    assert f1["diff"] == 0.0


def test_reliability_and_risk_coverage_figures(scored, tmp_path):
    from scievals.figures.calibration import arm_units
    from scievals.gating.figures import reliability, risk_coverage

    inputs = {"per_case": [str(scored[m]["per_case.csv"]) for m in ("calibrated", "overstated")]}
    arms = arm_units(inputs["per_case"])
    assert sorted(arms) == ["calibrated", "overstated"]
    c, y = arms["calibrated"]
    assert c.size == 60 and y.sum() == 30  # 24 right high + 6 right low
    for draw, name in ((reliability, "rel.png"), (risk_coverage, "rc.png")):
        draw(inputs, str(tmp_path / name))
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
