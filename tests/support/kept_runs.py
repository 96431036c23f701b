"""Kept runs as the workflow keeps them (results/runs/<id>/: Every Eval Ever records + run.json),
written by the same code (:func:`scievals.interop.eee.build_records`,
:func:`scievals.interop.runlogs._write`) from gating items whose scores are set here, so
tests and the docs' examples compare runs whose every figure is known."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from scievals.common.io import write_json
from scievals.interop import eee, runlogs

OLD, NEW = "20261128T040000Z-aaaaaa", "20261128T050000Z-bbbbbb"
MODELS = {"gpt": {"provider": "openai", "model": "gpt-4o-mini"},
          "marker_baseline": {"provider": "baseline"}, "late": {"provider": "baseline"}}
# per model, the hierarchy_f1 of cases case0..case5
BEFORE = {"gpt": [0.5, 0.6, 0.4, 0.7, 0.8, 0.3], "marker_baseline": [0.4] * 6}
AFTER = {"gpt": [0.9, 0.8, 0.7, 0.9, 1.0, 0.6], "marker_baseline": [0.4] * 6,
         "late": [1.0] * 6}


def item(model: str, case: int, score: float) -> dict:
    return {"benchmark": "gating", "model": model, "item": f"case{case}",
            "condition": "minimal_direct", "input": f"panel {case}", "reply": f"tree {score}",
            "parse_status": "ok", "outcome": "scored",
            # structure_accuracy is reported by the record (a summary row), extra_only not
            "metrics": {"hierarchy_f1": score, "structure_accuracy": round(1 - score, 6),
                        "extra_only": 0.5},
            "rationale": "", "expected": f"truth {case}", "score": score,
            "score_name": "hierarchy_f1", "tokens_in": 100, "tokens_out": 20,
            "cost_usd": 0.001, "latency_s": 1.0}


def failed_item(model: str, case: int) -> dict:
    """A case whose request failed: kept with no score (exported scored: false)."""
    return item(model, case, 0.0) | {"score": None, "outcome": "failed", "reply": "",
                                      "metrics": {"hierarchy_f1": None,
                                                  "structure_accuracy": None}}


def kept(runs: Path, name: str, scores: dict[str, list[float | None]],
         limited: bool = False, dataset: str = "OMIP") -> None:
    """A kept run of gating as keep_run writes it: records + run.json; a score None is a
    failed request (left out of the summary's mean and n); ``dataset``: its label (a smoke
    run's says "OMIP (limited to N items)")."""
    rows, samples = [], {}
    for model, values in scores.items():
        scored = [v for v in values if v is not None]
        for metric, mean in (("hierarchy_f1", sum(scored) / len(scored)),
                             ("structure_accuracy", 1 - sum(scored) / len(scored))):
            rows.append({"benchmark": "gating", "dataset": dataset, "dataset_sha256": "ab" * 32,
                         "model": model, "condition": "minimal_direct", "metric": metric,
                         "value": mean, "ci_low": 0.0, "ci_high": 1.0, "n": len(scored),
                         "ci_method": "wilson-ess", "scievals_version": "0.1.0",
                         "git_commit": "abc", "config_hash": "c0ffee"})
        samples[("gating", model)] = [item(model, k, s) if s is not None
                                      else failed_item(model, k) for k, s in enumerate(values)]
    facts = eee.RunFacts(retrieved_timestamp="1764300000", run_id=name)
    records = eee.build_records(pd.DataFrame(rows), samples, MODELS, facts)
    entries = runlogs._write(runs / name, name, records)
    write_json(runs / name / runlogs.RUN_FILE, {
        "run_id": name, "recorded_utc": "2026-11-28T04:00:00+00:00", "limited": limited,
        "records": entries, "digests": {}, "benchmarks": ["gating"],
        "models": sorted(scores)})
