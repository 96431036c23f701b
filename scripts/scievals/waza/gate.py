"""``waza gate`` and ``waza compare``: two or more results files side by side
(specs/waza-current.md §5.3, §6.6, §6.7).

The gate fails a CI job on a regression of ``summary.success_rate`` beyond
``max_regression_pct`` percentage points, on a golden task that did not pass in the
current run (golden in either file), and on added/removed tasks when their policy is
``fail``. Exit codes, in precedence order: 2 golden failure (when golden tasks must pass),
1 regression or a task-set policy, 0 pass; 3 a config error (bad flag, unreadable file,
another schemaVersion major).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.waza.own_results import read_results

EXIT_PASS, EXIT_REGRESSION, EXIT_GOLDEN, EXIT_CONFIG = 0, 1, 2, 3
POLICIES = ("allow", "warn", "fail")


def load_results(path: str | Path) -> dict:
    """A results file as current waza reads one (a missing ``schemaVersion`` is the
    current one; another major, preflight/release documents are refused)."""
    return read_results(path)


@dataclass(frozen=True)
class GateOptions:
    max_regression_pct: float = 0.0
    golden_must_pass: bool = True
    on_new_tasks: str = "allow"
    on_removed_tasks: str = "warn"

    @classmethod
    def from_flags(cls, max_regression_pct: str, golden_must_pass: str, on_new_tasks: str,
                   on_removed_tasks: str) -> GateOptions:
        """The options from the flags' text; a bad value is a config error (exit 3), not
        argparse's exit 2, which is the golden-failure code."""
        try:
            pct = float(max_regression_pct)
        except ValueError:
            raise ScievalsError("--max-regression-pct", f"{max_regression_pct!r} is not a "
                                "number", "give percentage points >= 0, e.g. 5") from None
        words = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
        if golden_must_pass.lower() not in words:
            raise ScievalsError("--golden-must-pass", f"{golden_must_pass!r} is not true or "
                                "false", "give true or false")
        options = cls(pct, words[golden_must_pass.lower()], on_new_tasks, on_removed_tasks)
        options.check()
        return options

    def check(self) -> None:
        # NaN compares false with everything: "regression > nan" would pass any regression
        if not math.isfinite(self.max_regression_pct) or self.max_regression_pct < 0:
            raise ScievalsError("--max-regression-pct", f"{self.max_regression_pct} is not "
                                "a finite number >= 0", "give percentage points >= 0, e.g. 5")
        for flag, value in (("--on-new-tasks", self.on_new_tasks),
                            ("--on-removed-tasks", self.on_removed_tasks)):
            if value not in POLICIES:
                raise ScievalsError(flag, f"{value!r} is not a policy",
                                    f"use one of {', '.join(POLICIES)}")


def _tasks(results: Mapping) -> dict[str, Mapping]:
    return {str(t["test_id"]): t for t in results["tasks"]}


def _rate(results: Mapping, where: str = "results") -> float:
    """``summary.success_rate``, else the share of passed tasks. A value that is not a
    number in [0, 1] (NaN, "abc", null) is a config error: NaN would pass any gate."""
    summary = results.get("summary") or {}
    if not isinstance(summary, Mapping):
        raise ScievalsError(f"{where}: summary", f"{summary!r} is not an object",
                            "give the results file waza wrote")
    if "success_rate" in summary:
        value = summary["success_rate"]
        if (isinstance(value, bool) or not isinstance(value, int | float)
                or not math.isfinite(value) or not 0 <= value <= 1):
            raise ScievalsError(f"{where}: summary.success_rate", f"{value!r} is not a "
                                "number in [0, 1]", "give the results file waza wrote, or "
                                "fix the value")
        return float(value)
    tasks = results["tasks"]
    return sum(1 for t in tasks if t.get("status") == "passed") / len(tasks) if tasks else 0.0


