"""The gating benchmark's experiment functions (common/experiments.py, DESIGN round 6).

:func:`units`: the scored units of one parsed reply are its gates. Every predicted node
except the root is one unit (the root is "All Events" or the like: always present, nothing
to be sure of). Its key is the name normalised as ``hierarchy_f1`` normalises
(:func:`scievals.gating.normalize.norm`), and it is correct when that key is among the
case's truth names normalised the same way. A name repeated in the tree is one unit (the
first node that carries it gives the confidence), as ``hierarchy_f1`` counts distinct names.
Worked example: docs/gating.md, "Confidence and calibration".
"""

from __future__ import annotations

from typing import Any

from scievals.common.experiments import Unit, stated_confidence
from scievals.gating import tree as T
from scievals.gating.normalize import norm


def _hierarchy(parsed: Any) -> dict | None:
    """The tree of a parser's answer: a ParseResult (its ``hierarchy``) or the tree itself."""
    if parsed is None:
        return None
    if isinstance(parsed, dict):
        return parsed
    return getattr(parsed, "hierarchy", None)


def truth_keys(item: dict) -> set[str]:
    """The case's truth gate names, normalised as ``hierarchy_f1`` does."""
    root = T.clean_tree(item)
    return {norm(name) for name in T.names(root)} if root else set()


def units(parsed: Any, item: dict) -> list[Unit]:
    """One :class:`Unit` per distinct normalised gate name below the root, in tree order."""
    tree = _hierarchy(parsed)
    if not tree:
        return []
    truth = truth_keys(item)
    out: dict[str, Unit] = {}
    for node, parent, _depth in T.walk(tree):
        if parent is None:
            continue
        key = norm(node["name"])
        if key not in out:
            out[key] = Unit(key, key in truth, stated_confidence(node.get("confidence")))
    return list(out.values())
