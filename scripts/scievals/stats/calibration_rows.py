"""Calibration rows and paired comparisons from the units of a per-prediction table.

A benchmark's score step stores each prediction's scored units (``experiments.units``) in
the ``units`` column of its per_case.csv (:func:`encode`: JSON ``[[key, correct,
confidence or null], ...]``); from that column this module writes the calibration rows of
each condition (:func:`condition_items`) and the comparisons' set metrics
(:func:`set_metrics`), for every benchmark alike.

Two confidence sources, told apart by the metric name (stats.calibration.metric_name):

- ``verbal`` (no suffix: ``calibration_ece``): what the reply stated; rows only where some
  unit of the condition states one (a run without ``confidence: on`` has none: no rows, not
  a coverage of 0 that looks like a failure);
- ``agreement`` (``calibration_ece:agreement``): with two or more samples of a case, the
  share of the case's samples whose units hold a unit's key is its confidence (every
  sample's units take part).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from scievals.common.io import user_file
from scievals.stats import calibration as C
from scievals.stats.comparisons import (
    Arm,
    SetMetric,
    arm_labels,
    model_datasets,
    per_case_means,
)

UNITS_COLUMN = "units"


def encode(units: Iterable) -> str:
    """The units column's text of one prediction (common.experiments.Unit objects)."""
    return json.dumps([[u.key, bool(u.correct), u.confidence] for u in units],
                      separators=(",", ":"))


def decode(text) -> list[tuple[str, bool, float | None]]:
    """(key, correct, confidence or None) per unit of one cell (empty for a blank cell)."""
    if not isinstance(text, str) or not text:
        return []
    return [(str(k), bool(c), None if v is None else float(v)) for k, c, v in json.loads(text)]


def unit_rows(frame: pd.DataFrame, source: str) -> list[tuple[str, bool, float | None]]:
    """(case_id, correct, confidence) per unit of the predictions in ``frame`` (one
    condition of one model), the confidence of ``source``."""
    cells = [(str(case), int(sample or 0), decode(text)) for case, sample, text in
             zip(frame["case_id"], frame.get("sample_index", 0), frame[UNITS_COLUMN])]
    if source == "verbal":
        return [(case, correct, conf) for case, _, units in cells
                for _key, correct, conf in units]
    by_case: dict[str, list[set[str]]] = {}
    for case, _, units in cells:
        by_case.setdefault(case, []).append({key for key, _, _ in units})
    out = []
    for case, _, units in cells:
        samples = by_case[case]
        if len(samples) < 2:
            continue
        out += [(case, correct, sum(key in s for s in samples) / len(samples))
                for key, correct, _ in units]
    return out


def sources(frame: pd.DataFrame) -> list[str]:
    """The sources ``frame`` (one arm) has: verbal when a unit states a confidence,
    agreement when a case has two or more samples."""
    if UNITS_COLUMN not in frame.columns or frame.empty:
        return []
    out = []
    if any(conf is not None for text in frame[UNITS_COLUMN] for _, _, conf in decode(text)):
        out.append("verbal")
    if frame.groupby("case_id").size().max() >= 2:
        out.append("agreement")
    return out


def condition_items(per_prediction: pd.DataFrame, bootstrap: Mapping) -> dict[str, list[dict]]:
    """condition -> the calibration metric dicts (common.tables.result_rows' shape)."""
    out: dict[str, list[dict]] = {}
    if UNITS_COLUMN not in per_prediction.columns:
        return out
    for condition, frame in per_prediction.groupby("condition", sort=True):
        items = []
        for source in sources(frame):
            items += C.arm_rows(C.ArmUnits.from_rows(unit_rows(frame, source)), bootstrap,
                                source)
        out[str(condition)] = items
    return out


def set_metrics(frame: pd.DataFrame, dataset: str, bootstrap: Mapping | None = None,
                ) -> list[SetMetric]:
    """The calibration metrics of every (source, metric) two or more arms of ``frame`` (a
    dataset's per-prediction rows of every model: ``model``, ``condition``, ``case_id``,
    ``units``) have, as SetMetrics: rows are cases, every arm's statistic is computed on the
    same case resamples (a paired cluster bootstrap), restricted to the cases it stated
    confidences for."""
    if UNITS_COLUMN not in frame.columns or frame.empty:
        return []
    frame = frame.assign(_arm=arm_labels(frame))
    cases = sorted(set(frame["case_id"].astype(str)))
    code = {c: i for i, c in enumerate(cases)}
    bootstrap = dict(bootstrap or {})
    weights = C.case_weights(len(cases), bootstrap)
    # the normal test's variance: the bootstrap's K / (K - 1) and the t / z widening of the
    # tables' intervals (stats.calibration.interval), squared (benchmarks/interval_coverage.py:
    # type-I 0.08-0.09 at 15-17 cases with K / (K - 1) alone)
    stretch = C.cluster_variance_factor([len(cases)]) * C.small_k_factor(len(cases)) ** 2
    out = []
    for source in C.SOURCES:
        arms, units = [], []
        for label, rows in frame.groupby("_arm", sort=True):
            if source not in sources(rows):
                continue
            got = [(code[c], y, v) for c, y, v in unit_rows(rows, source) if v is not None]
            if not got:
                continue
            first = rows.iloc[0]
            arms.append(Arm(str(label), str(first["model"]), str(first["condition"])))
            units.append(tuple(np.asarray(col, dtype=float) for col in zip(*got)))
        if len(arms) < 2:
            continue
        available = np.zeros((len(arms), len(cases)), dtype=bool)
        for i, (case, _, _) in enumerate(units):
            available[i, case.astype(np.int64)] = True
        for metric in C.METRICS[:-1]:
            out.append(SetMetric(dataset, C.metric_name(metric, source), tuple(arms), available,
                                 _replicates(metric, units, weights), 1.0,
                                 "paired cluster bootstrap", variance_factor=stretch))
    return out


def _replicates(metric: str, units: Sequence[tuple[np.ndarray, ...]], weights: np.ndarray):
    def replicates(arm: int, mask: np.ndarray) -> tuple[float, np.ndarray]:
        case, y, c = units[arm]
        case = case.astype(np.int64)
        keep = mask[case]
        if not keep.any():
            return math.nan, np.full(len(weights), np.nan)
        c, y, case = c[keep], y[keep], case[keep]
        point = float(C.POINT[metric](c, y))
        if not len(weights):
            return point, np.array([])
        return point, C.weighted(metric, c, y, weights[:, case])
    return replicates


def per_case_with_calibration(inputs: Mapping[str, Sequence[str]], models: Sequence[str],
                              headline: Sequence[str], section: Mapping,
                              bootstrap: Mapping | None = None, ranges: Mapping | None = None,
                              ) -> list:
    """The registry's comparisons items of a benchmark with units (gating, autogkb): the
    default per-case means of the headline metrics, then the calibration set metrics of the
    arms that have confidences, per dataset."""
    out = list(per_case_means(inputs, models, headline, section, bootstrap, ranges))
    frames = [pd.read_csv(user_file(path), dtype={"condition": str, "case_id": str})
              for path in inputs["per_case"]]
    frames = [f for f in frames if not f.empty and UNITS_COLUMN in f.columns]
    if not frames:
        return out
    frame = pd.concat(frames, ignore_index=True)
    frame["condition"] = frame["condition"].fillna("")
    frame["dataset"] = frame["model"].astype(str).map(model_datasets(inputs["table"]))
    for dataset, rows in frame.groupby("dataset", sort=True):
        out += set_metrics(rows, str(dataset), bootstrap)
    return out