def gate(baseline: Mapping, current: Mapping, options: GateOptions, baseline_file: str = "",
         current_file: str = "") -> dict:
    """waza's gate report (its JSON keys) with ``exit_code`` and ``outcome``."""
    base_tasks, cur_tasks = _tasks(baseline), _tasks(current)
    base_rate = _rate(baseline, baseline_file or "baseline")
    cur_rate = _rate(current, current_file or "current")
    regression = max(0.0, (base_rate - cur_rate) * 100)
    exceeds = regression > options.max_regression_pct
    golden_ids = [i for i in dict.fromkeys([*base_tasks, *cur_tasks])
                  if (base_tasks.get(i) or {}).get("golden")
                  or (cur_tasks.get(i) or {}).get("golden")]
    golden_failures = []
    for task_id in golden_ids:
        now = cur_tasks.get(task_id)
        status = now.get("status", "") if now else "n/a"
        if status != "passed":
            before = base_tasks.get(task_id)
            entry = {"test_id": task_id,
                     "display_name": (now or before or {}).get("display_name", ""),
                     "current_status": status}
            if before is not None:
                entry["baseline_status"] = before.get("status", "")
            golden_failures.append(entry)
    new = [i for i in cur_tasks if i not in base_tasks]
    removed = [i for i in base_tasks if i not in cur_tasks]
    warnings, errors = [], []
    for tasks, policy, what in ((new, options.on_new_tasks, "new"),
                                (removed, options.on_removed_tasks, "removed")):
        if tasks and policy != "allow":
            message = f"{len(tasks)} {what} task(s): {', '.join(tasks)}"
            (errors if policy == "fail" else warnings).append(message)
    if golden_failures and not options.golden_must_pass:
        warnings.append(f"{len(golden_failures)} golden task(s) did not pass (not enforced)")
    if golden_failures and options.golden_must_pass:
        code, outcome = EXIT_GOLDEN, "golden_failure"
    elif exceeds or errors:
        code, outcome = EXIT_REGRESSION, "regression"
    else:
        code, outcome = EXIT_PASS, "pass"
    return {"baseline_file": baseline_file, "current_file": current_file,
            "baseline_pass_rate": base_rate, "current_pass_rate": cur_rate,
            "pass_rate_delta": cur_rate - base_rate,
            "max_regression_pct": options.max_regression_pct, "regression_pct": regression,
            "regression_exceeds_threshold": exceeds, "golden_failures": golden_failures,
            "golden_total": len(golden_ids), "golden_must_pass": options.golden_must_pass,
            "new_tasks": new, "removed_tasks": removed, "on_new_tasks": options.on_new_tasks,
            "on_removed_tasks": options.on_removed_tasks, "warnings": warnings,
            "errors": errors, "exit_code": code, "outcome": outcome}


def gate_markdown(report: Mapping) -> str:
    verdict = {"pass": "✅ pass", "regression": "❌ regression",
               "golden_failure": "❌ golden failure"}[report["outcome"]]
    lines = ["## Waza regression gate", "", f"**Outcome:** {verdict}", "",
             "| | pass rate |", "| --- | --- |",
             f"| baseline | {100 * report['baseline_pass_rate']:.1f}% |",
             f"| current | {100 * report['current_pass_rate']:.1f}% |", "",
             f"Regression: {report['regression_pct']:.1f} pp (allowed "
             f"{report['max_regression_pct']:g} pp). Golden tasks: {report['golden_total']}, "
             f"failing: {len(report['golden_failures'])}."]
    for failure in report["golden_failures"]:
        lines.append(f"- golden `{failure['test_id']}`: {failure['current_status']}")
    lines += [f"- warning: {w}" for w in report["warnings"]]
    lines += [f"- error: {e}" for e in report["errors"]]
    return "\n".join(lines) + "\n"


