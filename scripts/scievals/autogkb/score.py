"""Score one model's predictions: per-case CSV (one row per article), long result table, review markdown.

Per article (and sample): :func:`scievals.autogkb.metrics.evaluate`. Per condition: each
metric averaged over samples, then over articles, with a 95 % CI over articles (the
effective-n Wilson interval inside the metric's declared range, ``METRIC_RANGES``) and
``n`` = articles. Unparseable or missing predictions score 0 (an
empty list) and count against ``parse_success_rate``; field similarities are averaged over
articles with at least one matched pair (``n`` says how many). Where an article was answered
more than once (``n_samples``), each headline metric also gets its best-of-k, consensus,
consensus-gain and within-article SD rows and the condition a ``sample_agreement`` row
(:mod:`scievals.stats.samples`, :mod:`scievals.autogkb.experiments`).
"""

from __future__ import annotations

import logging
import re

import pandas as pd

from scievals.autogkb import experiments
from scievals.autogkb.curate import read_cases
from scievals.autogkb.experiments import matched_units
from scievals.autogkb.metrics import FIELDS, METRIC_RANGES, evaluate
from scievals.autogkb.review import article_section, render_review
from scievals.common.errors import ScievalsError
from scievals.common.io import read_json, read_jsonl, sha256_file, write_csv, write_text
from scievals.common.jobs import ScoreJob
from scievals.common.provenance import Provenance
from scievals.common.tables import result_rows, write_result_table
from scievals.llm.usage_rows import usage_metric_rows
from scievals.stats.arm_rows import arm_items
from scievals.stats.calibration_rows import UNITS_COLUMN, encode
from scievals.stats.samples import SampleAnswers, sample_metrics

log = logging.getLogger(__name__)

BENCHMARK = "autogkb"
HEADLINE = ("score", "one_to_one_score", "precision", "recall", "f1")
# Metrics whose per-article change from turn 0 the tables count (metric -> lower is better)
TURN_METRICS = {"one_to_one_score": False}


def field_metric(field: str) -> str:
    """``Drug(s)`` -> ``field_similarity.drug_s``: a metric name without CSV-hostile signs."""
    return "field_similarity." + re.sub(r"[^a-z0-9]+", "_", field.lower()).strip("_")


FIELD_METRICS = tuple(field_metric(f) for f in FIELDS)
TABLE_METRICS = HEADLINE + ("parse_success_rate",) + FIELD_METRICS


def _checked(records: list[dict], path, case_ids: set[str]) -> list[dict]:
    for i, rec in enumerate(records, 1):
        where = f"{path}:{i}"
        if not isinstance(rec, dict) or not {"case_id", "condition", "annotations"} <= set(rec):
            raise ScievalsError(where, "record lacks case_id/condition/annotations",
                                "write predictions with scievals.autogkb.predict")
        if rec["case_id"] not in case_ids:
            raise ScievalsError(where, f"unknown case_id {rec['case_id']!r}",
                                "predictions must be made from the same case file")
    return records


def score_records(cases: list[dict], records: list[dict], threshold: float):
    """(per-article frame, review sections by condition)."""
    truths = {c["case_id"]: c for c in cases}
    rows, sections = [], {}
    conditions = sorted({r["condition"] for r in records}) or ["missing"]
    by_key = {(r["case_id"], r["condition"]): [] for r in records}
    for r in records:
        by_key[(r["case_id"], r["condition"])].append(r)
    for condition in conditions:
        for case_id, case in truths.items():
            recs = by_key.get((case_id, condition)) or [None]
            if recs == [None]:
                log.warning("no prediction for %s under %s: scored 0", case_id, condition)
            for rec in recs:
                ok = rec is not None and rec.get("parse_status") == "ok"
                ev = evaluate(rec["annotations"] if ok else [], case["truth"], threshold)
                fields = {field_metric(f): v for f, v in ev.field_similarity.items()}
                rows.append({
                    "case_id": case_id, "condition": condition,
                    "sample_index": rec.get("sample_index", 0) if rec else 0,
                    **{m: getattr(ev, m) for m in HEADLINE}, "parse_success_rate": float(ok),
                    **fields, "n_predictions": ev.n_predictions, "n_truth": ev.n_truth,
                    "n_reference_matched": ev.n_reference_matched,
                    "n_one_to_one": ev.n_one_to_one, "n_duplicates": ev.n_duplicates,
                    "parse_status": rec.get("parse_status") if rec else "missing",
                    "parse_error": rec.get("parse_error") if rec else None,
                    UNITS_COLUMN: encode(matched_units(rec["annotations"], ev) if ok else []),
                })
                if rec is None or rec.get("sample_index", 0) == 0:
                    sections.setdefault(condition, []).append(article_section(case, rec, ev))
    frame = pd.DataFrame(rows)
    return frame, sections


