"""Prediction-file validation: the reference's four checks, then what it misses.

:func:`validate_prediction_format` reproduces ``abdev_core.evaluation_validate``
exactly (same checks, order and messages). :func:`validate_prediction_file`
adds the checks the reference documents but never runs, which otherwise turn
into silently wrong numbers: non-numeric cells (ranked as text by the
reference), NaN predictions, names unknown to the truth, truth antibodies
without a prediction, and a fold column that disagrees with the truth.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from scievals.abdev.constants import DEFAULT_FOLD_COL, GDPA1_COLUMNS, HELDOUT_COLUMNS, PROPERTY_LIST
from scievals.abdev.csv_files import csv_header, read_csv
from scievals.abdev.metrics import MIN_ROWS
from scievals.abdev.own_header import missing_column_errors, separator_error
from scievals.common.names import named_with_hints

MAX_LISTED = 5  # how many offending names/rows a message spells out
# Columns a prediction file may carry besides the scored ones: those of the truth (a copy of
# GDPa1 with the predictions filled in) and of the heldout file. Anything else is a column the
# scorer would drop without a word (``HIC_score`` for ``HIC``), so it is an error.
KNOWN_COLUMNS = {"antibody_name", *PROPERTY_LIST, *GDPA1_COLUMNS, *HELDOUT_COLUMNS}


@dataclass
class ValidationReport:
    """Errors make a file unusable; warnings change what gets scored."""

    path: str
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def validate_prediction_format(df: pd.DataFrame) -> tuple[bool, list[str]]:
    """The reference's four format checks; all run, errors accumulate in this order."""
    errors = missing_column_errors(df.columns)
    if "antibody_name" in df.columns and df["antibody_name"].isna().any():
        errors.append("antibody_name column contains NaN values")
    if "antibody_name" in df.columns:
        duplicated = df["antibody_name"].duplicated()
        if duplicated.any():
            errors.append(f"Found {duplicated.sum()} duplicate antibody_name values")
    return len(errors) == 0, errors


def _flat(text) -> str:
    """One line: a quoted CSV field or a parser message may hold line breaks."""
    return " ".join(str(text).split()) if "\n" in str(text) or "\r" in str(text) else str(text)


def _listing(items, limit: int = MAX_LISTED) -> str:
    items = [_flat(i) for i in items]
    shown = ", ".join(items[:limit])
    return shown + (f", ... ({len(items) - limit} more)" if len(items) > limit else "")


def _names(names, limit: int = MAX_LISTED) -> str:
    """Antibody names quoted as Python literals: a trailing space, a tab or a zero-width
    character is what makes a name unknown, and unquoted it cannot be seen."""
    return _listing([repr(str(n)) for n in names], limit)


def _row_label(df: pd.DataFrame, index) -> str:
    """'line 7 (abc-mab)': the CSV line (header is line 1) and the antibody name if any."""
    if not isinstance(df.index, pd.RangeIndex):  # rows longer than the header (refused too)
        return f"row {_flat(index)!r}"
    line = int(index) + 2
    if "antibody_name" in df.columns and pd.notna(df.at[index, "antibody_name"]):
        return f"line {line} ({_flat(df.at[index, 'antibody_name'])})"
    return f"line {line}"


def _column_errors(header: list[str], fold_col: str | None) -> list[str]:
    """Duplicated and unknown header names (pandas would rename the one and ignore the other)."""
    errors = []
    duplicated = sorted({c for c in header if c and header.count(c) > 1}, key=header.index)
    if duplicated:
        errors.append(
            f"column(s) {_listing(repr(c) for c in duplicated)} appear more than once in the "
            "header; only the first would be scored: keep one column per name"
        )
    known = KNOWN_COLUMNS | ({fold_col} if fold_col else set())
    # An empty header cell is an index column written by pandas (read as 'Unnamed: 0').
    unknown = [c for c in dict.fromkeys(header) if c.strip() and c not in known]
    if unknown:
        meant = ["antibody_name", *PROPERTY_LIST, *([fold_col] if fold_col else [])]
        named = named_with_hints(unknown, meant)
        errors.append(
            f"unknown column(s) {_listing(named)}: scoring would ignore them; the scored columns "
            f"are {PROPERTY_LIST} (exact, case-sensitive), beside antibody_name and the truth's "
            "own columns"
        )
    return errors


