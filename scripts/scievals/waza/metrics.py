"""Run/task status, scores, stats, summary, trigger metrics and score-table rows.

Pure functions on plain dicts in waza's results-JSON shapes (specs/waza.md §5, §6.13): a
run's ``validations`` map grader name -> ``{score, weight, passed, ...}``; a task has
``runs`` and ``stats``. :func:`suite_metrics` and :func:`per_case` turn one graded suite
into the score table's rows: ``pass_rate`` (waza's ``summary.success_rate``: tasks whose
every run passed), ``weighted_score`` and ``aggregate_score`` (means over tasks of the
average weighted / unweighted run scores), ``run_pass_rate`` (runs that passed), and with
trigger tests ``trigger_accuracy``/``trigger_precision``/``trigger_recall``/``trigger_f1``.
Intervals (docs/statistics.md): ``pass_rate`` the Wilson score interval (tasks are the
independent pass/fail items; ``bootstrap.proportion: clopper-pearson`` for the exact one),
the score means, ``run_pass_rate`` and ``pass@k``/``pass^k`` the effective-n Wilson
interval over tasks (``bootstrap.method`` auto; runs of one task are not independent);
with repeated runs also ``pass@k``, ``pass^k`` and ``within_task_score_sd``
(:func:`repeat_metrics`). The results JSON's own per-task
``bootstrap_ci`` stays waza's percentile bootstrap, without ``is_significant``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence

# stats.intervals imports scipy only inside the functions that need it (fast DAG builds)
from scievals.common.errors import ScievalsError
from scievals.stats.intervals import (
    ess_quantile,
    mean_ci,
    mean_interval,
    pass_at_k,
    proportion_interval,
    proportion_method,
    wilson_ess_bounds,
    wilson_interval,
)
from scievals.stats.intervals import pass_hat_k as item_pass_hat_k
from scievals.waza.graders.base import GRADERS_VERSION

# The score rule's code version. Bump the first part when a change moves a number (status,
# stats, summary, trigger metrics, score rows); the graders' version is part of it because
# the score stage grades the recorded runs.
# v2: no is_significant; Wilson/t intervals, pass@k/pass^k (issue 20)
# v3: effective-n Wilson intervals of score means, run_pass_rate, pass@k and pass^k (issue 27)
# v4: a suite a smoke run cut (tasks or trigger prompts) gets a sha256 of what it ran
METRICS_VERSION = "-".join(("waza-metrics-v4", GRADERS_VERSION))
# Every score-table metric with an interval is a rate or a mean of [0, 1] scores
METRIC_RANGES = {"*": (0.0, 1.0)}
BOOTSTRAP_RESAMPLES = 10_000
CONFIDENCE_LEVEL = 0.95


def grader_weight(weight: float | None) -> float:
    """A grader's weight: missing or <= 0 counts as 1.0."""
    return float(weight) if weight is not None and weight > 0 else 1.0


def run_score(validations: Mapping[str, Mapping]) -> float:
    """Mean of the grader scores (0 with no graders)."""
    scores = [v["score"] for v in validations.values()]
    return sum(scores) / len(scores) if scores else 0.0


def weighted_run_score(validations: Mapping[str, Mapping]) -> float:
    """sum(score * w) / sum(w) with w = grader_weight (0 with no graders)."""
    if not validations:
        return 0.0
    weights = [grader_weight(v.get("weight")) for v in validations.values()]
    total = sum(w * v["score"] for w, v in zip(weights, validations.values()))
    return total / sum(weights)


def run_status(validations: Mapping[str, Mapping], engine_error: bool = False,
               skipped: bool = False) -> str:
    """``error`` if the engine failed, ``skipped`` without grading, else ``passed`` iff every
    grader passed (weights and score thresholds never decide status)."""
    if engine_error:
        return "error"
    if skipped:
        return "skipped"
    return "passed" if all(v["passed"] for v in validations.values()) else "failed"


