"""Semantic F1 of gate names: the reference's embedding match, and a marker-guarded variant.

Reference (``specs/flow_gating.md`` section 4.3, ``evaluation/semantic_similarity.py``): each
distinct name, lowercased, its abbreviations expanded (:func:`reference_text`), is embedded with
all-MiniLM-L6-v2 (:mod:`embedding`); the cosine similarities of P x G are assigned one-to-one by
the Hungarian method (scipy ``linear_sum_assignment`` on 1 - similarity, a non-square matrix
padded with cost 1); an assigned pair is kept at similarity >= 0.70 and counts 1.0 when the
names are equal lowercased. ``semantic_f1``: p = kept/|P|, r = kept/|G|; ``weighted_semantic_f1``:
the same with the kept pairs' similarities summed instead of counted.

The embedding cannot read marker signs: with the reference's preprocessing CD16+ and CD16- NK
cells come out 0.992 similar, CD3+ and CD3- 0.972, Live and Dead 0.857, CD4+ and CD8+ T cells
0.833 (docs/gating.md, "Why the guard"; a test checks these four on the model). ``semantic_f1_marker_guarded`` scores like
``semantic_f1`` but a pair :func:`compatible` refuses gets similarity 0 before the assignment,
and its threshold is :data:`GUARDED_THRESHOLD` (chosen by ``benchmarks/gating_semantic.py`` on
the synonym table).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from scievals.gating.markers import ALWAYS_VALID, signed_references
from scievals.gating.panel import fold

THRESHOLD = 0.70
# Chosen on the synonym table (docs/gating.md, benchmarks/gating_semantic.py): the threshold
# with the best pair F1 (synonym pairs kept vs different-population pairs kept) under the guard.
GUARDED_THRESHOLD = 0.84
METRICS = ("semantic_f1", "weighted_semantic_f1", "semantic_f1_marker_guarded")

# The reference's abbreviation expansions, applied in this order, each once (its replace of the
# first occurrence, even inside a longer word, is kept).
_EXPANSIONS = (
    ("mono", "monocyte"), ("lymph", "lymphocyte"), ("dc", "dendritic cell"),
    ("nk", "natural killer"), ("treg", "regulatory t cell"), ("th1", "t helper 1"),
    ("th2", "t helper 2"), ("th17", "t helper 17"), ("pdc", "plasmacytoid dendritic cell"),
    ("mdc", "myeloid dendritic cell"),
)


def reference_text(name: str) -> str:
    """What the reference embeds for a gate name."""
    text = name.lower().strip()
    for short, long in _EXPANSIONS:
        if text == short or text.startswith(short + " ") or text.endswith(" " + short):
            text = text.replace(short, long, 1)
    return f"cell population: {text}"


def _key(name: str) -> str:
    return name.lower().strip()


# A viability dye (or "Live/Dead") followed by a sign; bare words "dead", "live", "viable".
_DYE = (r"(?<![a-z0-9])(?:live\s*/\s*dead|dead|viability|aqua|a?amine|zombie(?:\s*[a-z]+)?"
        r"|7-?aad|dapi|fvs\s*\d*|l/d|pi)")
_DYE_NEGATIVE = re.compile(_DYE + r"\s*(?:-|neg(?![a-z])|lo(?:w)?(?![a-z]))")
_DYE_POSITIVE = re.compile(_DYE + r"\s*(?:\+|pos(?![a-z])|hi(?:gh)?(?![a-z]))")
_DEAD = re.compile(r"(?<![a-z0-9])(?:dead|non-?viable)(?![a-z0-9])")
_LIVE = re.compile(r"(?<![a-z0-9])(?:live|viable)(?![a-z0-9])")
_DYE_NAME = re.compile(r"live\s*/\s*dead")  # the dye's name without a sign says neither


def viability(name: str) -> str | None:
    """"live", "dead" or None: what a gate name says about viability ("Live/Dead-" and
    "Zombie-" are live, "Dead" and "7-AAD+" dead)."""
    text = fold(name)
    if _DYE_NEGATIVE.search(text):
        return "live"
    if _DYE_POSITIVE.search(text):
        return "dead"
    text = _DYE_NAME.sub(" ", text)
    if _DEAD.search(text):
        return "dead"
    return "live" if _LIVE.search(text) else None


def _markers(name: str) -> dict[str, str]:
    """Marker -> sign of a gate name (viability and scatter left to :func:`viability`)."""
    out: dict[str, str] = {}
    for marker, sign in signed_references(name):
        if marker not in ALWAYS_VALID:
            out[marker] = sign if out.get(marker, sign) == sign else "?"
    return out


def compatible(a: str, b: str) -> bool:
    """May the two names be the same population? No when a marker both name has different
    signs (CD4+ vs CD4-), when both name markers and the sets differ (CD4+ T vs CD8+ T), or
    when one is live and the other dead. A name without markers ("Helper T cells") is left to
    the embedding."""
    if _key(a) == _key(b):
        return True
    va, vb = viability(a), viability(b)
    if va and vb and va != vb:
        return False
    ma, mb = _markers(a), _markers(b)
    if ma and mb and ma.keys() != mb.keys():
        return False
    return all(not ma[m] or not mb[m] or ma[m] == mb[m] for m in ma.keys() & mb.keys())


@dataclass(frozen=True)
class Assignment:
    pairs: tuple[tuple[str, str, float], ...]  # (predicted, true, similarity counted)
    n_pred: int
    n_true: int

    def f1(self, weighted: bool = False) -> float:
        total = sum(s for _, _, s in self.pairs) if weighted else float(len(self.pairs))
        p = total / self.n_pred if self.n_pred else 0.0
        r = total / self.n_true if self.n_true else 0.0
        return 2 * p * r / (p + r) if p + r > 0 else 0.0


def assign(pred: list[str], true: list[str], sim: np.ndarray, threshold: float) -> Assignment:
    """The reference's Hungarian match on a P x G similarity matrix."""
    # scipy.optimize only when scoring: a core import of gating.metrics stays light
    from scipy.optimize import linear_sum_assignment

    if not pred or not true:
        return Assignment((), len(pred), len(true))
    size = max(sim.shape)
    cost = np.ones((size, size))
    cost[:len(pred), :len(true)] = 1 - sim
    pairs = []
    for i, j in zip(*linear_sum_assignment(cost)):
        if i < len(pred) and j < len(true) and sim[i, j] >= threshold:
            exact = _key(pred[i]) == _key(true[j])
            # min: float32 rounding can put two texts that embed alike at 1.0000001
            pairs.append((pred[i], true[j], 1.0 if exact else min(1.0, float(sim[i, j]))))
    return Assignment(tuple(pairs), len(pred), len(true))


