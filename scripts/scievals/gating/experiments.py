"""The gating benchmark's experiment functions (common/experiments.py, DESIGN round 6):
:func:`units` (confidence and calibration), :func:`consensus` and :func:`sample_keys` (k
samples) and :func:`feedback` (refinement turns).

:func:`units`: the scored units of one parsed reply are its gates. Every predicted node
except the root is one unit (the root is "All Events" or the like: always present, nothing
to be sure of). Its key is the name normalised as ``hierarchy_f1`` normalises
(:func:`scievals.gating.normalize.norm`), and it is correct when that key is among the
case's truth names normalised the same way. A name repeated in the tree is one unit (the
first node that carries it gives the confidence), as ``hierarchy_f1`` counts distinct names.
Worked example: docs/gating.md, "Confidence and calibration".

:func:`feedback` writes the follow-up user turn of a refinement turn from a parsed reply (or
the parser's message) and the case's *inputs* - the panel and the experiment context the
prompt showed - never its true hierarchy: :func:`item_inputs` copies only those parts, so the
truth cannot reach the checks. Each check reuses the code that scores or parses:

- the reply did not parse: the parser's message;
- markers used that are not in the panel: the hallucination metric's own test
  (:func:`scievals.gating.metrics.hallucination_rate`), per gate, naming the marker;
- gates whose listed markers are all missing from the panel;
- not a tree: the same path twice (two sibling gates with one name) or a gate that is its
  own ancestor (names compared by :func:`scievals.gating.normalize.norm`, as the metrics do);
- a viability dye in the panel (the baseline's rule, :mod:`scievals.gating.baseline`) but no
  live/dead gate.

``consensus(parsed_list)``: k parsed trees of one case -> one tree, scored like any reply.

- A gate's identity is its name under :func:`scievals.gating.normalize.norm` (the
  normaliser ``hierarchy_f1`` matches with), so "CD4+ T cells" and "CD4+" are one gate.
- A gate is kept when more than half of the k samples name it (an unparsed sample counts
  in k and names nothing; a gate named twice in one tree counts once for it).
- Its parent is the one most samples give it, where a sample's parent of a gate is the
  nearest ancestor of its first occurrence (pre-order) that is itself kept, so a dropped
  intermediate gate does not orphan its children. Ties go to the candidate met first
  reading the samples in order (sample 0 first, each in pre-order): the rule is fixed, so
  the same samples always give the same tree.
- A vote that would make a gate its own ancestor is passed over for the next candidate;
  a gate left without a parent, other than the first, goes under the first root gate.
- Each kept gate takes the spelling and markers of its first occurrence; children keep the
  order in which they were first met.

``sample_keys(parsed)``: the gate keys of one tree, for the samples' agreement (Jaccard).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scievals.common.experiments import Unit, stated_confidence
from scievals.gating import tree as T
from scievals.gating.baseline import _VIABILITY as VIABILITY_WORDS
from scievals.gating.baseline import PanelLookup
from scievals.gating.markers import unknown_marker
from scievals.gating.metrics import hallucination_rate
from scievals.gating.normalize import norm
from scievals.gating.panel import PanelIndex, fold

MAX_LINES = 20  # a follow-up names at most this many problems (and says how many more)
_LIVE_GATE = ("live", "viab", "dead")  # a gate name that gates on viability


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


# --- refinement feedback ---------------------------------------------------------------------

@dataclass(frozen=True)
class Inputs:
    """What the model saw of one case: the panel entries and the experiment context."""

    case_id: str
    panel: tuple[dict, ...]  # {"marker", "fluorophore", "clone"}
    context: dict

    @property
    def markers(self) -> list[str]:
        return [str(e["marker"]) for e in self.panel if e.get("marker")]


def item_inputs(case: dict) -> Inputs:
    """The model-facing part of a test case (what :mod:`scievals.gating.prompts` shows)."""
    entries = (case.get("panel") or {}).get("entries") or []
    panel = tuple({k: e.get(k) for k in ("marker", "fluorophore", "clone")}
                  for e in entries if isinstance(e, dict))
    return Inputs(str(case.get("test_case_id", "")), panel, dict(case.get("context") or {}))


def _panel_problems(root: dict, panel: PanelIndex) -> list[str]:
    """Gates citing markers the panel lacks: all of them, or some, or in the name only."""
    lines: list[str] = []
    for node, _, _ in T.walk(root):
        name, markers = node["name"], sorted(set(node.get("markers") or ()))
        # the metric's test, on this gate alone (the metric pools gates of one name)
        _, flagged = hallucination_rate({name: set(markers)}, panel)
        if not flagged:
            continue
        missing = [m for m in markers if unknown_marker(m, panel)]
        if markers and len(missing) == len(markers):
            found = [(f"gate {name!r}: none of its markers ({', '.join(missing)}) is in the "
                     "panel")]
        elif missing:
            found = [f"gate {name!r}: marker {m!r} is not in the panel" for m in missing]
        else:
            found = [f"gate {name!r}: {flagged[name]}"]
        lines += [line for line in found if line not in lines]
    return lines


def _tree_problems(root: dict) -> list[str]:
    """The same path twice, or a gate that is its own ancestor."""
    lines = []
    stack: list[tuple[dict, tuple[str, ...]]] = [(root, ())]
    while stack:
        gate, ancestors = stack.pop()
        key = norm(gate["name"])
        if key in ancestors:
            lines.append(f"gate {gate['name']!r} is its own ancestor (it appears again above "
                         "itself on its path)")
        path = (*ancestors, key)
        seen: set[str] = set()
        for child in gate["children"]:
            child_key = norm(child["name"])
            if child_key in seen:
                lines.append(f"gate {child['name']!r} appears twice under {gate['name']!r} "
                             "(the same path twice)")
            seen.add(child_key)
        stack += [(child, path) for child in reversed(gate["children"])]
    return lines


def _viability_problem(root: dict, inputs: Inputs) -> list[str]:
    dye = PanelLookup(list(inputs.panel)).matching(VIABILITY_WORDS)
    if dye is None:
        return []
    for gate, _, _ in T.walk(root):
        if any(w in fold(gate["name"]) for w in _LIVE_GATE) or dye in (gate.get("markers") or ()):
            return []
    return [(f"the panel has the viability dye {dye!r} but no gate uses it: add a live/dead "
            f"gate on {dye}")]


def feedback(parsed_or_error: dict | str, inputs: Inputs) -> str | None:
    """The follow-up to one reply: ``parsed_or_error`` is the parsed hierarchy, or the
    parser's message when the reply did not parse; None when the checks find nothing."""
    if isinstance(parsed_or_error, str):
        return ("Your reply could not be read as a gating hierarchy: "
                f"{parsed_or_error}. Give the whole hierarchy as one JSON object in the format "
                "asked for.")
    root = T.clean_tree(parsed_or_error)
    if root is None:
        return None
    lines = (_panel_problems(root, PanelIndex.from_markers(inputs.markers))
             + _tree_problems(root) + _viability_problem(root, inputs))
    if not lines:
        return None
    shown = [f"- {line}" for line in lines[:MAX_LINES]]
    if len(lines) > MAX_LINES:
        shown.append(f"- ... and {len(lines) - MAX_LINES} more")
    return ("Checked against the panel, your hierarchy has these problems:\n"
            + "\n".join(shown)
            + "\n\nGive the whole corrected hierarchy as one JSON object in the same format.")