def gate_human(report: Mapping) -> str:
    lines = [f"gate: {report['outcome']} (exit {report['exit_code']})",
             f"  pass rate {100 * report['baseline_pass_rate']:.1f}% -> "
             f"{100 * report['current_pass_rate']:.1f}% (regression "
             f"{report['regression_pct']:.1f} pp, allowed {report['max_regression_pct']:g})",
             f"  golden tasks {report['golden_total']}, failing "
             f"{len(report['golden_failures'])}"]
    lines += [f"  golden {f['test_id']}: {f['current_status']}"
              for f in report["golden_failures"]]
    lines += [f"  warning: {w}" for w in report["warnings"]]
    lines += [f"  error: {e}" for e in report["errors"]]
    return "\n".join(lines) + "\n"


def gate_github_actions(report: Mapping) -> str:
    """Workflow commands; the markdown report goes to ``$GITHUB_STEP_SUMMARY`` when set."""
    summary = (f"pass rate {100 * report['baseline_pass_rate']:.1f}% -> "
               f"{100 * report['current_pass_rate']:.1f}% (regression "
               f"{report['regression_pct']:.1f} pp, allowed {report['max_regression_pct']:g})")
    lines = [f"::error title=Waza regression::{summary}"
             if report["regression_exceeds_threshold"]
             else f"::notice title=Waza regression gate::{summary}"]
    level = "error" if report["golden_must_pass"] else "warning"
    lines += [f"::{level} title=Waza golden task::{f['test_id']} is {f['current_status']}"
              for f in report["golden_failures"]]
    lines += [f"::warning title=Waza gate::{w}" for w in report["warnings"]]
    lines += [f"::error title=Waza gate::{e}" for e in report["errors"]]
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as handle:
            handle.write(gate_markdown(report))
    return "\n".join(lines) + "\n"


GATE_FORMATS = {"human": gate_human, "json": lambda r: json.dumps(r, indent=2) + "\n",
                "markdown": gate_markdown, "github-actions": gate_github_actions}


def compare(files: Sequence[str | Path]) -> dict:
    """``waza compare``: per file its summary, per task its status and score in each file
    (no significance and no normalized gain, as in waza)."""
    if len(files) < 2:
        raise ScievalsError("waza compare", f"{len(files)} file(s)", "give two or more")
    loaded = [load_results(f) for f in files]
    runs = [{"file": str(f), "eval_name": r.get("eval_name", ""),
             "model": (r.get("config") or {}).get("model_id", ""),
             "success_rate": _rate(r, str(f)),
             "aggregate_score": (r.get("summary") or {}).get("aggregate_score"),
             "weighted_score": (r.get("summary") or {}).get("weighted_score"),
             "tasks": len(r["tasks"])} for f, r in zip(files, loaded, strict=True)]
    ids = list(dict.fromkeys(i for r in loaded for i in _tasks(r)))
    tasks = []
    for task_id in ids:
        row = {"test_id": task_id, "results": []}
        for r in loaded:
            task = _tasks(r).get(task_id)
            row["results"].append(None if task is None else {
                "status": task.get("status", ""),
                "avg_score": (task.get("stats") or {}).get("avg_score")})
        tasks.append(row)
    return {"runs": runs, "tasks": tasks}


def compare_table(report: Mapping) -> str:
    def number(value) -> str:
        return "-" if value is None else f"{value:.3f}"

    lines = [f"{'run':<4} {'eval':<28} {'model':<24} {'success':>8} {'score':>7} "
             f"{'weighted':>8} {'tasks':>5}"]
    for index, run in enumerate(report["runs"], start=1):
        lines.append(f"{index:<4} {run['eval_name'][:28]:<28} {str(run['model'])[:24]:<24} "
                     f"{run['success_rate']:>8.3f} {number(run['aggregate_score']):>7} "
                     f"{number(run['weighted_score']):>8} {run['tasks']:>5}")
    lines += ["", "task" + "".join(f" | run {i}" for i in range(1, len(report["runs"]) + 1))]
    for task in report["tasks"]:
        cells = ["missing" if r is None else f"{r['status']} {number(r['avg_score'])}"
                 for r in task["results"]]
        lines.append(task["test_id"] + "".join(f" | {c}" for c in cells))
    return "\n".join(lines) + "\n"
