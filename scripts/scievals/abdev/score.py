"""The abdev score step: read each file once, merge once, compute each table once.

:func:`score` (one :class:`~scievals.common.jobs.ScoreJob`) and :func:`score_batch` (a batch
of own files) are what the score rules call, through :func:`score_files`: one prediction file per ``abdev_score``
job, a batch of the user's own files per ``abdev_score_own_<k>`` job (the truth is read
and verified once per job). The CLI's ``abdev score`` uses :func:`read_inputs` and
:func:`merge` the same way. :func:`evaluate_model` is the reference's public API on two
CSV paths.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from scievals.abdev.clusters import truth_clusters
from scievals.abdev.constants import CV_DATASET, PROPERTY_LIST, REFERENCE_CV_COLUMNS
from scievals.abdev.csv_files import read_csv_checked
from scievals.abdev.metrics import extended_table, merge_predictions, reference_rows
from scievals.abdev.validate import ValidationReport, check_predictions, read_predictions
from scievals.common import notices
from scievals.common.errors import ScievalsError
from scievals.common.io import read_json, sha256_file, write_csv
from scievals.common.jobs import ScoreJob
from scievals.common.provenance import Provenance
from scievals.stats.intervals import interval_method
from scievals.common.table_files import stored_error, write_not_scored
from scievals.common.tables import RESULT_COLUMNS, result_rows, write_result_table

log = logging.getLogger(__name__)


def read_truth(truth_path: str | os.PathLike, fold_col: str | None) -> pd.DataFrame:
    """The truth's scoring columns: ``antibody_name``, the assays and ``fold_col`` (GDPa1's DNA
    columns double the parse time and are never used here)."""
    return read_csv_checked(truth_path, "truth", {"antibody_name", *PROPERTY_LIST, fold_col})


def read_checked_predictions(
    pred_path: str | os.PathLike, truth: pd.DataFrame, fold_col: str | None, shown_as: str = "",
    per_fold: bool = True,
) -> tuple[pd.DataFrame | None, ValidationReport]:
    """The prediction frame (None if unreadable) and its validation against ``truth``.

    ``shown_as`` is the path the report names (the user's own file a job works on a copy of).
    """
    report = ValidationReport(path=shown_as or str(pred_path))
    preds = read_predictions(pred_path, report)
    if preds is not None:
        check_predictions(preds, report, truth, fold_col, per_fold)
    return preds, report


def read_inputs(
    pred_path: str | os.PathLike, truth_path: str | os.PathLike, fold_col: str | None,
    per_fold: bool = True,
) -> tuple[pd.DataFrame | None, pd.DataFrame, ValidationReport]:
    """The prediction frame (None if unreadable), the truth frame and the predictions' validation
    (``per_fold``: for cross-validation scoring)."""
    truth = read_truth(truth_path, fold_col)
    preds, report = read_checked_predictions(pred_path, truth, fold_col, per_fold=per_fold)
    return preds, truth, report


def raise_on_errors(report: ValidationReport) -> list[str]:
    """Log the warnings; one ScievalsError listing every error, if any. Returns the warnings."""
    for warning in report.warnings:
        log.warning("%s: %s", report.path, warning)
    if not report.ok:
        raise ScievalsError(
            report.path,
            f"{len(report.errors)} validation error(s): " + " | ".join(report.errors),
            "fix the file; `python -m scievals abdev validate --pred FILE --truth TRUTH` lists every problem",
        )
    return report.warnings


def merge(
    preds: pd.DataFrame, truth: pd.DataFrame, pred_path, truth_path, fold_col: str | None
) -> tuple[pd.DataFrame, list[str]]:
    """The reference's left join and the assays to score (the prediction file's, in its order)."""
    properties = [c for c in preds.columns if c in PROPERTY_LIST]
    merged = merge_predictions(truth, preds, properties, fold_col, where=f"{pred_path} vs {truth_path}")
    return merged, properties


def evaluate_model(
    preds_path,
    target_path,
    model_name: str,
    dataset_name: str | None = None,
    fold_col: str | None = None,
    num_folds: int = 5,
    split: str = "test",
) -> list[dict]:
    """Score a prediction CSV against a truth CSV; the reference's public API.

    Rows as :func:`scievals.abdev.metrics.reference_rows`. No validation beyond
    the reference's (use :func:`read_inputs` for that); errors where the
    reference would crash are one :class:`ScievalsError`.
    """
    cross_validation = dataset_name == CV_DATASET
    preds = read_csv_checked(preds_path, "prediction")
    truth = read_csv_checked(target_path, "truth", {"antibody_name", *PROPERTY_LIST, fold_col or ""})
    merged, properties = merge(preds, truth, preds_path, target_path, fold_col if cross_validation else None)
    return reference_rows(
        merged, properties, model_name, dataset_name, fold_col, num_folds, split, where=str(preds_path)
    )


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


def _long_table(extended: pd.DataFrame, provenance: Provenance, model: str,
                ci_method: str = "percentile") -> pd.DataFrame:
    """The long result table: one condition ``fold=<label>`` per fold row of ``extended``."""
    frames = []
    for fold, rows in extended.groupby("fold", sort=False):
        metrics = [
            {
                "metric": f"{r.assay}:{r.metric}",
                "value": r.value,
                "ci_low": r.ci_low,
                "ci_high": r.ci_high,
                "n": int(r.n),
                "ci_method": ci_method if pd.notna(r.ci_low) else "",
            }
            for r in rows.itertuples(index=False)
        ]
        frames.append(result_rows(provenance, model, f"fold={fold}", metrics))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=RESULT_COLUMNS)


@dataclass(frozen=True)
class ScoreTarget:
    """One model's prediction file and the two tables its scoring writes."""

    model: str
    pred: str
    table: str
    reference: str
    origin: str = ""  # the user's own file ``pred`` is a copy of: errors name it instead