def _scorable_errors(
    df: pd.DataFrame, truth: pd.DataFrame, fold_col: str | None, properties: list[str],
    per_fold: bool,
) -> list[str]:
    """Assays that scoring would refuse: fewer than MIN_ROWS antibodies with both a prediction
    and a measurement, overall or (cross-validation, the workflow's scoring) in a fold."""
    if df["antibody_name"].isna().any() or df["antibody_name"].duplicated().any():
        return []  # already a format error
    errors = []
    by_name = df.set_index("antibody_name")
    for prop in properties:
        if prop not in truth.columns:
            continue
        predicted = pd.to_numeric(truth["antibody_name"].map(by_name[prop]), errors="coerce")
        both = predicted.notna() & pd.to_numeric(truth[prop], errors="coerce").notna()
        n = int(both.sum())
        if n < MIN_ROWS:
            errors.append(
                f"{prop}: only {n} antibodies have both a prediction and a measurement; scoring "
                f"needs at least {MIN_ROWS} (top-10% recall takes int(0.1 n) of them): predict "
                "every antibody of the truth file"
            )
        elif per_fold and fold_col and fold_col in truth.columns:
            counts = both.groupby(truth[fold_col]).sum()
            short = [f"{fold} ({int(count)})" for fold, count in counts.items() if count < MIN_ROWS]
            if short:
                errors.append(
                    f"{prop}: fold(s) {_listing(short)} have fewer than {MIN_ROWS} antibodies with "
                    "both a prediction and a measurement; cross-validation scoring (the "
                    "workflow's) scores every fold: predict every antibody of every fold"
                )
    return errors


def _non_numeric_errors(df: pd.DataFrame, columns: list[str]) -> list[str]:
    errors = []
    for col in columns:
        series = df[col]
        if pd.api.types.is_bool_dtype(series):
            errors.append(f"column {col!r} holds True/False values, not numbers")
            continue
        if pd.api.types.is_numeric_dtype(series):
            continue
        bad = series.notna() & pd.to_numeric(series, errors="coerce").isna()
        cells = [f"{_row_label(df, i)}: {series[i]!r}" for i in series.index[bad]]
        errors.append(
            f"column {col!r} has {len(cells)} non-numeric value(s) ({_listing(cells)}); "
            "write plain numbers and leave missing values empty"
        )
    return errors


def _non_finite_errors(df: pd.DataFrame, columns: list[str]) -> list[str]:
    """inf/-inf: pandas reads them as numbers, and they would rank as the extremes."""
    errors = []
    for col in columns:
        series = df[col]
        if not pd.api.types.is_float_dtype(series):
            continue
        infinite = np.isinf(series.to_numpy())
        if infinite.any():
            cells = [f"{_row_label(df, i)}: {series[i]}" for i in series.index[infinite]]
            errors.append(
                f"column {col!r} has {len(cells)} infinite value(s) ({_listing(cells)}); "
                "predictions must be finite numbers (leave a missing one empty)"
            )
    return errors


def _nan_warnings(df: pd.DataFrame, columns: list[str]) -> list[str]:
    warnings = []
    for col in columns:
        empty = df[col].isna()
        if empty.any():
            names = df.loc[empty, "antibody_name"] if "antibody_name" in df.columns else df.index[empty]
            warnings.append(
                f"{col}: {int(empty.sum())} of {len(df)} predictions are missing (NaN) and are not "
                f"scored for {col}: {_names(names)}"
            )
    return warnings


def read_truth_for_checks(truth_path: str | os.PathLike, fold_col: str | None) -> tuple[pd.DataFrame | None, str]:
    """The truth's names and folds for :func:`check_predictions`, or (None, the error)."""
    truth_path = Path(truth_path)
    if not truth_path.exists():
        return None, f"Truth file not found: {truth_path}"
    try:
        # Only the columns checked here: GDPa1's DNA columns make a full parse twice as slow.
        truth = read_csv(truth_path, {"antibody_name", fold_col, *PROPERTY_LIST})
    except Exception as exc:  # noqa: BLE001 - any parser failure is reported, as for predictions
        return None, f"Failed to read truth CSV: {_flat(exc)}"
    if "antibody_name" not in truth.columns:
        return None, f"Truth file {truth_path} has no 'antibody_name' column"
    return truth, ""