# --- k samples: consensus and agreement -------------------------------------------------------

def sample_keys(parsed: dict | None) -> frozenset[str]:
    """The normalised gate names of one parsed tree (empty for a reply that did not parse)."""
    return frozenset(norm(name) for name in T.names(parsed)) if parsed else frozenset()


def _first_occurrences(root: dict) -> list[tuple[str, dict, list[str]]]:
    """(key, node, ancestor keys nearest first) of each gate's first pre-order occurrence."""
    seen: dict[str, tuple[str, dict, list[str]]] = {}
    stack = [(root, [])]
    while stack:
        gate, ancestors = stack.pop()
        key = norm(gate["name"])
        if key not in seen:
            seen[key] = (key, gate, ancestors)
        for child in reversed(gate.get("children") or []):
            stack.append((child, [key, *ancestors]))
    return list(seen.values())


def _ancestors(parents: dict[str, str | None], key: str) -> set[str]:
    out, at = set(), parents.get(key)
    while at is not None and at not in out:
        out.add(at)
        at = parents.get(at)
    return out


def consensus(parsed_list: Sequence[dict | None]) -> dict | None:
    """The majority tree of ``parsed_list`` (see the module docstring); None when no gate
    is named by more than half of the samples."""
    k = len(parsed_list)
    samples = [_first_occurrences(T.clean_tree(p)) if p else [] for p in parsed_list]
    counts = Counter(key for sample in samples for key, _, _ in sample)
    kept = [key for key in dict.fromkeys(key for s in samples for key, _, _ in s)
            if 2 * counts[key] > k]  # in order of first appearance
    if not kept:
        return None
    kept_set = set(kept)
    first: dict[str, dict] = {}
    votes: dict[str, Counter] = {key: Counter() for key in kept}
    order: dict[str, dict[str | None, int]] = {key: {} for key in kept}  # tie-break rank
    for sample in samples:
        for key, gate, ancestors in sample:
            if key not in kept_set:
                continue
            first.setdefault(key, gate)
            parent = next((a for a in ancestors if a in kept_set), None)
            votes[key][parent] += 1
            order[key].setdefault(parent, len(order[key]))
    parents: dict[str, str | None] = {}
    for key in kept:
        ranked = sorted(votes[key], key=lambda p: (-votes[key][p], order[key][p]))
        parents[key] = next((p for p in ranked if p is None or (
            p != key and key not in _ancestors(parents, p) | {p})), None)
    nodes = {key: T.node(first[key]["name"], first[key].get("markers")) for key in kept}
    roots = [key for key in kept if parents[key] is None]
    for key in kept:
        if parents[key] is not None:
            nodes[parents[key]]["children"].append(nodes[key])
    root = nodes[roots[0]]
    root["children"].extend(nodes[key] for key in roots[1:])
    return root
