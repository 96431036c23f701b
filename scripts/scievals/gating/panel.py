"""Panel helpers shared by the baseline (which builds trees from a panel) and the metrics.

Markers are compared by compact keys (letters and digits, Greek letters spelled out):
a panel entry "CCR7 (CD197)" answers to ccr7 and cd197, "CD8a" also to cd8.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from scievals.gating.reference import tables

_GREEK = str.maketrans({"γ": "g", "δ": "d", "α": "a", "β": "b", "ε": "e", "κ": "k",
                        "λ": "l", "µ": "u", "μ": "u", "‐": "-", "‑": "-", "‒": "-",
                        "–": "-", "—": "-", "−": "-", "⁺": "+", "⁻": "-", "＋": "+"})

# Compact keys that name the same marker (CD numbers and common names, word order).
ALIAS_GROUPS = (
    {"lin", "lineage", "dump"}, {"tcrgd", "gdtcr", "tcrgammadelta", "gammadeltatcr"},
    {"tcrab", "abtcr", "tcralphabeta"}, {"ifng", "ifny", "ifngamma"},
    {"tnf", "tnfa", "tnfalpha"}, {"pd1", "cd279"}, {"pdl1", "cd274"}, {"pdl2", "cd273"},
    {"ctla4", "cd152"}, {"icos", "cd278"}, {"ccr7", "cd197"}, {"cxcr5", "cd185"},
    {"cxcr3", "cd183"}, {"ccr6", "cd196"}, {"ccr4", "cd194"}, {"ccr5", "cd195"},
    {"cxcr4", "cd184"}, {"nkg2a", "cd159a"}, {"nkg2c", "cd159c"}, {"nkg2d", "cd314"},
    {"tim3", "cd366"}, {"lag3", "cd223"}, {"b220", "cd45r"}, {"ncam", "cd56"},
    {"il7ra", "cd127"}, {"il2ra", "cd25"}, {"ckit", "kit", "cd117"}, {"dnam1", "cd226"},
    {"mac1", "cd11b"}, {"slam", "cd150"}, {"ox40", "cd134"}, {"cd40l", "cd154"},
    {"crth2", "cd294"}, {"lamp1", "cd107a"}, {"sca1", "ly6ae"}, {"gr1", "ly6g6c"},
    {"mhcii", "mhcclassii", "iaie", "mhcclass2"}, {"fcer1a", "fceri", "fceria", "fcer1"},
    {"nk11", "cd161c"}, {"nkp46", "cd335"}, {"nkp30", "cd337"}, {"bst2", "cd317", "pdca1"},
    {"cd8", "cd8a"}, {"cd3", "cd3e"}, {"ki67", "mki67"}, {"gzmb", "granzymeb"},
    {"gzma", "granzymea"}, {"gzmk", "granzymek"}, {"prf1", "perforin"},
)
ALIASES = {key: frozenset(group) for group in ALIAS_GROUPS for key in group}


def fold(text: str) -> str:
    """Lowercase with Greek letters and Unicode signs folded to ASCII."""
    return text.lower().translate(_GREEK)


def compact(text: str) -> str:
    """Only letters and digits: the key markers are compared by."""
    return re.sub(r"[^a-z0-9]", "", fold(text))


@functools.lru_cache(maxsize=4096)
def marker_keys(marker: str) -> frozenset[str]:
    """Keys a panel marker answers to: its name, aliases in parentheses, '/' parts.

    "CCR7 (CD197)" -> {ccr7, cd197}; "CD56 (NCAM) b" -> {cd56, ncam} (a trailing
    one-letter footnote is dropped); "TCR γδ" -> {tcrgd, tcr, gd}; "F4/80" -> {f480}.
    """
    text = fold(marker).strip()
    # Table footnote letters ("CD123 a", "CD56 (NCAM) b") follow a digit or ")";
    # "Siglec H" and "Granzyme B" keep their letter.
    text = re.sub(r"(?<=[0-9)])\s+[a-z]$", "", text)
    pieces = [re.sub(r"\([^)]*\)", " ", text)] + re.findall(r"\(([^)]*)\)", text)
    keys: set[str] = set()
    for piece in pieces:
        for alias in re.split(r"[,;]", piece):
            alias = alias.strip()
            if not alias:
                continue
            keys.add(compact(alias))
            words = alias.split()
            if len(words) > 1:
                keys.update(compact(w) for w in words if len(compact(w)) >= 2)
            for part in alias.split("-"):
                part = compact(part)
                if part != compact(alias) and re.search(r"\d", part) and re.search(r"[a-z]", part):
                    keys.add(part)  # "Mamu-KIR3DL05" also answers to "KIR3DL05"
            if "/" in alias:
                parts = [compact(p) for p in alias.split("/")]
                # "CD16/32" -> cd16 and cd32; "Live/Dead" -> live and dead
                prefix = re.match(r"[a-z]+", parts[0] or "")
                for p in parts:
                    if p.isdigit() and prefix:
                        keys.add(prefix.group(0) + p)
                    elif p:
                        keys.add(p)
    for key in list(keys):
        if key.startswith("tcr") and len(key) > 4:
            keys.add(key[3:])  # "TCR Va7.2" also answers to "Va7.2"
        keys |= ALIASES.get(key, frozenset())
    keys.discard("")
    return frozenset(keys)


@dataclass(frozen=True)
class PanelIndex:
    """Normalised panel markers for fast membership tests."""

    keys: frozenset[str]

    @classmethod
    def from_markers(cls, markers: Iterable[str]) -> PanelIndex:
        keys: set[str] = set()
        for m in markers:
            if m:
                keys |= marker_keys(str(m))
        return cls(frozenset(keys))

    def has(self, token: str) -> bool:
        """Token names a panel marker: equal, or the marker minus a one-letter suffix."""
        if not token:
            return False
        if token in self.keys:
            return True
        return any(len(k) == len(token) + 1 and k.startswith(token) and k[-1].isalpha()
                   for k in self.keys)


def entries(case: dict) -> list[dict] | None:
    """The panel entries of a test case (None when the case has no panel list)."""
    found = (case.get("panel") or {}).get("entries")
    return found if isinstance(found, list) else None


def is_cytof_panel(panel_entries: list[dict]) -> bool:
    """More than half of the stated fluorophores are metal isotopes ("89Y", "176Yb")."""
    pattern = tables().cytof_isotope
    labels = [str(e.get("fluorophore")) for e in panel_entries if e.get("fluorophore")]
    return bool(labels) and sum(1 for f in labels if pattern.match(f)) / len(labels) > 0.5
