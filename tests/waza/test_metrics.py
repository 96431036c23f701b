"""Weights, status, stats, summary and trigger metrics against hand arithmetic
(specs/waza.md §5 and §6.13)."""

from __future__ import annotations

import math

import pytest
from scievals.waza import metrics


def _v(score, passed, weight=None):
    return {"score": score, "passed": passed, "weight": weight}


def test_weights_missing_or_nonpositive_count_as_one():
    validations = {"a": _v(1.0, True, 2.0), "b": _v(0.5, False, 0), "c": _v(0.0, False, None),
                   "d": _v(1.0, True, -3)}
    # mean: (1 + 0.5 + 0 + 1) / 4 = 0.625
    assert metrics.run_score(validations) == pytest.approx(0.625)
    # weighted: (2*1 + 1*0.5 + 1*0 + 1*1) / (2 + 1 + 1 + 1) = 3.5 / 5 = 0.7
    assert metrics.weighted_run_score(validations) == pytest.approx(0.7)
    assert metrics.run_score({}) == 0.0
    assert metrics.weighted_run_score({}) == 0.0


def test_run_status_needs_every_grader_and_ignores_weights_and_scores():
    assert metrics.run_status({"a": _v(0.1, True), "b": _v(0.2, True)}) == "passed"
    # A heavy passing grader does not rescue a failing light one.
    assert metrics.run_status({"a": _v(1.0, True, 100), "b": _v(0.99, False, 0.01)}) == "failed"
    assert metrics.run_status({}) == "passed"
    assert metrics.run_status({"a": _v(1.0, True)}, engine_error=True) == "error"
    assert metrics.run_status({}, skipped=True) == "skipped"


def test_task_status():
    assert metrics.task_status(["passed", "skipped"]) == "passed"
    assert metrics.task_status(["skipped", "skipped"]) == "skipped"
    assert metrics.task_status(["passed", "failed"]) == "failed"
    assert metrics.task_status(["passed", "error"]) == "failed"


def _run(score, passed, weight=None, duration=100):
    return {"status": "passed" if passed else "failed", "duration_ms": duration,
            "validations": {"g": _v(score, passed, weight)}}


def test_task_stats_three_runs():
    runs = [_run(1.0, True, duration=100), _run(0.5, False, duration=200),
            _run(0.0, False, duration=300)]
    stats = metrics.task_stats(runs, seed=1)
    assert stats["pass_rate"] == pytest.approx(1 / 3)
    assert stats["avg_score"] == pytest.approx(0.5)
    assert stats["avg_weighted_score"] == pytest.approx(0.5)
    assert (stats["min_score"], stats["max_score"]) == (0.0, 1.0)
    # population std: sqrt((0.25 + 0 + 0.25) / 3) = 0.408248...
    assert stats["std_dev_score"] == pytest.approx(math.sqrt(0.5 / 3))
    assert stats["flaky"] is True
    assert stats["flakiness_percent"] == pytest.approx(100 / 3)  # minority 1 of 3
    assert stats["avg_duration_ms"] == 200
    ci = stats["bootstrap_ci"]
    assert ci["num_bootstraps"] == 10_000 and ci["confidence_level"] == 0.95
    assert 0.0 <= ci["lower"] <= 0.5 <= ci["upper"] <= 1.0
    assert ci["mean"] == pytest.approx(0.5)
    # current waza (schema 1.5) writes no is_significant, and a Wilson interval of the
    # pass rate: 1 of 3 runs passed -> [0.0615, 0.7923] (specs/waza-current.md §5.2)
    assert "is_significant" not in stats
    assert stats["pass_rate_ci"]["lower"] == pytest.approx(0.0615, abs=5e-5)
    assert stats["pass_rate_ci"]["upper"] == pytest.approx(0.7923, abs=5e-5)
    assert stats["pass_rate_ci"]["mean"] == pytest.approx(1 / 3)


def test_single_run_has_no_ci_and_is_not_flaky():
    stats = metrics.task_stats([_run(0.4, False)])
    assert "bootstrap_ci" not in stats and stats["flaky"] is False
    assert stats["flakiness_percent"] == 0.0


