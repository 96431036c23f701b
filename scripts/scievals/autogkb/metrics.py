"""Scores of predicted vs curated phenotype annotations (pure functions, no file I/O).

Headline (``score``): the AutoGKB reference scorer (``src/benchmark/pheno_benchmark.py`` on
DaneshjouLab/AutoGKB main, see docs/autogkb.md), kept with its quirks:

- ten fields with weights summing to 12; other keys are ignored and a missing key is null;
- each value normalised by ``normalise`` (lower case, whitespace runs -> one space, every
  ``,``/``;`` deleted); both empty -> 1.0, one empty -> 0.0, equal -> 1.0, substring either
  way -> 0.8, else Jaccard of whitespace tokens;
- pair score = weighted field similarity / 12; each prediction keeps its best pair if it
  is >= the threshold; score = 100 x sum of kept scores / |ground truth|. Several
  predictions may match the same ground truth, so duplicates raise the score above 100
  (ceiling 100 |P| / |G|); empty predictions or ground truth -> 0.

Extras, which the reference lacks: a one-to-one (Hungarian) matched score that cannot
exceed 100 and gives duplicates nothing, precision/recall/F1 of the one-to-one matches
(pairs >= threshold) and the mean similarity of each field over those matched pairs.

Speed: each annotation is normalised once, each field's similarity is computed once per
pair of distinct values and broadcast with numpy, in the reference's order of operations,
so every pair score is bit-identical to the pairwise loop (``reference_score``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

METRICS_VERSION = "autogkb-metrics-v1"
DEFAULT_THRESHOLD = 0.7

# Field -> weight, in the reference's order (CORE_FIELDS); the order fixes the float sums.
FIELD_WEIGHTS: dict[str, float] = {
    "Variant/Haplotypes": 1.0,
    "Gene": 1.0,
    "Drug(s)": 1.5,
    "Phenotype Category": 0.5,
    "Alleles": 1.5,
    "Is/Is Not associated": 1.0,
    "Direction of effect": 2.0,
    "Phenotype": 2.0,
    "When treated with/exposed to/when assayed with": 0.5,
    "Comparison Allele(s) or Genotype(s)": 1.0,
}
FIELDS = tuple(FIELD_WEIGHTS)
TOTAL_WEIGHT = sum(FIELD_WEIGHTS.values())  # 12.0, exact in binary

_SPACES = re.compile(r"\s+")
_SEPARATORS = re.compile(r"[,;]+")


def normalise(value) -> str:
    """The reference's normalisation: None -> "", str(), lower/strip, one space, drop , and ;."""
    if value is None:
        return ""
    text = str(value).lower().strip()
    text = _SPACES.sub(" ", text)
    return _SEPARATORS.sub("", text)


def similarity(p: str, g: str) -> float:
    """Similarity of two normalised values (the reference's ``_compare_field``)."""
    if not p and not g:
        return 1.0
    if not p or not g:
        return 0.0
    if p == g:
        return 1.0
    if p in g or g in p:
        return 0.8
    p_tokens, g_tokens = set(p.split()), set(g.split())
    if p_tokens and g_tokens:
        return len(p_tokens & g_tokens) / len(p_tokens | g_tokens)
    return 0.0


def normalised_rows(annotations: Sequence[Mapping]) -> list[tuple[str, ...]]:
    return [tuple(normalise(a.get(f)) for f in FIELDS) for a in annotations]


def pair_score(pred: Mapping, truth: Mapping) -> float:
    """Weighted similarity of one predicted and one curated annotation (0..1)."""
    weighted = 0.0
    for field, weight in FIELD_WEIGHTS.items():
        weighted += similarity(normalise(pred.get(field)), normalise(truth.get(field))) * weight
    return weighted / TOTAL_WEIGHT


def reference_score(predictions: Sequence[Mapping], truths: Sequence[Mapping],
                    threshold: float = DEFAULT_THRESHOLD) -> float:
    """The straightforward O(P x G) loop, step by step as the reference does it.

    Kept as the executable definition the fast path is tested against.
    """
    if not predictions or not truths:
        return 0.0
    kept = [(i, j, s) for i, p in enumerate(predictions) for j, g in enumerate(truths)
            if (s := pair_score(p, g)) >= threshold]
    kept.sort(key=lambda item: item[2], reverse=True)
    used: set[int] = set()
    scores = []
    for i, _j, s in kept:
        if i not in used:
            used.add(i)
            scores.append(s)
    return sum(scores) / len(truths) * 100


