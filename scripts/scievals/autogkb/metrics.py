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
exceed 100 and gives duplicates nothing (predictions whose ten normalised fields are
identical take part once), precision/recall/F1 of the one-to-one matches (pairs >=
threshold; precision over all predictions, duplicates included) and the mean similarity
of each field over those matched pairs. Duplication cannot raise any of these, so the
leaderboard ranks by ``one_to_one_score``.

Speed: each annotation is normalised once, each field's similarity is computed once per
pair of distinct values, pairs that cannot reach the threshold are pruned before the
free-text fields are compared, and the scores that count are summed with numpy in the
reference's order of operations, so they are bit-identical to the pairwise loop
(``reference_score``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

# v2: duplicates take part in one-to-one once; v3: t-intervals, ci_method, sample spread
# v4: effective-n Wilson intervals, variance split; v5: best-of-k, consensus, within-article
# SD and agreement rows of articles answered k times; v6: the units column, calibration rows
METRICS_VERSION = "autogkb-metrics-v6"
# one_to_one_score runs 0-100; the reference score has no upper bound (every duplicate of a
# matching annotation counts: a file with each annotation ten times scores ~10x); precision,
# recall, f1, parse success and field similarities 0-1 (docs/statistics.md: ranges)
METRIC_RANGES = {"score": (0.0, float("inf")), "one_to_one_score": (0.0, 100.0),
                 "*": (0.0, 1.0)}
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


class FieldSims:
    """One field's similarities between the distinct predicted and curated values.

    Small fields get their whole distinct-value table; large ones (free text, every value
    different) are compared only for the pairs asked for, each distinct pair once.
    """

    def __init__(self, pred_values: Sequence[str], truth_values: Sequence[str]) -> None:
        self.p_values, self.pred_index = _distinct(pred_values)
        self.g_values, self.truth_index = _distinct(truth_values)
        self.size = len(self.p_values) * len(self.g_values)
        self.table: np.ndarray | None = None
        self._known: dict[int, float] = {}

    def compute_table(self) -> np.ndarray:
        self.table = np.array([[similarity(p, g) for g in self.g_values] for p in self.p_values],
                              dtype=float).reshape(len(self.p_values), len(self.g_values))
        return self.table

    def matrix(self) -> np.ndarray:
        """The P x G similarities (the whole table must be computed)."""
        table = self.table if self.table is not None else self.compute_table()
        return table[np.ix_(self.pred_index, self.truth_index)]

    def at(self, preds: np.ndarray, truths: np.ndarray) -> np.ndarray:
        """Similarities of the pairs (preds[k], truths[k])."""
        if self.table is not None:
            return self.table[self.pred_index[preds], self.truth_index[truths]]
        n_g = len(self.g_values)
        codes, inverse = np.unique(self.pred_index[preds] * n_g + self.truth_index[truths],
                                   return_inverse=True)
        known = self._known
        for code in codes.tolist():
            if code not in known:
                p, g = divmod(code, n_g)
                known[code] = similarity(self.p_values[p], self.g_values[g])
        values = np.fromiter((known[c] for c in codes.tolist()), dtype=float, count=len(codes))
        return values[inverse.ravel()]


def field_sims(pred_rows: Sequence[tuple[str, ...]],
               truth_rows: Sequence[tuple[str, ...]]) -> list[FieldSims]:
    return [FieldSims([r[k] for r in pred_rows], [r[k] for r in truth_rows])
            for k in range(len(FIELDS))]


def pair_matrix(fields: Sequence[FieldSims]) -> np.ndarray:
    """Every P x G pair score, summed field by field in the reference's order."""
    weighted = None
    for field, weight in zip(fields, FIELD_WEIGHTS.values()):
        term = field.matrix() * weight
        weighted = term if weighted is None else weighted + term  # 0.0 + x == x exactly
    return weighted / TOTAL_WEIGHT


# A field with more distinct value pairs than this (and than 1/8 of all pairs) is compared
# pair by pair after pruning instead of as a whole table.
CHEAP_PAIRS = 4096
# Slack on the pruning bound, so float rounding never drops a pair that reaches the threshold.
_BOUND_SLACK = 1e-9


def pair_scores(fields: Sequence[FieldSims], threshold: float) -> np.ndarray:
    """P x G pair scores, exact (bit-identical to the loop) wherever they reach ``threshold``.

    Every score the metrics read is one that reaches the threshold, so pairs that cannot
    are pruned: small fields first give a partial sum, each large field is then compared
    only for pairs whose partial sum plus the weight still to come can reach the threshold.
    Pruned pairs hold 0.0 (their true score is below the threshold). Without a large field
    (or with threshold <= 0) every pair is scored.
    """
    n_p, n_g = len(fields[0].pred_index), len(fields[0].truth_index)
    weights = list(FIELD_WEIGHTS.values())
    cheap_limit = max(CHEAP_PAIRS, n_p * n_g // 8)
    large = sorted((k for k, f in enumerate(fields) if f.size > cheap_limit),
                   key=lambda k: fields[k].size)
    if not large or threshold <= 0:
        return pair_matrix(fields)
    partial = np.zeros((n_p, n_g))
    remaining = TOTAL_WEIGHT
    for k, field in enumerate(fields):
        if k not in large:
            partial += field.matrix() * weights[k]
            remaining -= weights[k]
    preds, truths = np.nonzero((partial + remaining) / TOTAL_WEIGHT >= threshold - _BOUND_SLACK)
    partial = partial[preds, truths]
    for k in large:
        partial += fields[k].at(preds, truths) * weights[k]
        remaining -= weights[k]
        alive = (partial + remaining) / TOTAL_WEIGHT >= threshold - _BOUND_SLACK
        preds, truths, partial = preds[alive], truths[alive], partial[alive]
    exact = np.zeros(len(preds))
    for field, weight in zip(fields, weights):  # the reference's order
        exact = exact + field.at(preds, truths) * weight
    scores = np.zeros((n_p, n_g))
    scores[preds, truths] = exact / TOTAL_WEIGHT
    return scores


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
    n_duplicates: int  # predictions repeating an earlier one's ten normalised fields
    field_similarity: dict[str, float]  # mean over the one-to-one pairs (NaN if none)
    pairs: list[tuple[int, int, float]]  # (prediction, truth, pair score) one-to-one

    def as_dict(self) -> dict:
        return {
            "score": self.score, "one_to_one_score": self.one_to_one_score,
            "precision": self.precision, "recall": self.recall, "f1": self.f1,
            "n_predictions": self.n_predictions, "n_truth": self.n_truth,
            "n_reference_matched": self.n_reference_matched, "n_one_to_one": self.n_one_to_one,
            "n_duplicates": self.n_duplicates,
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


def distinct_rows(rows: Sequence[tuple[str, ...]]) -> np.ndarray:
    """Index of the first of each group of identical (normalised) rows, in order."""
    seen: dict[tuple[str, ...], int] = {}
    for i, row in enumerate(rows):
        seen.setdefault(row, i)
    return np.fromiter(seen.values(), dtype=np.intp, count=len(seen))


def count_duplicates(annotations: Sequence[Mapping]) -> int:
    """How many annotations repeat an earlier one as the scorer sees it (ten normalised fields)."""
    return len(annotations) - len(distinct_rows(normalised_rows(annotations)))


def evaluate(predictions: Sequence[Mapping], truths: Sequence[Mapping],
             threshold: float = DEFAULT_THRESHOLD) -> Evaluation:
    """Headline and extra metrics of one prediction list against one ground-truth list."""
    n_p, n_g = len(predictions), len(truths)
    nan_fields = dict.fromkeys(FIELDS, math.nan)
    if n_p == 0 or n_g == 0:
        return Evaluation(0.0, 0.0, 0.0, 0.0, 0.0, n_p, n_g, 0, 0, 0, nan_fields, [])
    pred_rows = normalised_rows(predictions)
    fields = field_sims(pred_rows, normalised_rows(truths))
    scores = pair_scores(fields, threshold)
    headline, n_kept = headline_from_matrix(scores, n_g, threshold)
    # One-to-one: maximise the total of pairs that reach the threshold (others count 0).
    # Identical predictions take part once: a copy would otherwise win a second curated
    # annotation its original was not assigned to.
    distinct = distinct_rows(pred_rows)
    eligible = np.where(scores[distinct] >= threshold, scores[distinct], 0.0)
    # Imported here: scipy.optimize costs 0.3 CPU-s of imports, and every autogkb job
    # (download, curate, predict: field names from this module) would pay it for the one
    # that matches records (score).
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(eligible, maximize=True)
    keep = eligible[rows, cols] >= threshold
    rows, cols = distinct[rows[keep]], cols[keep]
    matched = len(rows)
    one_to_one = sum(sorted(scores[rows, cols].tolist(), reverse=True)) / n_g * 100
    precision, recall = matched / n_p, matched / n_g
    f1 = 2 * precision * recall / (precision + recall) if matched else 0.0
    per_field = ({f: float(t.at(rows, cols).mean()) for f, t in zip(FIELDS, fields)}
                 if matched else nan_fields)
    pairs = [(int(i), int(j), float(scores[i, j])) for i, j in zip(rows, cols)]
    return Evaluation(headline, one_to_one, precision, recall, f1, n_p, n_g, n_kept, matched,
                      n_p - len(distinct), per_field, pairs)
