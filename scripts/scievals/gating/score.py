"""Score one model's predictions: per-prediction CSV, long result table, review.

Per (model, condition): each metric is averaged over a case's samples, then over
cases, with a 95 % CI over cases (the effective-n Wilson interval inside each metric's
declared range, ``METRIC_RANGES``) and ``n`` = cases.
Unparseable or missing predictions score 0 (NaN for the hallucination rates,
which are averaged over parsed predictions only) and count in
``task_failure_rate``; ``parse_success_rate`` is the share parsed. A prediction
file with two lines for one (case, condition, sample) is refused (:mod:`records`).
Where a case was answered more than once (``n_samples``), each tree metric also gets its
best-of-k, consensus, consensus-gain and within-case SD rows and the condition a
``sample_agreement`` row (:mod:`scievals.stats.samples`, :mod:`scievals.gating.experiments`).
"""

from __future__ import annotations

import logging

import pandas as pd

from scievals.common import notices
from scievals.common.errors import ScievalsError
from scievals.common.io import read_json, sha256_file, write_csv, write_text
from scievals.common.jobs import ScoreJob
from scievals.common.provenance import Provenance
from scievals.common.tables import result_rows, write_result_table
from scievals.gating import experiments
from scievals.gating.cases import read_cases
from scievals.gating.experiments import units
from scievals.gating.metrics import (
    LOWER_IS_BETTER,
    METRIC_RANGES,
    METRICS,
    REFERENCE_METRICS,
    SEMANTIC_METRICS,
    Truth,
    evaluate,
)
from scievals.gating.parser import parse_prediction
from scievals.gating.records import DEEP_FIX, read_lines, refuse_duplicates
from scievals.gating.review import render_review
from scievals.gating.tree import TOO_DEEP, walk
from scievals.llm.usage_rows import usage_metric_rows
from scievals.stats.arm_rows import arm_items
from scievals.stats.calibration_rows import UNITS_COLUMN, encode
from scievals.stats.samples import SampleAnswers, sample_metrics

log = logging.getLogger(__name__)

TABLE_METRICS = METRICS + ("parse_success_rate", "task_failure_rate") + REFERENCE_METRICS
BENCHMARK = "gating"
# Metrics whose per-case change from turn 0 the tables count (metric -> lower is better)
TURN_METRICS = {"hierarchy_f1": False, "hallucination_rate": True}
MISSING_EXTRA = "missing_extra"  # the notice kind of the semantic metrics left out


def semantic_scorer(names=None):
    """The semantic metrics' scorer, or None with a notice at the end of this run saying why
    (the metrics are then absent from the tables: never a 0 that looks like a score).
    ``names``: the gate names the job scores, encoded now (semantic.load_scorer)."""
    # numpy's model code only when scoring (the Snakefile parse imports this module's registry)
    from scievals.gating.semantic import load_scorer

    scorer, reason = load_scorer(names)
    if scorer is None:
        notices.record(MISSING_EXTRA, BENCHMARK, reason, once=True)
    return scorer


def _gate_names(cases: list[dict], records: list[dict]) -> set[str]:
    """Every gate name of the truths and the parsed predictions."""
    trees = [r["hierarchy"] for r in records
             if r.get("parse_status") == "ok" and r.get("hierarchy") is not None]
    return {gate["name"] for tree in trees for gate, _, _ in walk(tree)}.union(
        *(Truth.from_case(c).names for c in cases))


def _checked_records(path, case_ids: set[str]) -> list[dict]:
    numbered = read_lines(path)
    for i, rec in numbered:
        where = f"{path}:{i}"
        if not isinstance(rec, dict) or "case_id" not in rec or "condition" not in rec:
            raise ScievalsError(where, "prediction record lacks case_id/condition",
                                "write predictions with scievals.gating.predict")
        if not isinstance(rec["case_id"], str) or rec["case_id"] not in case_ids:
            raise ScievalsError(where, f"unknown case_id {rec['case_id']!r}",
                                "predictions must be made from the same case file")
        if "parse_status" not in rec:  # a hand-written record: parse it here
            parsed = parse_prediction(rec.get("hierarchy") if rec.get("hierarchy") is not None
                                      else rec.get("raw_text"))
            if parsed.error == TOO_DEEP:
                raise ScievalsError(where, TOO_DEEP, DEEP_FIX)
            rec.update(parsed.as_record(), hierarchy=parsed.hierarchy)
            rec.setdefault("task_failure", "none" if parsed.ok else "unparseable")
    refuse_duplicates(path, numbered)
    return [rec for _, rec in numbered]


def score_records(cases: list[dict], records: list[dict], semantic=None) -> pd.DataFrame:
    """One row per prediction (plus a 'missing' row per case a condition lacks); ``semantic``:
    a :class:`scievals.gating.semantic.SemanticScorer` for the semantic metrics, or None."""
    truths = {c["test_case_id"]: Truth.from_case(c) for c in cases}
    by_id = {c["test_case_id"]: c for c in cases}
    rows = []
    conditions = sorted({r["condition"] for r in records})
    seen = set()
    for rec in records:
        ok = rec.get("parse_status") == "ok" and rec.get("hierarchy") is not None
        scores = evaluate(rec["hierarchy"] if ok else None, truths[rec["case_id"]],
                          semantic=semantic)
        seen.add((rec["case_id"], rec["condition"]))
        rows.append({
            "case_id": rec["case_id"], "condition": rec["condition"],
            "sample_index": rec.get("sample_index", 0), **scores,
            "parse_success_rate": 1.0 if ok else 0.0,
            "task_failure_rate": 0.0 if ok and rec.get("task_failure", "none") == "none" else 1.0,
            "parse_status": rec.get("parse_status"), "parse_method": rec.get("parse_method"),
            "task_failure": rec.get("task_failure"), "error": rec.get("error"),
            UNITS_COLUMN: encode(units(rec["hierarchy"] if ok else None, by_id[rec["case_id"]])),
        })
    for condition in conditions:
        for case_id, truth in truths.items():
            if (case_id, condition) not in seen:
                log.warning("no prediction for case %s under condition %s: scored as a failure",
                            case_id, condition)
                rows.append({"case_id": case_id, "condition": condition, "sample_index": 0,
                             **evaluate(None, truth, semantic=semantic),
                             "parse_success_rate": 0.0,
                             "task_failure_rate": 1.0, "parse_status": "missing",
                             "parse_method": None, "task_failure": "missing", "error": None,
                             UNITS_COLUMN: encode([])})
    frame = pd.DataFrame(rows)
    return frame.sort_values(["condition", "case_id", "sample_index"], kind="stable").reset_index(drop=True)


