"""Gate-name normalisation: the reference's two normalisers and the benchmark's own.

- :func:`norm_reference` is the reference ``normalize_gate_name``: lowercase, drop
  parentheticals, nine ordered substring replacements ("positive" -> "+",
  " cells" -> "", "lymphocytes" -> "lymphs", ...), collapse whitespace.
  "T Cells (CD3+)" -> "t".
- :func:`norm` (used by ``hierarchy_f1``, ``structure_accuracy`` and critical-gate
  recall) adds one rule so that the seed's worked example holds: a lineage noun after
  a positive marker that by itself defines that lineage adds nothing ("CD4+ T cells"
  == "CD4+"). The noun stays after any other marker, so "CD16+ Monocytes" and
  "CD16+ NK cells" remain two gates.
- :func:`sem` is the reference ``normalize_gate_semantic``: the synonym table, first
  word-boundary hit in table order, tried on the lowercased name and then on
  ``norm_reference`` of it. Generic keys shadow specific ones on purpose of
  faithfulness: "CD4+ T cells (helper)" -> "t_cells".
"""

from __future__ import annotations

import functools
import re

from scievals.gating.reference import tables

_PARENTHETICAL = re.compile(r"\s*\([^)]*\)\s*")

# Lineage noun (after reference normalisation) -> markers whose positivity alone
# defines that lineage, so "cd4+ t" names the same gate as "cd4+". A marker shared by
# lineages (CD16, CD56, CD8 on NK cells, HLA-DR) is not listed: its noun is kept.
_LINEAGE_MARKERS = {
    "t": frozenset({"cd3", "cd3e", "cd4", "cd8", "cd8a", "cd8b", "tcrab", "tcrgd", "tcr"}),
    "b": frozenset({"cd19", "cd20", "cd22", "cd79a", "cd79b", "b220"}),
    "nk": frozenset({"nkp46", "cd335", "nk1.1"}),
    "monos": frozenset({"cd14"}),
}


@functools.lru_cache(maxsize=65536)
def norm_reference(name: str) -> str:
    text = _PARENTHETICAL.sub(" ", name.lower().strip())
    for old, new in tables().replacements:
        text = text.replace(old, new)
    return " ".join(text.split())


@functools.lru_cache(maxsize=65536)
def norm(name: str) -> str:
    text = norm_reference(name)
    words = text.split(" ")
    if len(words) >= 2 and words[-2].endswith("+") and \
            words[-2][:-1] in _LINEAGE_MARKERS.get(words[-1], ()):
        return " ".join(words[:-1])
    return text


def _synonym_lookup(text: str) -> str | None:
    tab = tables()
    hit = tab.synonyms.get(text)
    if hit is not None:
        return hit
    for (pattern, canonical), key in zip(tab.synonym_patterns, tab.synonyms):
        # The substring test is a cheap pre-filter: the regex needs the key anyway.
        if key in text and pattern.search(text):
            return canonical
    return None


@functools.lru_cache(maxsize=65536)
def sem(name: str) -> str:
    hit = _synonym_lookup(name.lower().strip())
    if hit is not None:
        return hit
    normalized = norm_reference(name)
    hit = _synonym_lookup(normalized)
    return hit if hit is not None else normalized


def is_valid_parent(child: str, parent: str) -> bool:
    """Reference ``is_valid_parent``: same canonical type, or an allowed ancestor type."""
    c, p = sem(child), sem(parent)
    return c == p or p in tables().hierarchy.get(c, ())