def _distinct(values: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Distinct values in first-seen order and each value's position among them."""
    positions: dict[str, int] = {}
    index = np.fromiter((positions.setdefault(v, len(positions)) for v in values), dtype=np.intp,
                        count=len(values))
    return list(positions), index


@dataclass(frozen=True)
class FieldTable:
    """One field's similarities between distinct values, and each annotation's value index:
    the P x G matrix is ``table[np.ix_(pred_index, truth_index)]``, never stored whole."""

    table: np.ndarray
    pred_index: np.ndarray
    truth_index: np.ndarray

    def at(self, preds: np.ndarray, truths: np.ndarray) -> np.ndarray:
        return self.table[self.pred_index[preds], self.truth_index[truths]]


def field_tables(pred_rows: Sequence[tuple[str, ...]],
                 truth_rows: Sequence[tuple[str, ...]]) -> list[FieldTable]:
    """Per field, each distinct (predicted, curated) value pair compared once."""
    out = []
    for k in range(len(FIELDS)):
        p_values, p_index = _distinct([r[k] for r in pred_rows])
        g_values, g_index = _distinct([r[k] for r in truth_rows])
        table = np.array([[similarity(p, g) for g in g_values] for p in p_values], dtype=float)
        out.append(FieldTable(table, p_index, g_index))
    return out


def pair_matrix(fields: Sequence[FieldTable]) -> np.ndarray:
    """P x G pair scores, summed field by field in the reference's order (bit-identical)."""
    weighted = None
    for field, weight in zip(fields, FIELD_WEIGHTS.values()):
        term = field.table[np.ix_(field.pred_index, field.truth_index)] * weight
        weighted = term if weighted is None else weighted + term  # 0.0 + x == x exactly
    return weighted / TOTAL_WEIGHT


@dataclass
class Evaluation:
    """All scores of one prediction list against one ground-truth list."""

    score: float  # the reference headline, 0..100 |P| / |G|
    one_to_one_score: float  # Hungarian, 0..100
    precision: float
    recall: float
    f1: float
    n_predictions: int
    n_truth: int
    n_reference_matched: int  # predictions kept by the reference (>= threshold)
    n_one_to_one: int  # one-to-one pairs >= threshold
    field_similarity: dict[str, float]  # mean over the one-to-one pairs (NaN if none)
    pairs: list[tuple[int, int, float]]  # (prediction, truth, pair score) one-to-one

    def as_dict(self) -> dict:
        return {
            "score": self.score, "one_to_one_score": self.one_to_one_score,
            "precision": self.precision, "recall": self.recall, "f1": self.f1,
            "n_predictions": self.n_predictions, "n_truth": self.n_truth,
            "n_reference_matched": self.n_reference_matched, "n_one_to_one": self.n_one_to_one,
            "field_similarity": dict(self.field_similarity),
        }


def headline_from_matrix(scores: np.ndarray, n_truth: int, threshold: float) -> tuple[float, int]:
    """Reference score from the pair matrix: each prediction's best pair if >= threshold,
    summed in descending order as the reference sums its sorted matches."""
    if scores.size == 0 or n_truth == 0:
        return 0.0, 0
    best = scores.max(axis=1)
    kept = sorted(best[best >= threshold].tolist(), reverse=True)
    return sum(kept) / n_truth * 100, len(kept)


def evaluate(predictions: Sequence[Mapping], truths: Sequence[Mapping],
             threshold: float = DEFAULT_THRESHOLD) -> Evaluation:
    """Headline and extra metrics of one prediction list against one ground-truth list."""
    n_p, n_g = len(predictions), len(truths)
    nan_fields = dict.fromkeys(FIELDS, math.nan)
    if n_p == 0 or n_g == 0:
        return Evaluation(0.0, 0.0, 0.0, 0.0, 0.0, n_p, n_g, 0, 0, nan_fields, [])
    fields = field_tables(normalised_rows(predictions), normalised_rows(truths))
    scores = pair_matrix(fields)
    headline, n_kept = headline_from_matrix(scores, n_g, threshold)
    # One-to-one: maximise the total of pairs that reach the threshold (others count 0).
    eligible = np.where(scores >= threshold, scores, 0.0)
    rows, cols = linear_sum_assignment(eligible, maximize=True)
    keep = eligible[rows, cols] >= threshold
    rows, cols = rows[keep], cols[keep]
    matched = len(rows)
    one_to_one = sum(sorted(scores[rows, cols].tolist(), reverse=True)) / n_g * 100
    precision, recall = matched / n_p, matched / n_g
    f1 = 2 * precision * recall / (precision + recall) if matched else 0.0
    per_field = ({f: float(t.at(rows, cols).mean()) for f, t in zip(FIELDS, fields)}
                 if matched else nan_fields)
    pairs = [(int(i), int(j), float(scores[i, j])) for i, j in zip(rows, cols)]
    return Evaluation(headline, one_to_one, precision, recall, f1, n_p, n_g, n_kept, matched,
                      per_field, pairs)
