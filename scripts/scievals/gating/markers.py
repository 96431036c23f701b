"""Marker tokens in gate names and panels (for the hallucination metric).

The reference flags a gate when no panel marker is a *substring* of its name,
which misses "CD38+" on a panel with CD3 and flags "Non-classical monocytes".
Here a gate name is split into marker tokens instead:

1. Lowercase, Greek letters spelled in Latin (γδ -> gd), Unicode dashes -> "-".
2. Words are split at "+", "-" and "/" into atoms; an atom followed by a sign
   ("+", "-", "/", or a suffix such as "bright", "dim", "hi", "lo") is *signed*.
3. Atoms joined by "-" or "/" are merged when the merge is a known marker
   ("HLA-DR", "F4/80", "T-bet") or reads as one ("PD-1", "IL-17A", "IFN-g": a word
   followed by a number or a single letter).
4. A marker reference is a signed atom that looks like a marker (has a digit, or is
   a known marker name) or any bare "CD<number>" atom. Words such as "non" in
   "Non-classical" are not marker references.
5. A reference is valid when it equals a panel marker (or one of its aliases in
   parentheses, or a synonym from ``panel.ALIAS_GROUPS``), or is that marker without a
   one-letter suffix ("CD8" for "CD8a"), or is a scatter/time/viability dimension.

A "-" is read as a negative sign only at the end of a word or before another
marker ("CD3-CD56+"), not in "Th1-like" or "Non-classical"; a lone "/" joins
alternatives ("CD16/32", "S-G2/M") and is not a sign.

Population names (the reference's ``POPULATION_REQUIRED_MARKERS``) are matched at a
word start, not inside a longer number ("Th2" does not match "Th22"), longest
first without overlaps; :data:`EXTRA_REQUIRED` adds accepted markers the reference
table lacks (e.g. CXCR3 for Th1, NK1.1 for mouse NK cells).
"""

from __future__ import annotations

import functools
import re

from scievals.gating.panel import ALIASES, PanelIndex, compact, fold, marker_keys
from scievals.gating.reference import tables

# Expression-level suffixes written straight after a marker ("CD56bright", "CD16hi").
_LEVEL_SUFFIX = re.compile(r"^(.*?\d.*?|[a-z]{2,}?)(bright|dim|high|hi|low|lo|int|neg|pos)$")

# Dimensions that are never hallucinations: scatter, time, viability dyes, DNA stains.
ALWAYS_VALID = frozenset({
    "fsc", "ssc", "fsca", "fsch", "fscw", "ssca", "ssch", "sscw", "time", "scatter",
    "live", "dead", "livedead", "viability", "viable", "vivid", "aqua", "amine", "aamine",
    "zombie", "7aad", "dapi", "pi", "fvs", "ld", "cisplatin", "dna", "iridium", "ir191",
    "ir193", "event", "length", "eventlength", "beads", "bead", "debris", "singlets",
    "doublets", "cells",
})

# Common marker names without digits: a signed word in this set is a marker reference.
KNOWN_MARKERS = frozenset({
    "hladr", "hladq", "hla", "igd", "igm", "iga", "ige", "igg", "igk", "igl", "igkappa",
    "iglambda", "foxp3", "tbet", "eomes", "helios", "perforin", "granzyme", "gzma", "gzmb",
    "gzmk", "tigit", "ifng", "ifny", "tnf", "tnfa", "tcrgd", "tcrab", "tcrb", "tcr", "lin",
    "lineage", "dump", "sca1", "ckit", "kit", "slan", "plzf", "rorgt", "gata3", "pdl1",
    "pdl2", "ctla4", "icos", "cla", "klrg1", "mhcii", "b220", "nk11", "nkp46", "nkp30",
    "nkp44", "siglech", "siglecf", "siglec8", "fcer1a", "fceri", "gr1", "ly6c", "ly6g",
    "f480", "cx3cr1", "streptavidin", "gfp", "trail", "cd", "crth2", "lag3", "tim3", "ki67",
    "bcl2", "bcl6", "irf4", "blimp1", "cd1c", "epcam", "ter119", "sirpa", "xcr1", "dectin",
    "mertk", "tmem119", "st2", "clec9a", "ncam", "pd1", "tox", "tcf1",
})