def task_status(statuses: Sequence[str]) -> str:
    """``passed`` iff every non-skipped run passed, ``skipped`` if all were skipped."""
    if statuses and all(s == "skipped" for s in statuses):
        return "skipped"
    active = [s for s in statuses if s != "skipped"]
    return "passed" if active and all(s == "passed" for s in active) else "failed"


def bootstrap(values: Sequence[float], seed: int) -> dict:
    """Percentile bootstrap CI of the mean (10,000 resamples, seeded)."""
    low, high = mean_ci(values, BOOTSTRAP_RESAMPLES, seed)
    return {"lower": low, "upper": high, "mean": statistics.fmean(values),
            "confidence_level": CONFIDENCE_LEVEL, "num_bootstraps": BOOTSTRAP_RESAMPLES}


def wilson(successes: int, n: int) -> dict:
    """Current waza's Wilson 95 % interval of a pass rate (specs/waza-current.md §5.2):
    ``{lower, upper, mean = s/n, confidence_level}``, all zero when n < 1."""
    if n < 1:
        return {"lower": 0.0, "upper": 0.0, "mean": 0.0, "confidence_level": CONFIDENCE_LEVEL}
    low, high = wilson_interval(successes, n)
    return {"lower": max(0.0, low), "upper": min(1.0, high),
            "mean": successes / n, "confidence_level": CONFIDENCE_LEVEL}


def pass_hat_k(tasks: Sequence[Mapping]) -> list[float]:
    """``pass_hat_k[k-1]`` = mean over tasks with runs of C(passed, k) / C(runs, k), for
    k = 1 .. the largest run count (a term is 0 when k > runs or passed < k)."""
    counts = [(sum(1 for r in t["runs"] if r["status"] == "passed"), len(t["runs"]))
              for t in tasks if t["runs"]]
    if not counts:
        return []
    top = max(n for _, n in counts)
    return [statistics.fmean(math.comb(p, k) / math.comb(n, k) if k <= n else 0.0
                             for p, n in counts) for k in range(1, top + 1)]


def task_stats(runs: Sequence[Mapping], seed: int = 0) -> dict:
    """Go's per-task ``stats`` over the task's runs (each with ``status``, ``validations``,
    ``duration_ms``). ``flakiness_percent`` = 100 * minority outcome / runs."""
    if not runs:
        return {"pass_rate": 0.0, "avg_score": 0.0, "avg_weighted_score": 0.0, "min_score": 0.0,
                "max_score": 0.0, "std_dev_score": 0.0, "flaky": False,
                "flakiness_percent": 0.0, "avg_duration_ms": 0}
    scores = [run_score(r.get("validations") or {}) for r in runs]
    weighted = [weighted_run_score(r.get("validations") or {}) for r in runs]
    passed = sum(1 for r in runs if r["status"] == "passed")
    pass_rate = passed / len(runs)
    stats = {
        "pass_rate": pass_rate,
        "avg_score": statistics.fmean(scores),
        "avg_weighted_score": statistics.fmean(weighted),
        "min_score": min(scores),
        "max_score": max(scores),
        "std_dev_score": statistics.pstdev(scores),
        "flaky": 0 < pass_rate < 1,
        "flakiness_percent": 100 * min(passed, len(runs) - passed) / len(runs),
        "avg_duration_ms": round(statistics.fmean(r.get("duration_ms") or 0 for r in runs)),
    }
    if len(runs) >= 2:
        stats["bootstrap_ci"] = bootstrap(weighted, seed)
        stats["pass_rate_ci"] = wilson(passed, len(runs))
    return stats