def with_samples(cases: list[dict], records: list[dict], per_prediction: pd.DataFrame,
                 semantic=None):
    """Best-of-k, consensus, within-item spread and agreement of the tree metrics where a
    case was answered more than once (:mod:`scievals.stats.samples`): (frame, the derived
    metrics they were derived from, the ranges with theirs)."""
    truths = {c["test_case_id"]: Truth.from_case(c) for c in cases}
    parsed = {(r["case_id"], r["condition"], int(r.get("sample_index") or 0)): r["hierarchy"]
              for r in records if r.get("parse_status") == "ok" and r.get("hierarchy")}
    answers = SampleAnswers(
        consensus=experiments.consensus, keys=experiments.sample_keys,
        score=lambda case_id, tree: evaluate(tree, truths[case_id], semantic=semantic))
    return sample_metrics(per_prediction, METRICS, parsed, answers, METRIC_RANGES,
                          LOWER_IS_BETTER)


def _usage_items(usage: dict, condition: str) -> list[dict]:
    summary = (usage.get("conditions") or {}).get(condition)
    if not summary:
        return []
    return usage_metric_rows(summary)


def score_model(cases_jsonl, predictions_jsonl, provenance: Provenance, bootstrap: dict,
                out_csv, per_case_csv, review_md, usage_json=None, model: str | None = None):
    """Score ``predictions_jsonl`` against the case file; write the three outputs."""
    cases = read_cases(cases_jsonl)
    case_ids = {c["test_case_id"] for c in cases}
    records = _checked_records(predictions_jsonl, case_ids)
    if not records:
        raise ScievalsError(predictions_jsonl, "no predictions", "run the predict step first")
    models = {r.get("model") for r in records if r.get("model")}
    if model is None:
        if len(models) != 1:
            raise ScievalsError(predictions_jsonl, f"expected one model, found {sorted(models)}",
                                "one prediction file per model")
        model = models.pop()
    from scievals.gating.embedding import Unavailable  # with the scorer: see semantic_scorer
    from scievals.gating.semantic import unavailable_reason

    semantic = semantic_scorer(_gate_names(cases, records))
    try:
        per_prediction = score_records(cases, records, semantic)
        per_prediction, sampled, ranges = with_samples(cases, records, per_prediction, semantic)
    except Unavailable as exc:  # a name first met here (a consensus tree) and a model that fails
        notices.record(MISSING_EXTRA, BENCHMARK, unavailable_reason(exc), once=True)
        semantic = None
        per_prediction = score_records(cases, records)
        per_prediction, sampled, ranges = with_samples(cases, records, per_prediction)
    metrics = TABLE_METRICS + (SEMANTIC_METRICS if semantic is not None else ())
    usage = read_json(usage_json) if usage_json else {}
    tables = [result_rows(provenance, model, condition, items + _usage_items(usage, condition))
              for condition, items in arm_items(per_prediction, records, metrics, sampled, bootstrap,
                                                ranges, TURN_METRICS).items()]
    write_result_table(out_csv, pd.concat(tables, ignore_index=True))
    per_prediction.insert(0, "model", model)
    write_csv(per_case_csv, per_prediction)
    truths = {c["test_case_id"]: Truth.from_case(c) for c in cases}
    write_text(review_md, render_review(model, truths, records))
    return per_prediction


def score_to_tables(cases_jsonl, curation_report_json, predictions_jsonl, model: str,
                    bootstrap: dict, config_hash: str, out_csv, per_case_csv, review_md,
                    usage_json=None) -> pd.DataFrame:
    """What ``gating_score`` calls (the same shape as every benchmark's score step): build the
    rows' provenance, score one model, write the long table, the per-case table and the review."""
    provenance = provenance_for(cases_jsonl, curation_report_json, config_hash)
    return score_model(cases_jsonl, predictions_jsonl, provenance, bootstrap, out_csv,
                       per_case_csv, review_md, usage_json=usage_json, model=model)


def provenance_for(cases_jsonl, curation_report_json, config_hash: str) -> Provenance:
    """Provenance of gating rows: dataset label from the curation report, sha256 of cases."""
    report = read_json(curation_report_json)
    return Provenance(benchmark=BENCHMARK, dataset=report.get("dataset", "gating-cases"),
                      dataset_sha256=sha256_file(cases_jsonl), config_hash=config_hash)



def score(job: ScoreJob) -> pd.DataFrame:
    """The stage contract's score entry: one model's predictions against the curated cases
    (truth ``cases`` and ``curation``; outputs ``table``, ``per_case`` and ``review``)."""
    return score_to_tables(job.truth["cases"], job.truth["curation"], job.prediction, job.model,
                           dict(job.bootstrap), job.config_hash, job.outputs["table"],
                           job.outputs["per_case"], job.outputs["review"], usage_json=job.usage)