# Markers that also identify a population, besides the reference's required list
# (Th subsets by chemokine receptors, mouse/bovine NK, monocyte and pDC markers).
EXTRA_REQUIRED = {
    "th1": ("cxcr3", "cd183"), "th2": ("ccr4", "cd194", "crth2", "cd294"),
    "th17": ("ccr6", "cd196", "cd161"), "tfh": ("cd185",),
    "nk cells": ("nk11", "nkp46", "cd335", "cd49b", "cd94", "nkg2a", "cd159a"),
    "classical mono": ("ly6c",), "non-classical mono": ("ly6c", "slan"),
    "intermediate mono": ("ly6c",), "plasmacytoid": ("siglech", "bst2", "cd317", "pdca1"),
    "dendritic": ("mhcii", "iaie"), "nkt": ("nk11", "tcrb", "cd1d"),
    "plasma": ("blimp1", "irf4"),
}
# Populations the reference table lacks whose names contain a listed one
# ("stem cell memory" T cells are not stem cells): longest match wins.
EXTRA_POPULATIONS = {
    "stem cell memory": ("cd95", "cd45ra", "ccr7", "cd197", "cd122"),
    "stem cell-like memory": ("cd95", "cd45ra", "ccr7", "cd197", "cd122"),
    "memory stem": ("cd95", "cd45ra", "ccr7", "cd197", "cd122"),
}

_ATOM_SPLIT = re.compile(r"([+\-/]+)")
_WORD_SPLIT = re.compile(r"[\s()\[\]{},;:|]+")
_CD_ATOM = re.compile(r"^cd\d+[a-z]*$")


def _merge_ok(left: str, right: str, sep: str, panel: PanelIndex) -> bool:
    joined = left + right
    if panel.has(joined) or joined in KNOWN_MARKERS:
        return True
    if sep != "-" or not left.isalpha() or not right:
        return False
    # "PD-1", "Ki-67", "IL-17A", "IFN-g", "TNF-a": a word then a number or one letter.
    return right[0].isdigit() or (len(right) == 1 and len(left) >= 2)


def _split_level(atom: str) -> tuple[str, str]:
    """("cd56", "bright") for "cd56bright"; (atom, "") when it has no level suffix."""
    m = _LEVEL_SUFFIX.match(atom)
    if m and m.group(1):
        return m.group(1), m.group(2)
    return atom, ""


# A level suffix as a sign: "bright"/"hi" count as "+", "dim"/"lo"/"int" as "lo".
_LEVEL_SIGN = {"bright": "+", "high": "+", "hi": "+", "pos": "+", "neg": "-",
               "dim": "lo", "low": "lo", "lo": "lo", "int": "lo"}


@functools.lru_cache(maxsize=65536)
def marker_references(name: str, panel: PanelIndex | None = None) -> tuple[str, ...]:
    """Compact marker tokens a gate name refers to (in order, duplicates kept)."""
    return tuple(base for base, _ in signed_references(name, panel))


