"""The autogkb benchmark's experiment functions (common/experiments.py, DESIGN round 6).

:func:`units`: every predicted annotation is one unit. It is correct when the benchmark's
one-to-one matching (:func:`scievals.autogkb.metrics.evaluate`, pairs whose weighted field
similarity reaches the threshold, 0.7 by default) pairs it with a curated annotation, so the
share of correct units is the benchmark's ``precision``. A copy of an annotation (the same ten
normalised fields) takes part in the matching once: the copy is a wrong unit, as precision
counts it. Its key is its ten normalised fields joined, the same across samples of an article.
Worked example: docs/autogkb.md, "Confidence and calibration".
"""

from __future__ import annotations

from typing import Any

from scievals.autogkb.metrics import (
    DEFAULT_THRESHOLD,
    Evaluation,
    evaluate,
    normalised_rows,
)
from scievals.common.experiments import Unit, stated_confidence

KEY_SEPARATOR = " | "


def _annotations(parsed: Any) -> list[dict]:
    """The annotations of a parser's answer: a ParseResult (its ``annotations``) or the list."""
    if parsed is None:
        return []
    if isinstance(parsed, list):
        return parsed
    return list(getattr(parsed, "annotations", None) or [])


def unit_key(annotation: dict) -> str:
    """An annotation's identity: its ten normalised fields (metrics.normalise) joined."""
    return KEY_SEPARATOR.join(normalised_rows([annotation])[0])


def units(parsed: Any, item: dict, threshold: float = DEFAULT_THRESHOLD) -> list[Unit]:
    """One :class:`Unit` per predicted annotation, in the reply's order; ``item`` is the
    article with its curated ``truth`` list."""
    annotations = _annotations(parsed)
    if not annotations:
        return []
    return matched_units(annotations, evaluate(annotations, item.get("truth") or [], threshold))


def matched_units(annotations: list[dict], evaluation: Evaluation) -> list[Unit]:
    """:func:`units` from the annotations' evaluation already computed (the score step's)."""
    matched = {i for i, _j, _s in evaluation.pairs}
    return [Unit(unit_key(a), i in matched, stated_confidence(a.get("confidence")))
            for i, a in enumerate(annotations)]
