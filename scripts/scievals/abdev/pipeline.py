"""What the Snakemake rules call: validate, score, write the result tables."""

from __future__ import annotations

import logging

import pandas as pd

from scievals.abdev.constants import CV_DATASET, REFERENCE_CV_COLUMNS
from scievals.abdev.metrics import evaluate_model, extended_scores
from scievals.abdev.validate import validate_prediction_file
from scievals.common.errors import ScievalsError
from scievals.common.io import read_json, sha256_file, write_csv
from scievals.common.provenance import Provenance
from scievals.common.tables import RESULT_COLUMNS, result_rows, write_result_table

log = logging.getLogger(__name__)


def check_predictions(pred_path, truth_path, fold_col: str) -> list[str]:
    """Validate a prediction file against the truth; raise on errors, return (and log) warnings."""
    report = validate_prediction_file(pred_path, truth_path, fold_col)
    for warning in report.warnings:
        log.warning("%s: %s", pred_path, warning)
    if not report.ok:
        raise ScievalsError(
            str(pred_path),
            f"{len(report.errors)} validation error(s): " + " | ".join(report.errors),
            "fix the file; `python -m scievals abdev validate --pred FILE --truth TRUTH` lists every problem",
        )
    return report.warnings


def _source(source_json, truth_path) -> dict:
    source = read_json(source_json)
    for key in ("dataset", "sha256"):
        if key not in source:
            raise ScievalsError(str(source_json), f"lacks {key!r}", "re-run the abdev download rule")
    actual = sha256_file(truth_path)
    if actual != source["sha256"]:
        raise ScievalsError(
            str(truth_path),
            f"sha256 {actual} differs from the one recorded in {source_json} ({source['sha256']})",
            "the truth changed after download: re-run the abdev download rule",
        )
    return source


def score_to_tables(
    pred_path,
    truth_path,
    source_json,
    model: str,
    fold_col: str,
    num_folds: int,
    bootstrap: dict,
    config_hash: str,
    out_csv,
    out_reference_csv,
) -> pd.DataFrame:
    """Score one model's out-of-fold predictions; write the reference CSV and the long table.

    ``out_reference_csv`` holds the reference's CV rows (columns ``spearman,
    top_10_recall, fold, dataset, assay, model, split``; the dataset is the
    source's name + ``_cross_validation``, so demo results say ``GDPa1-demo``).
    ``out_csv`` is the long result table: condition ``fold=<k>``,
    ``fold=aggregated``, ``fold=average``; metrics ``<assay>:spearman``,
    ``<assay>:top_10_recall``, ``<assay>:top_10_recall_tie_robust`` with
    bootstrap CIs (``bootstrap = {n_resamples, seed}``) and ``n`` scored rows.
    Nothing is written when validation or scoring fails.
    """
    check_predictions(pred_path, truth_path, fold_col)
    source = _source(source_json, truth_path)
    dataset = f"{source['dataset']}_cross_validation"

    reference = pd.DataFrame(
        evaluate_model(pred_path, truth_path, model, CV_DATASET, fold_col, num_folds), columns=REFERENCE_CV_COLUMNS
    )
    reference["dataset"] = dataset
    extended = extended_scores(
        pred_path,
        truth_path,
        fold_col,
        num_folds,
        n_resamples=int(bootstrap.get("n_resamples", 1000)),
        seed=int(bootstrap.get("seed", 0)),
    )

    provenance = Provenance(
        benchmark="abdev", dataset=dataset, dataset_sha256=source["sha256"], config_hash=config_hash
    )
    frames = []
    for fold in extended["fold"].drop_duplicates():
        rows = extended[extended["fold"] == fold]
        metrics = [
            {
                "metric": f"{r.assay}:{r.metric}",
                "value": r.value,
                "ci_low": r.ci_low,
                "ci_high": r.ci_high,
                "n": int(r.n),
            }
            for r in rows.itertuples(index=False)
        ]
        frames.append(result_rows(provenance, model, f"fold={fold}", metrics))
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=RESULT_COLUMNS)

    write_csv(out_reference_csv, reference)
    write_result_table(out_csv, table)
    log.info("abdev %s on %s: %d reference rows, %d table rows", model, dataset, len(reference), len(table))
    return table