@functools.lru_cache(maxsize=65536)
def signed_references(name: str, panel: PanelIndex | None = None) -> tuple[tuple[str, str], ...]:
    """(marker, sign) for each marker reference of a gate name, in order: the sign is "+",
    "-", "lo" (dim, low, int) or "" (a bare "CD<number>")."""
    panel = panel or PanelIndex(frozenset())
    refs: list[tuple[str, str]] = []
    for word in _WORD_SPLIT.split(fold(name)):
        if not word:
            continue
        parts = _ATOM_SPLIT.split(word)
        atoms = [compact(a) for a in parts[0::2]]
        seps = parts[1::2] + [""]
        i = 0
        while i < len(atoms):
            atom, sep = atoms[i], seps[i]
            # Greedy merge across single "-" or "/" separators.
            j = i
            while j + 1 < len(atoms) and seps[j] in ("-", "/") and atoms[j + 1] and \
                    _merge_ok(atom, atoms[j + 1], seps[j], panel):
                atom = atom + atoms[j + 1]
                j += 1
            sep = seps[j]
            following = atoms[j + 1] if j + 1 < len(atoms) else ""
            i = j + 1
            if not atom:
                continue
            base, level = _split_level(atom)
            if level:
                sign = _LEVEL_SIGN[level]
            elif "+" in sep:
                sign = "+"
            elif "-" in sep and (not following or
                                 _looks_like_marker(_split_level(following)[0], panel)):
                sign = "-"
            else:
                sign = ""
            if _CD_ATOM.match(base) or (sign and _looks_like_marker(base, panel)):
                refs.append((base, sign))
    return tuple(refs)


def _looks_like_marker(token: str, panel: PanelIndex) -> bool:
    if panel.has(token) or token in KNOWN_MARKERS or token in ALWAYS_VALID or token in ALIASES:
        return True
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def is_valid_reference(token: str, panel: PanelIndex) -> bool:
    return token in ALWAYS_VALID or panel.has(token)


@functools.lru_cache(maxsize=1)
def _population_patterns() -> tuple[tuple[str, re.Pattern, tuple[str, ...]], ...]:
    out = []
    table = dict(tables().population_required)
    table.update(EXTRA_POPULATIONS)
    for population, required in table.items():
        accepted = tuple(compact(r) for r in required) + EXTRA_REQUIRED.get(population, ())
        out.append((population, re.compile(r"(?:^|[^a-z0-9])(" + re.escape(population) + r")(?!\d)"),
                    accepted))
    return tuple(out)


def unsupported_population(name: str, panel: PanelIndex) -> str | None:
    """The first population named in ``name`` whose required markers are all absent.

    Populations match at the start of a word; where two table entries start at the
    same place the longer one wins, so "plasmacytoid" is not also read as "plasma".
    """
    text = fold(name)
    hits: list[tuple[int, int, str, tuple[str, ...]]] = []
    for population, pattern, required in _population_patterns():
        if population not in text:  # cheap pre-filter: the pattern needs the name anyway
            continue
        for m in pattern.finditer(text):
            hits.append((m.start(1), m.end(1), population, required))
    # Longest first; a hit overlapping an accepted one is part of a longer name.
    hits.sort(key=lambda h: (-(h[1] - h[0]), h[0]))
    accepted: list[tuple[int, int, str, tuple[str, ...]]] = []
    for hit in hits:
        if all(hit[1] <= a[0] or hit[0] >= a[1] for a in accepted):
            accepted.append(hit)
    for _, _, population, required in sorted(accepted):
        if not any(panel.has(r) for r in required):
            return population
    return None


@functools.lru_cache(maxsize=65536)
def hallucinated(name: str, panel: PanelIndex) -> str | None:
    """Why a gate name is a hallucination (marker or population), or None."""
    for ref in marker_references(name, panel):
        if not is_valid_reference(ref, panel):
            return f"marker {ref} not in panel"
    population = unsupported_population(name, panel)
    if population:
        return f"population '{population}' lacks its markers in the panel"
    return None


@functools.lru_cache(maxsize=65536)
def unknown_marker(marker: str, panel: PanelIndex) -> str | None:
    """Why an entry of a gate's ``markers`` list is not backed by the panel, or None.

    The entry names one marker ("CD3", "HLA-DR", "CCR7 (CD197)", "FSC-A"); a sign or
    level suffix ("CD4+", "CD56bright") is ignored. It is backed when any key it answers
    to is a panel marker or a scatter/time/viability/DNA dimension.
    """
    text = fold(marker).strip().rstrip("+-")
    if not compact(text):
        return None
    keys = marker_keys(text)
    if any(is_valid_reference(k, panel) or is_valid_reference(_split_level(k)[0], panel)
           for k in keys):
        return None
    return f"marker {marker!r} (markers list) not in panel"