def test_summary_counts_and_means():
    tasks = [
        {"status": "passed", "runs": [_run(1.0, True)], "stats": {"avg_score": 1.0,
                                                                  "avg_weighted_score": 0.9}},
        {"status": "failed", "runs": [_run(0.2, False)], "stats": {"avg_score": 0.2,
                                                                   "avg_weighted_score": 0.3}},
        {"status": "failed", "runs": [{"status": "error", "validations": {}}],
         "stats": {"avg_score": 0.0, "avg_weighted_score": 0.0}},
    ]
    s = metrics.summary(tasks, trials=1)
    assert (s["total_tests"], s["succeeded"], s["failed"], s["errors"], s["skipped"]) == (
        3, 1, 1, 1, 0)
    assert s["success_rate"] == pytest.approx(1 / 3)
    assert s["aggregate_score"] == pytest.approx(0.4)  # (1 + 0.2 + 0) / 3
    assert s["weighted_score"] == pytest.approx(0.4)  # (0.9 + 0.3 + 0) / 3
    assert "statistics" not in s  # one trial: no bootstrap
    assert "statistics" in metrics.summary(tasks, trials=2)


def test_trigger_metrics_confidence_weighted():
    results = [
        {"should_trigger": True, "did_trigger": True, "confidence": "high"},     # TP 1
        {"should_trigger": True, "did_trigger": False, "confidence": "medium"},  # FN 0.5
        {"should_trigger": False, "did_trigger": True, "confidence": ""},        # FP 1
        {"should_trigger": False, "did_trigger": False, "confidence": "medium"},  # TN 0.5
        {"should_trigger": False, "did_trigger": False, "confidence": "high"},   # TN 1
    ]
    m = metrics.trigger_metrics(results)
    # TP=1, FP=1, TN=1.5, FN=0.5; counts reported rounded half up (Go math.Round)
    assert (m["true_positives"], m["false_positives"], m["true_negatives"],
            m["false_negatives"]) == (1, 1, 2, 1)
    assert m["precision"] == 0.5            # 1 / 2
    assert m["recall"] == 0.6667            # 1 / 1.5
    assert m["f1_score"] == 0.5714          # 2 * 0.5 * 0.6667 / 1.1667
    assert m["accuracy"] == 0.625           # 2.5 / 4


def test_trigger_metrics_zero_denominators_are_zero():
    m = metrics.trigger_metrics([{"should_trigger": False, "did_trigger": False}])
    assert (m["precision"], m["recall"], m["f1_score"], m["accuracy"]) == (0.0, 0.0, 0.0, 1.0)


def test_showcase_trigger_counts_reproduce_recorded_rates():
    # trigger-accuracy-claude.json: TP 9, FP 2, TN 8, FN 1 -> 0.818, 0.9, 0.857, 0.85
    results = ([{"should_trigger": True, "did_trigger": True}] * 9
               + [{"should_trigger": False, "did_trigger": True}] * 2
               + [{"should_trigger": False, "did_trigger": False}] * 8
               + [{"should_trigger": True, "did_trigger": False}])
    m = metrics.trigger_metrics(results)
    assert (m["precision"], m["recall"], m["f1_score"], m["accuracy"]) == (
        0.8182, 0.9, 0.8571, 0.85)


def test_trigger_accuracy_gate_and_exit_code():
    failing = metrics.trigger_accuracy_metric({"name": "trigger_accuracy", "threshold": 0.9,
                                               "weight": 0.3}, 0.85)
    assert failing["passed"] is False and failing["value"] == 0.85
    assert metrics.trigger_accuracy_metric({"name": "t", "threshold": 0}, 0.1)["passed"]
    assert metrics.trigger_accuracy_metric({"name": "t", "threshold": 0.85}, 0.85)["passed"]
    passed_task = {"status": "passed"}
    assert metrics.exit_code({"tasks": [passed_task], "metrics": {}}) == 0
    assert metrics.exit_code({"tasks": [passed_task], "metrics": {"t": failing}}) == 1
    assert metrics.exit_code({"tasks": [{"status": "failed"}], "metrics": {}}) == 1