def _sum_usage(usages: Iterable[Mapping | None]) -> dict | None:
    total: dict = {}
    for usage in usages:
        for key, value in (usage or {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                total[key] = total.get(key, 0) + value
    return total or None


def summary(tasks: Sequence[Mapping], trials: int, seed: int = 0) -> dict:
    """Go's ``summary``. A failed task with an errored run counts under ``errors``."""
    counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
    for task in tasks:
        if task["status"] == "failed" and any(r["status"] == "error" for r in task["runs"]):
            counts["errors"] += 1
        else:
            counts[task["status"]] += 1
    avg = [t["stats"]["avg_score"] for t in tasks]
    weighted = [t["stats"]["avg_weighted_score"] for t in tasks]
    total = len(tasks)
    result = {
        "total_tests": total,
        "succeeded": counts["passed"],
        "failed": counts["failed"],
        "errors": counts["errors"],
        "skipped": counts["skipped"],
        "success_rate": counts["passed"] / total if total else 0.0,
        "aggregate_score": statistics.fmean(avg) if avg else 0.0,
        "weighted_score": statistics.fmean(weighted) if weighted else 0.0,
        "min_score": min(avg) if avg else 0.0,
        "max_score": max(avg) if avg else 0.0,
        "std_dev": statistics.pstdev(avg) if avg else 0.0,
        "duration_ms": sum(r.get("duration_ms") or 0 for t in tasks for r in t["runs"]),
        "usage": _sum_usage((r.get("session_digest") or {}).get("usage")
                            for t in tasks for r in t["runs"]),
    }
    if trials > 1 and len(tasks) >= 2:
        # current waza (schema 1.5): success_rate_ci over tasks and pass^k; the old
        # is_significant flag is no longer written
        result["statistics"] = {"bootstrap_ci": bootstrap(weighted, seed),
                                "success_rate_ci": wilson(counts["passed"], total),
                                "pass_hat_k": pass_hat_k(tasks)}
    return result


def _round_half_up(value: float) -> int:
    """Go's math.Round for non-negative counts (0.5 -> 1; Python's round gives 0)."""
    return math.floor(value + 0.5)


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def trigger_metrics(results: Sequence[Mapping]) -> dict:
    """Confidence-weighted confusion counts and rates over trigger results (each with
    ``should_trigger``, ``did_trigger``, ``confidence``): high/empty weigh 1.0, medium 0.5.
    Rates are rounded to 4 decimals and counts reported rounded, as in Go."""
    tp = fp = tn = fn = 0.0
    weights = {"high": 1.0, "": 1.0, "medium": 0.5}
    for item in results:
        w = weights[item.get("confidence") or ""]
        if item["should_trigger"]:
            tp, fn = (tp + w, fn) if item["did_trigger"] else (tp, fn + w)
        else:
            fp, tn = (fp + w, tn) if item["did_trigger"] else (fp, tn + w)
    precision = _ratio(tp, tp + fp)
    recall = _ratio(tp, tp + fn)
    f1 = _ratio(2 * precision * recall, precision + recall)
    accuracy = _ratio(tp + tn, tp + fp + tn + fn)
    return {"true_positives": _round_half_up(tp), "false_positives": _round_half_up(fp),
            "true_negatives": _round_half_up(tn), "false_negatives": _round_half_up(fn),
            "precision": round(precision, 4), "recall": round(recall, 4),
            "f1_score": round(f1, 4), "accuracy": round(accuracy, 4),
            "errors": sum(1 for item in results if item.get("error"))}


def trigger_accuracy_metric(metric: Mapping, accuracy: float) -> dict:
    """The ``trigger_accuracy`` gate: passes when threshold <= 0 or accuracy >= threshold."""
    threshold = float(metric.get("threshold") or 0.0)
    return {"identifier": metric["name"], "value": accuracy, "threshold": threshold,
            "passed": threshold <= 0 or accuracy >= threshold,
            "weight": float(metric.get("weight") or 0.0)}


def exit_code(outcome: Mapping) -> int:
    """0 all passed; 1 a task failed or errored, or a metric gate failed. In A/B mode
    (``baseline_outcome``) as waza: 1 when the success rate with skills is not above the
    baseline's (ties included), else 0 even when tasks failed."""
    if outcome.get("baseline_outcome"):
        base = outcome["baseline_outcome"]["summary"]["success_rate"]
        return 1 if outcome["summary"]["success_rate"] <= base else 0
    tasks_ok = all(t["status"] in ("passed", "skipped") for t in outcome["tasks"])
    metrics_ok = all(m["passed"] for m in (outcome.get("metrics") or {}).values())
    return 0 if tasks_ok and metrics_ok else 1


def finite(value: float) -> float | None:
    """JSON-safe number (NaN -> None)."""
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


PER_CASE_COLUMNS = ["suite", "task_id", "display_name", "status", "runs", "pass_rate",
                    "avg_score", "avg_weighted_score", "std_dev_score", "flaky", "errors"]


def _ci(values: Sequence[float], bootstrap: Mapping) -> tuple:
    """The interval of a mean over tasks of [0, 1] values: effective-n Wilson
    (``bootstrap.method`` auto; a bootstrap clipped to [0, 1] otherwise)."""
    if len(values) < 1:
        return (None, None, "")
    low, high, method = mean_interval(values, bootstrap, METRIC_RANGES["*"])
    if math.isnan(low) or math.isnan(high):  # intervals turned off (n_resamples 0)
        return (None, None, "")
    return (low, high, method)


def _wilson(passed: int, n: int, bootstrap: Mapping) -> tuple:
    """Wilson interval of a pass rate over n independent tasks; Clopper-Pearson (exact) up
    to 5 tasks, or wherever configured (``bootstrap.proportion``)."""
    method = proportion_method(bootstrap, n)
    return (*proportion_interval(passed, n, method), method) if n else (None, None, "")


def _run_rate_ci(passes: Sequence[int], runs: Sequence[int], bootstrap: Mapping) -> tuple:
    """Interval of the run pass rate R = sum(passes) / sum(runs) over tasks, the
    independent units (a task's runs share its difficulty): the effective-n Wilson
    interval with the ratio estimator's linearised residuals e_i = (c_i - R m_i) / mean(m)
    as the per-task deviations (with equal runs per task, the per-task pass fractions)."""
    if not runs or sum(runs) == 0 or int(bootstrap.get("n_resamples", 1000)) <= 0:
        return (None, None, "")
    total = sum(runs)
    rate = sum(passes) / total
    mean_runs = total / len(runs)
    sum_sq = sum(((c - rate * m) / mean_runs) ** 2 for c, m in zip(passes, runs))
    low, high = wilson_ess_bounds(rate, sum_sq, len(runs), ess_quantile(len(runs)))
    return (float(low), float(high), "wilson-ess")


def repeat_metrics(tasks: Sequence[Mapping], bootstrap: Mapping | None = None) -> list[dict]:
    """With repeated runs (every task ran k >= 2 times, k the fewest): ``pass@k`` and
    ``pass^k`` (unbiased estimators per task, averaged over tasks, with the effective-n
    Wilson interval over tasks) and ``within_task_score_sd`` (mean over tasks of the run
    scores' population sd)."""
    bootstrap = {} if bootstrap is None else bootstrap
    counts = [len(t["runs"]) for t in tasks]
    if not counts or min(counts) < 2:
        return []
    k = min(counts)
    passes = [sum(1 for r in t["runs"] if r["status"] == "passed") for t in tasks]
    n = len(tasks)
    at_k = [pass_at_k(m, c, k) for m, c in zip(counts, passes)]
    hat_k = [item_pass_hat_k(m, c, k) for m, c in zip(counts, passes)]
    rows = []
    for metric, values in ((f"pass@{k}", at_k), (f"pass^{k}", hat_k)):
        low, high, method = _ci(values, bootstrap)
        rows.append({"metric": metric, "n": n, "value": statistics.fmean(values),
                     "ci_low": low, "ci_high": high, "ci_method": method})
    return rows + [{"metric": "within_task_score_sd", "n": n,
                    "value": statistics.fmean(t["stats"]["std_dev_score"] for t in tasks)}]


def suite_metrics(outcome: Mapping, bootstrap: Mapping) -> list[dict]:
    tasks = outcome["tasks"]
    summary = outcome["summary"]
    n = len(tasks)
    task_passed = [1.0 if t["status"] == "passed" else 0.0 for t in tasks]
    weighted = [t["stats"]["avg_weighted_score"] for t in tasks]
    scores = [t["stats"]["avg_score"] for t in tasks]
    all_runs = [r for t in tasks for r in t["runs"]]
    rows = []
    for metric, value, (low, high, method) in (
            ("pass_rate", summary["success_rate"], _wilson(int(sum(task_passed)), n, bootstrap)),
            ("weighted_score", summary["weighted_score"], _ci(weighted, bootstrap)),
            ("aggregate_score", summary["aggregate_score"], _ci(scores, bootstrap))):
        rows.append({"metric": metric, "value": value, "ci_low": low, "ci_high": high, "n": n,
                     "ci_method": method})
    run_pass = [1.0 if r["status"] == "passed" else 0.0 for r in all_runs]
    low, high, method = _run_rate_ci(
        [sum(1 for r in t["runs"] if r["status"] == "passed") for t in tasks],
        [len(t["runs"]) for t in tasks], bootstrap)
    rows.append({"metric": "run_pass_rate", "value": statistics.fmean(run_pass) if run_pass
                 else 0.0, "ci_low": low, "ci_high": high, "n": len(run_pass),
                 "ci_method": method})
    trigger = outcome.get("trigger_metrics")
    if trigger:
        n_prompts = len(outcome.get("trigger_results") or []) or None
        for key, metric in (("accuracy", "trigger_accuracy"), ("precision", "trigger_precision"),
                            ("recall", "trigger_recall"), ("f1_score", "trigger_f1")):
            rows.append({"metric": metric, "value": trigger[key], "n": n_prompts})
    return rows + repeat_metrics(tasks, bootstrap)


def per_case(suite: str, outcome: Mapping) -> list[dict]:
    rows = []
    for task in outcome["tasks"]:
        stats = task["stats"]
        rows.append({"suite": suite, "task_id": task["test_id"],
                     "display_name": task.get("display_name", ""), "status": task["status"],
                     "runs": len(task["runs"]), "pass_rate": stats["pass_rate"],
                     "avg_score": stats["avg_score"],
                     "avg_weighted_score": stats["avg_weighted_score"],
                     "std_dev_score": stats["std_dev_score"], "flaky": stats["flaky"],
                     "errors": sum(1 for r in task["runs"] if r["status"] == "error")})
    return rows


def normalized_gain(pre: float, post: float) -> float:
    """waza's NormalizedGain(pre, post) = (post - pre) / (1 - pre): 0 when pre >= 1 or
    post == pre, 1 when post >= 1, negative for a regression."""
    if pre >= 1 or post == pre:
        return 0.0
    if post >= 1:
        return 1.0
    return (post - pre) / (1 - pre)


def with_baseline(graded: dict, arm: dict, where: str = "results") -> dict:
    """A/B mode (specs/waza-current.md §2.7): tasks paired by ``test_id`` (an unpaired task
    is an error) get ``skill_impact``; the run is marked ``is_baseline`` with the whole
    no-skill outcome in ``baseline_outcome``. waza declares ``normalized_gain`` but never
    sets it; here it is computed from the two success rates (baseline = pre)."""
    base = {t["test_id"]: t for t in arm["tasks"]}
    if set(base) != {t["test_id"] for t in graded["tasks"]}:
        unpaired = sorted(set(base) ^ {t["test_id"] for t in graded["tasks"]})
        raise ScievalsError(f"{where}: baseline arm", f"unpaired task(s) {unpaired}",
                            "both arms must run the same tasks")
    for task in graded["tasks"]:
        with_skills = task["stats"]["pass_rate"]
        without = base[task["test_id"]]["stats"]["pass_rate"]
        delta = with_skills - without
        task["skill_impact"] = {"pass_rate_with_skills": with_skills,
                                "pass_rate_baseline": without, "delta": delta,
                                "percent_change": delta / max(without, 0.01) * 100}
    graded["is_baseline"] = True
    graded["baseline_outcome"] = arm
    graded["summary"].setdefault("statistics", {})["normalized_gain"] = normalized_gain(
        arm["summary"]["success_rate"], graded["summary"]["success_rate"])
    return graded