def _truth_checks(df: pd.DataFrame, truth: pd.DataFrame, fold_col: str | None) -> tuple[list[str], list[str]]:
    errors: list[str] = []
    warnings: list[str] = []
    names = df["antibody_name"].dropna()
    truth_names = set(truth["antibody_name"].dropna())
    unknown = [n for n in names.unique() if n not in truth_names]
    if unknown:
        warnings.append(
            f"{len(unknown)} antibody name(s) are not in the truth file and are ignored by scoring: "
            f"{_names(unknown)}"
        )
    predicted = set(names)
    missing = [n for n in truth["antibody_name"].dropna() if n not in predicted]
    if missing:
        warnings.append(
            f"{len(missing)} of {len(truth)} truth antibodies have no prediction and are scored "
            f"as NaN (left out of every metric): {_names(missing)}"
        )
    if fold_col and fold_col in df.columns and fold_col in truth.columns:
        truth_folds = truth.drop_duplicates("antibody_name").set_index("antibody_name")[fold_col]
        known = df[df["antibody_name"].isin(truth_names)]
        expected = known["antibody_name"].map(truth_folds)
        given = known[fold_col]
        # Compare as numbers where possible: '1' and 1.0 name the same fold.
        given_num = pd.to_numeric(given, errors="coerce")
        expected_num = pd.to_numeric(expected, errors="coerce")
        differs = ~((given_num == expected_num) | (given.astype(str) == expected.astype(str)))
        if differs.any():
            bad = [
                f"{str(name)!r} (file {g!r}, truth {e!r})"
                for name, g, e in zip(known["antibody_name"][differs], given[differs], expected[differs])
            ]
            errors.append(
                f"column {fold_col!r} disagrees with the truth for {len(bad)} antibodies: "
                f"{_listing(bad)}; scoring always uses the truth's folds, so these predictions "
                "were probably made with the wrong training split"
            )
    return errors, warnings


def read_predictions(pred_path: str | os.PathLike, report: ValidationReport) -> pd.DataFrame | None:
    """The prediction CSV, or None with the reference's first error (not found / cannot read)."""
    if not Path(pred_path).exists():
        report.errors.append(f"File not found: {pred_path}")
        return None
    try:
        frame = read_csv(pred_path)
        # pandas renames a repeated name ('HIC.1'): the raw header tells duplicates apart
        frame.attrs["header"] = csv_header(pred_path)
        return frame
    except Exception as exc:  # noqa: BLE001 - the reference reports any read failure this way
        report.errors.append(f"Failed to read CSV: {_flat(exc)}")
        return None


def check_predictions(
    df: pd.DataFrame,
    report: ValidationReport,
    truth: pd.DataFrame | None = None,
    fold_col: str | None = DEFAULT_FOLD_COL,
    per_fold: bool = True,
) -> ValidationReport:
    """Add every problem of a loaded prediction frame to ``report`` (see :func:`validate_prediction_file`).

    ``truth`` (with ``antibody_name``, the assays and, if it has one, the fold column) adds
    the checks against the truth; ``per_fold`` (cross-validation scoring, the workflow's)
    also asks for enough scorable antibodies in every fold.
    """
    separator = separator_error(df.attrs.get("header") or [str(c) for c in df.columns])
    if separator:  # one error, not the three the one merged column would raise
        report.errors.append(separator)
        return report
    _, format_errors = validate_prediction_format(df)
    report.errors.extend(format_errors)
    if df.empty:  # one message, not one per column
        report.errors.append(
            f"no rows: the file has a header ({_listing(df.columns)}) but no predictions; "
            "write one line per antibody"
        )
        return report
    properties = [c for c in df.columns if c in PROPERTY_LIST]
    report.errors.extend(_non_numeric_errors(df, properties))
    report.errors.extend(_non_finite_errors(df, properties))
    report.warnings.extend(_nan_warnings(df, properties))
    report.errors.extend(_column_errors(df.attrs.get("header") or [str(c) for c in df.columns],
                                        fold_col))
    if not isinstance(df.index, pd.RangeIndex):
        report.errors.append(
            "some lines have more values than the header has names (pandas then reads the first "
            "column as row labels and shifts every column); give every line one value per column"
        )
    if truth is not None and "antibody_name" in df.columns:
        errors, warnings = _truth_checks(df, truth, fold_col)
        report.errors.extend(errors)
        report.warnings.extend(warnings)
        if not any("non-numeric" in e or "True/False" in e for e in report.errors):
            report.errors.extend(_scorable_errors(df, truth, fold_col, properties, per_fold))
    return report


def validate_prediction_file(
    pred_path: str | os.PathLike,
    truth_path: str | os.PathLike | None = None,
    fold_col: str | None = DEFAULT_FOLD_COL,
) -> ValidationReport:
    """Validate a prediction CSV; with ``truth_path`` also check it against the truth.

    The first errors (``File not found: {path}`` / ``Failed to read CSV: {exc}``)
    are returned alone, as in the reference; then the four reference checks
    (a header without rows stops here with one error), then non-numeric and
    infinite cells (errors), NaN predictions, unknown and missing antibodies
    (warnings) and a disagreeing fold column (error).
    """
    report = ValidationReport(path=str(pred_path))
    df = read_predictions(pred_path, report)
    if df is None:
        return report
    truth, truth_error = (None, "") if truth_path is None else read_truth_for_checks(truth_path, fold_col)
    check_predictions(df, report, truth, fold_col)
    if truth_error and "antibody_name" in df.columns and not df.empty:
        report.errors.append(truth_error)
    return report