def _drop_copy(target, error: ScievalsError) -> None:
    """A refused own file's copy in results/ (abdev_import_own_<k> copied it when its header
    was right) keeps only the error, not the user's rows: nothing of a refused file stays."""
    if target.origin and stored_error(target.pred) is None:
        write_not_scored(target.pred, error)


def _invalid_files(failures: list[ScievalsError], total: int) -> ScievalsError:
    """One error for the invalid files of a job (each one's own error is logged first)."""
    if len(failures) == 1:
        return failures[0]
    for failure in failures:
        log.error(failure.one_line())
    return ScievalsError(
        ", ".join(failure.where for failure in failures),
        f"{len(failures)} of the job's {total} prediction files are invalid (each error is logged above)",
        "fix them and re-run; the job writes no table until all of its files are valid",
    )


def score_files(
    targets: Sequence[ScoreTarget],
    truth_path,
    source_json,
    fold_col: str,
    num_folds: int,
    bootstrap: dict,
    config_hash: str,
    clusters_path=None,
) -> list[pd.DataFrame]:
    """Score every target's out-of-fold predictions; write its reference CSV and long table.

    The truth is read and checked against ``source_json`` once. Every file is validated
    before any is scored, one :class:`ScievalsError` names every invalid file, and the
    tables are written only when all targets scored, so a failed job leaves no table.

    A target's ``reference`` CSV holds the reference's CV rows (columns ``spearman,
    top_10_recall, fold, dataset, assay, model, split``; the dataset is the source's name +
    ``_cross_validation``, so demo results say ``GDPa1-demo``). Its ``table`` is the long
    result table: condition ``fold=<k>``, ``fold=aggregated``, ``fold=average``; metrics
    ``<assay>:spearman``, ``<assay>:top_10_recall``, ``<assay>:top_10_recall_tie_robust``
    with bootstrap CIs (``bootstrap = {n_resamples, seed}``) and ``n`` scored rows.
    """
    truth = read_truth(truth_path, fold_col)
    source = _source(source_json, truth_path)
    dataset = f"{source['dataset']}_cross_validation"
    # CIs resample whole sequence clusters (scievals.abdev.clusters; ``clusters_path`` is the
    # download job's sequence_clusters.csv, else the truth is clustered here)
    cluster_of = truth_clusters(truth_path, fold_col, clusters_path)
    method = interval_method(bootstrap)
    ci_method = "bca-cluster" if method == "bca" else "percentile-cluster"
    provenance = Provenance(
        benchmark="abdev", dataset=dataset, dataset_sha256=source["sha256"], config_hash=config_hash
    )
    loaded, failures = [], []
    for target in targets:
        refused = stored_error(target.pred)  # refused before it was copied (copy_own.py)
        if refused is not None:
            failures.append((target, refused))
            continue
        preds, report = read_checked_predictions(target.pred, truth, fold_col, shown_as=target.origin)
        try:
            raise_on_errors(report)
        except ScievalsError as exc:
            failures.append((target, exc))
        else:
            loaded.append((target, preds))
    for target, exc in failures:
        _drop_copy(target, exc)
    if failures and not loaded:
        raise _invalid_files([exc for _, exc in failures], len(targets))

    results = []
    for target, preds in loaded:
        try:
            merged, properties = merge(preds, truth, target.pred, truth_path, fold_col)
            rows = reference_rows(
                merged, properties, target.model, CV_DATASET, fold_col, num_folds, where=str(target.pred)
            )
            extended = extended_table(
                merged,
                properties,
                fold_col,
                rows,
                n_resamples=int(bootstrap.get("n_resamples", 1000)),
                seed=int(bootstrap.get("seed", 0)),
                clusters=merged["antibody_name"].astype(str).map(cluster_of).fillna(-1)
                .to_numpy(dtype=int),
                method=method,
            )
        except ScievalsError as exc:
            _drop_copy(target, exc)
            raise exc.naming(target.pred, target.origin) if target.origin else exc from None
        reference = pd.DataFrame(rows, columns=REFERENCE_CV_COLUMNS)
        reference["dataset"] = dataset
        results.append((target, reference,
                        _long_table(extended, provenance, target.model, ci_method)))

    # Invalid own files beside valid ones: the valid ones' tables are kept (a failed job would
    # lose them), each invalid one gets its error where its table would be, so the summary
    # job reading it fails the run with that line (common.table_files.write_not_scored).
    scored = ", ".join(target.origin or target.pred for target, _ in loaded)
    for target, exc in failures:
        log.error(exc.one_line())
        notices.record("not_scored", "abdev",
                       f"{target.origin or target.pred} was not scored (its error ends the run); "
                       f"the valid own files of its score job were: {scored}")
        write_not_scored(target.reference, exc)
        write_not_scored(target.table, exc)
    for target, reference, table in results:
        write_csv(target.reference, reference)
        write_result_table(target.table, table)
        log.info("abdev %s on %s: %d reference rows, %d table rows",
                 target.model, dataset, len(reference), len(table))
    return [table for _, _, table in results]


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
    """:func:`score_files` for one prediction file; returns its long table."""
    target = ScoreTarget(model, str(pred_path), str(out_csv), str(out_reference_csv))
    return score_files([target], truth_path, source_json, fold_col, num_folds, bootstrap, config_hash)[0]


def score_batch(jobs: Sequence[ScoreJob]) -> list[pd.DataFrame]:
    """Score a batch of jobs that share the truth and settings (an ``abdev_score_own_<k>``
    rule): the truth is read once, every file is valid before any table is written."""
    first = jobs[0]
    targets = [ScoreTarget(job.model, str(job.prediction), str(job.outputs["table"]),
                           str(job.outputs["reference"]), job.origin) for job in jobs]
    return score_files(targets, first.truth["truth"], first.truth["source"],
                       fold_col=first.settings["fold_col"],
                       num_folds=int(first.settings["num_folds"]),
                       bootstrap=dict(first.bootstrap), config_hash=first.config_hash,
                       clusters_path=first.truth.get("clusters"))


def score(job: ScoreJob) -> pd.DataFrame:
    """The stage contract's score entry: one model's out-of-fold predictions (truth ``truth``,
    ``source`` and, in the workflow, ``clusters``; outputs ``table`` and ``reference``;
    settings ``fold_col``, ``num_folds``)."""
    return score_batch([job])[0]
