"""What k samples of one item say beyond their mean (``n_samples`` >= 2).

See docs/experiment-dimensions.md.

Per metric ``m`` of a benchmark whose model answered each item k times, added as per-item
columns of the per-sample frame (constant within an item, so the tables' per-item mean,
interval and paired comparisons treat them like any metric):

- ``m_best_of_k``: the best sample's value (the largest; the smallest for a metric where
  lower is better): an *oracle* upper bound, since choosing it needs the truth;
- ``m_consensus``: the value of the one answer built from the k parsed samples by the
  benchmark's ``consensus`` (majority vote), scored like any reply: self-consistency;
- ``m_consensus_gain``: ``m_consensus`` less the item's mean over samples (``m``); its row's
  interval is the paired test's (sign-flip with range guard, as in comparisons.csv) of the
  consensus against a single sample on the same items (:func:`gain_rows`);
- ``m_within_sd``: the standard deviation (ddof 1) of the item's sample values: 0 for a
  model that always answers alike, NaN for an item with fewer than two values;

and once per item ``sample_agreement``: the mean Jaccard index |A & B| / |A | B| over the
k (k - 1) / 2 pairs of samples' key sets (gates, annotations; two empty sets agree fully).

A benchmark supplies three functions (:class:`SampleAnswers`): its ``consensus``, its
``sample_keys`` and a scorer of one parsed answer of an item; everything else is here once.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from scievals.stats.intervals import means_by_condition, metric_range
from scievals.stats.paired import paired_mean_tests

BEST, CONSENSUS, GAIN, WITHIN_SD = "_best_of_k", "_consensus", "_consensus_gain", "_within_sd"
SUFFIXES = (BEST, CONSENSUS, GAIN, WITHIN_SD)
AGREEMENT = "sample_agreement"


@dataclass(frozen=True)
class SampleAnswers:
    """A benchmark's part: ``consensus(parsed_list) -> parsed``, ``keys(parsed) -> set`` and
    ``score(case_id, parsed) -> {metric: value}`` (``parsed`` None: a reply that did not
    parse)."""

    consensus: Callable[[Sequence[Any]], Any]
    keys: Callable[[Any], Collection[Hashable]]
    score: Callable[[str, Any], Mapping[str, float]]


def jaccard(a: Collection, b: Collection) -> float:
    """|A & B| / |A | B|; 1 for two empty sets (two samples naming nothing agree)."""
    a, b = set(a), set(b)
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def mean_pairwise_jaccard(key_sets: Sequence[Collection]) -> float:
    """The mean Jaccard index over every pair of samples; NaN for fewer than two samples."""
    pairs = [jaccard(a, b) for a, b in itertools.combinations(key_sets, 2)]
    return float(np.mean(pairs)) if pairs else math.nan


def derived_metrics(metrics: Iterable[str]) -> tuple[str, ...]:
    """The column names :func:`with_sample_metrics` adds for ``metrics``, in table order."""
    return tuple(m + s for m in metrics for s in SUFFIXES) + (AGREEMENT,)


def derived_ranges(ranges: Mapping | None, metrics: Iterable[str] = ()) -> dict:
    """The declared ranges (metric name or fnmatch pattern -> (low, high), first match wins)
    extended to the derived rows: before each declared entry ``p``, ``p_best_of_k`` and
    ``p_consensus`` with its range, ``p_consensus_gain`` with +-(hi - lo) (a gain of two
    values in [lo, hi]) and ``p_within_sd`` with [0, hi - lo] (an SD, ddof 1, of k such values:
    at most (hi - lo) / sqrt 2); ``sample_agreement`` is in [0, 1]. Patterns, so a ``*`` of
    the benchmark covers every metric's derived rows; ``metrics`` adds exact entries (for a
    metric no declared entry names). Idempotent: derived entries are not derived again."""
    declared = dict(ranges or {})
    out: dict = {AGREEMENT: (0.0, 1.0)}
    for name in list(metrics) + list(declared):
        if name == AGREEMENT or name.endswith(SUFFIXES):
            continue
        low, high = metric_range(declared, name)
        span = high - low
        out.setdefault(name + BEST, (low, high))
        out.setdefault(name + CONSENSUS, (low, high))
        out.setdefault(name + GAIN, (-span, span))
        out.setdefault(name + WITHIN_SD, (0.0, span))
    return {**out, **declared}


def repeated_conditions(per_sample: pd.DataFrame) -> list[str]:
    """The conditions in which some item was answered more than once."""
    sizes = per_sample.groupby(["condition", "case_id"]).size()
    return sorted({str(c) for (c, _), size in sizes.items() if size > 1})


def _best(values: np.ndarray, lower_is_better: bool) -> float:
    finite = values[np.isfinite(values)]
    if not finite.size:
        return math.nan
    return float(finite.min() if lower_is_better else finite.max())


def _sd(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    return float(np.std(finite, ddof=1)) if finite.size > 1 else math.nan


def _mean(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else math.nan


def item_summary(values: Mapping[str, Sequence[float]], parsed_list: Sequence[Any],
                 case_id: str, answers: SampleAnswers,
                 lower_is_better: Collection[str] = ()) -> dict[str, float]:
    """The derived values of one item from its samples' metric values and parsed answers."""
    agreed = answers.score(case_id, answers.consensus(list(parsed_list)))
    out: dict[str, float] = {}
    for metric, column in values.items():
        column = np.asarray(column, dtype=float)
        together = float(agreed[metric]) if agreed.get(metric) is not None else math.nan
        out[metric + BEST] = _best(column, metric in lower_is_better)
        out[metric + CONSENSUS] = together
        out[metric + GAIN] = together - _mean(column)
        out[metric + WITHIN_SD] = _sd(column)
    out[AGREEMENT] = mean_pairwise_jaccard([answers.keys(p) for p in parsed_list])
    return out