def assign_guarded(pred: list[str], true: list[str], sim: np.ndarray,
                   threshold: float = GUARDED_THRESHOLD) -> Assignment:
    """The guarded match: names equal lowercased are paired first (else the assignment could
    trade "All Events"/"All Events" for two cross pairs the guard lets through), then the
    Hungarian match of the rest with the pairs :func:`compatible` refuses at similarity 0."""
    true_at = {}
    for j, name in enumerate(true):
        true_at.setdefault(_key(name), j)
    exact = []
    for i, name in enumerate(pred):
        j = true_at.pop(_key(name), None)
        if j is not None:
            exact.append((i, j))
    rows = [i for i in range(len(pred)) if i not in {i for i, _ in exact}]
    cols = [j for j in range(len(true)) if j not in {j for _, j in exact}]
    rest_pred, rest_true = [pred[i] for i in rows], [true[j] for j in cols]
    allowed = np.array([[compatible(p, t) for t in rest_true] for p in rest_pred], dtype=bool)
    rest = assign(rest_pred, rest_true,
                  np.where(allowed, sim[np.ix_(rows, cols)], np.float32(0.0)).reshape(
                      len(rows), len(cols)), threshold) if rows and cols else Assignment((), 0, 0)
    pairs = tuple((pred[i], true[j], 1.0) for i, j in exact) + rest.pairs
    return Assignment(pairs, len(pred), len(true))


class SemanticScorer:
    """The three semantic metrics of one prediction, with one encoder for a whole run."""

    def __init__(self, encoder):
        self.encoder = encoder

    def similarity(self, pred: list[str], true: list[str]) -> np.ndarray:
        """Cosine similarities in float32, as the reference computes them."""
        a = self.encoder.encode([reference_text(n) for n in pred])
        b = self.encoder.encode([reference_text(n) for n in true])
        a = a / np.where((na := np.linalg.norm(a, axis=1, keepdims=True)) == 0, 1, na)
        b = b / np.where((nb := np.linalg.norm(b, axis=1, keepdims=True)) == 0, 1, nb)
        return a @ b.T

    def scores(self, pred_names: set[str], true_names: set[str]) -> dict[str, float]:
        pred, true = sorted(pred_names), sorted(true_names)
        if not pred or not true:
            return dict.fromkeys(METRICS, 0.0)
        sim = self.similarity(pred, true)
        plain = assign(pred, true, sim, THRESHOLD)
        return {"semantic_f1": plain.f1(), "weighted_semantic_f1": plain.f1(weighted=True),
                "semantic_f1_marker_guarded": assign_guarded(pred, true, sim).f1()}


def load_scorer(names=None) -> tuple[SemanticScorer | None, str]:
    """The scorer, or None and the one-line reason it is unavailable. With ``names`` (the
    gate names a job will score), their vectors are made now, from the disk cache or the
    model, so a model that fails to load is found here and not half-way through the scores;
    without, the model is loaded now."""
    # the encoder module's weights and tokenizer only when the metrics are asked for
    from scievals.gating.embedding import MiniLM, Unavailable

    try:
        encoder = MiniLM.installed()
        if names is None:
            encoder.load()
        else:
            encoder.encode(sorted({reference_text(n) for n in names}))
        return SemanticScorer(encoder), ""
    except Unavailable as exc:
        return None, unavailable_reason(exc)


def unavailable_reason(exc: Exception) -> str:
    return f"{', '.join(METRICS)} not computed: {exc}"