def _usage_items(usage: dict, condition: str) -> list[dict]:
    """The usage rows of one condition: a refinement turn's own (``turns``), else its own
    summary when the run had several temperature arms (``conditions``), else the job's (turn
    0 when there are turns)."""
    turns = (usage or {}).get("turns") or {}
    if condition in turns:
        return usage_metric_rows(turns[condition])
    usage = (usage.get("conditions") or {}).get(condition, usage) if usage else usage
    if not usage or not usage.get("requests"):
        return []
    return usage_metric_rows({k: v for k, v in usage.items() if k != "turns"})


def with_samples(cases: list[dict], records: list[dict], per_case: pd.DataFrame,
                 threshold: float):
    """Best-of-k, consensus, within-article spread and agreement of the headline metrics
    where an article was answered more than once (:mod:`scievals.stats.samples`): (frame,
    the metrics they were derived from, the ranges with theirs)."""
    truths = {c["case_id"]: c["truth"] for c in cases}
    parsed = {(r["case_id"], r["condition"], int(r.get("sample_index") or 0)): r["annotations"]
              for r in records if r.get("parse_status") == "ok"}

    def score_one(case_id: str, annotations) -> dict:
        ev = evaluate(annotations or [], truths[case_id], threshold)
        return {m: getattr(ev, m) for m in HEADLINE}

    answers = SampleAnswers(consensus=experiments.consensus, keys=experiments.sample_keys,
                            score=score_one)
    return sample_metrics(per_case, HEADLINE, parsed, answers, METRIC_RANGES)


def provenance_for(cases_jsonl, curation_report_json, config_hash: str) -> Provenance:
    report = read_json(curation_report_json)
    return Provenance(benchmark=BENCHMARK, dataset=report["dataset"],
                      dataset_sha256=sha256_file(cases_jsonl), config_hash=config_hash)


def score_model(cases_jsonl, predictions_jsonl, provenance: Provenance, bootstrap: dict,
                threshold: float, out_csv, per_case_csv, review_md, model: str,
                usage_json=None) -> pd.DataFrame:
    cases = read_cases(cases_jsonl)
    records = _checked(read_jsonl(predictions_jsonl), predictions_jsonl,
                       {c["case_id"] for c in cases})
    if not records:
        raise ScievalsError(predictions_jsonl, "no predictions", "run the predict step first")
    per_case, sections = score_records(cases, records, threshold)
    per_case, sampled, ranges = with_samples(cases, records, per_case, threshold)
    usage = read_json(usage_json) if usage_json else {}
    tables = [result_rows(provenance, model, condition, items + _usage_items(usage, condition))
              for condition, items in arm_items(per_case, records, TABLE_METRICS, sampled, bootstrap,
                                                ranges, TURN_METRICS).items()]
    write_result_table(out_csv, pd.concat(tables, ignore_index=True))
    per_case.insert(0, "model", model)
    write_csv(per_case_csv, per_case)
    parts = [[f"# Condition `{c}`", ""] + [line for s in secs for line in s + [""]]
             for c, secs in sections.items()]
    write_text(review_md, render_review(model, provenance.dataset, parts))
    return per_case


def score(job: ScoreJob) -> pd.DataFrame:
    """The stage contract's score entry: one model's records against the curated articles
    (truth ``cases`` and ``curation``; setting ``threshold``; outputs ``table``, ``per_case``
    and ``review``)."""
    provenance = provenance_for(job.truth["cases"], job.truth["curation"], job.config_hash)
    return score_model(job.truth["cases"], job.prediction, provenance, dict(job.bootstrap),
                       job.settings["threshold"], job.outputs["table"], job.outputs["per_case"],
                       job.outputs["review"], model=job.model, usage_json=job.usage)