def with_sample_metrics(per_sample: pd.DataFrame, metrics: Sequence[str],
                        parsed: Mapping[tuple[str, str, int], Any], answers: SampleAnswers,
                        lower_is_better: Collection[str] = ()) -> pd.DataFrame:
    """``per_sample`` (``case_id``, ``condition``, ``sample_index`` and the ``metrics``) with
    the :func:`derived_metrics` columns, filled for the items of conditions that repeated an
    item (NaN elsewhere); unchanged when no condition did. ``parsed`` maps (case_id,
    condition, sample_index) to the parsed answer (missing or None: did not parse)."""
    conditions = repeated_conditions(per_sample)
    if not conditions:
        return per_sample
    frame = per_sample.copy()
    columns = derived_metrics(metrics)
    summaries = {}
    for (condition, case_id), rows in frame[frame["condition"].isin(conditions)].groupby(
            ["condition", "case_id"], sort=False):
        parsed_list = [parsed.get((case_id, condition, int(i)))
                       for i in rows["sample_index"]]
        summaries[(condition, case_id)] = item_summary(
            {m: rows[m].to_numpy(dtype=float) for m in metrics}, parsed_list, str(case_id),
            answers, lower_is_better)
    keys = list(zip(frame["condition"], frame["case_id"]))
    for column in columns:
        frame[column] = [summaries[k][column] if k in summaries else math.nan for k in keys]
    return frame


def sample_metrics(per_sample: pd.DataFrame, metrics: Sequence[str],
                   parsed: Mapping[tuple[str, str, int], Any], answers: SampleAnswers,
                   ranges: Mapping | None, lower_is_better: Collection[str] = (),
                   ) -> tuple[pd.DataFrame, tuple[str, ...], dict]:
    """What a score step needs: (the frame with the derived columns, the metrics they were
    derived from, the ranges extended to them); (``per_sample``, (), ``ranges``) when no
    item was answered twice, so a run without repeats writes exactly what it wrote before."""
    frame = with_sample_metrics(per_sample, metrics, parsed, answers, lower_is_better)
    if frame is per_sample:
        return per_sample, (), dict(ranges or {})
    return frame, tuple(metrics), derived_ranges(ranges, metrics)


def gain_rows(frame: pd.DataFrame, sampled: Sequence[str], ranges: Mapping | None,
              seed: int = 0) -> dict[str, list[dict]]:
    """condition -> the ``m_consensus_gain`` rows, each with the interval and method of the
    paired test the comparisons use (:func:`scievals.stats.paired.paired_mean_tests`) of the
    consensus against the mean of the samples on the same items. (The tables' interval of a
    mean in [-span, span] was far too wide here: it covered 1.000 in
    ``benchmarks/sample_coverage.py``.)"""
    out: dict[str, list[dict]] = {}
    for condition in repeated_conditions(frame):
        per_item = frame[frame["condition"] == condition].groupby("case_id")
        rows = []
        for metric in sampled:
            pair = np.column_stack([per_item[metric + CONSENSUS].mean().to_numpy(float),
                                    per_item[metric].mean().to_numpy(float)])
            low, high = metric_range(ranges, metric)
            tests = paired_mean_tests(pair, np.array([0]), np.array([1]), span=high - low,
                                      seed=seed, low=low if math.isfinite(low) else 0.0)
            if not tests.n[0]:
                rows.append({"metric": metric + GAIN, "value": math.nan, "n": 0})
                continue
            rows.append({"metric": metric + GAIN, "value": float(tests.diff[0]),
                         "ci_low": float(tests.ci_low[0]), "ci_high": float(tests.ci_high[0]),
                         "n": int(tests.n[0]), "ci_method": str(tests.method[0])})
        out[str(condition)] = rows
    return out


def means_with_samples(frame: pd.DataFrame, metrics: Sequence[str], sampled: Sequence[str],
                       bootstrap: Mapping, ranges: Mapping | None) -> dict[str, list[dict]]:
    """condition -> the table's metric rows (:func:`means_by_condition` of ``metrics``, with
    their sample spread) plus, for the ``sampled`` metrics (:func:`sample_metrics`), the
    best-of-k, consensus, within-item SD and agreement rows and the consensus gain rows
    (:func:`gain_rows`)."""
    derived = [m for m in derived_metrics(sampled) if not m.endswith(GAIN)] if sampled else []
    out = means_by_condition(frame, list(metrics) + derived, bootstrap, ranges,
                             spread=list(metrics))
    for condition, rows in gain_rows(frame, sampled, ranges,
                                     int(bootstrap.get("seed", 0))).items():
        out[condition] = out.get(condition, []) + rows
    return out
