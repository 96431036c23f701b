"""Scores of one predicted gating hierarchy against one test case.

Definitions follow the seed (``seeds/004_*.txt``) and, where it is silent, the
reference implementation (``specs/flow_gating.md`` section 4.3). Deviations, each
with a reference-exact variant kept alongside (``*_reference``):

- ``hierarchy_f1`` buckets names by :func:`normalize.norm`, the reference
  normaliser plus one rule ("CD4+ T cells" == "CD4+") that the seed's worked
  example needs; ``hierarchy_f1_reference`` uses the reference normaliser.
- ``structure_accuracy`` is the seed's: for gates present in both trees (matched
  by ``norm``), the share whose parent matches. The reference keys relations by
  depth, so one extra level (a Time gate) breaks every relation below it; that
  variant is ``structure_accuracy_reference`` (with hash-order ties resolved: any
  listed parent may justify a relation). ``structure_coverage`` (common gates /
  truth gates) is reported beside it, so saying little cannot look good.
- ``critical_gate_recall`` narrows a panel-derived critical list to the gates the
  truth contains (the seed's step 1) and matches names as ``hierarchy_f1`` does.
- ``hallucination_rate`` checks marker tokens (:mod:`markers`), not substrings, in
  the gate name and in its ``markers`` list; ``hallucination_rate_reference`` is the
  substring heuristic on names.

P and G are the sets of distinct node names, root included, as in the reference.
"""

from __future__ import annotations

import functools
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from scievals.gating import tree as T
from scievals.gating.markers import hallucinated, unknown_marker
from scievals.gating.normalize import is_valid_parent, norm, norm_reference, sem
from scievals.gating.panel import PanelIndex, entries, is_cytof_panel
from scievals.gating.reference import tables
from scievals.gating.semantic import METRICS as SEMANTIC

# Bump when a definition changes: the workflow reruns scoring on a new version.
# v4: effective-n Wilson intervals, variance split; v5: the semantic F1 metrics; v6: best-of-k,
# consensus, within-case SD and agreement rows of cases answered k times; v7: the units
# column and calibration rows (stats.calibration)
METRICS_VERSION = "gating-metrics-v7"
# Every table metric is a per-case fraction, F1 or rate (docs/statistics.md: ranges)
METRIC_RANGES = {"*": (0.0, 1.0)}

METRICS = (
    "hierarchy_f1",
    "hierarchy_precision",
    "hierarchy_recall",
    "synonym_f1",
    "structure_accuracy",
    "structure_coverage",
    "critical_gate_recall",
    "hallucination_rate",
    "depth_accuracy",
)
# Where the smaller value is the better one (best-of-k picks the smallest)
LOWER_IS_BETTER = ("hallucination_rate", "hallucination_rate_reference")
REFERENCE_METRICS = (
    "hierarchy_f1_reference",
    "structure_accuracy_reference",
    "hallucination_rate_reference",
)
# Secondary, only with the `semantic` extra (scievals.gating.semantic)
SEMANTIC_METRICS = SEMANTIC


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


@dataclass
class NameMatch:
    f1: float
    precision: float
    recall: float
    matched: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)


def hierarchy_prf(pred_names: set[str], true_names: set[str], normalizer=norm) -> NameMatch:
    """Precision/recall/F1 over distinct names bucketed by ``normalizer``.

    Each bucket matches min(|P_k|, |G_k|) names; within a bucket names are taken in
    sorted order, so the matched/missing/extra lists are deterministic.
    """
    pred_by: dict[str, list[str]] = defaultdict(list)
    true_by: dict[str, list[str]] = defaultdict(list)
    for name in sorted(pred_names):
        pred_by[normalizer(name)].append(name)
    for name in sorted(true_names):
        true_by[normalizer(name)].append(name)
    matched: list[str] = []
    missing: list[str] = []
    extra: list[str] = []
    for key in sorted(set(pred_by) | set(true_by)):
        p, g = pred_by.get(key, []), true_by.get(key, [])
        k = min(len(p), len(g))
        matched += p[:k]
        extra += p[k:]
        missing += g[k:]
    precision = len(matched) / len(pred_names) if pred_names else 0.0
    recall = len(matched) / len(true_names) if true_names else 0.0
    return NameMatch(_f1(precision, recall), precision, recall, matched, missing, extra)


def synonym_f1(pred_names: set[str], true_names: set[str]) -> float:
    """F1 over the sets of canonical forms (reference ``_compute_synonym_f1``)."""
    if not pred_names or not true_names:
        return 0.0
    sp = {sem(n) for n in pred_names}
    sg = {sem(n) for n in true_names}
    common = len(sp & sg)
    return _f1(common / len(sp), common / len(sg))


def _parents_by_gate(rels) -> dict[str, Counter]:
    parents: dict[str, Counter] = defaultdict(Counter)
    for gate, parent, _ in rels:
        parents[norm(gate)][norm(parent) if parent is not None else None] += 1
    return parents


@dataclass(frozen=True)
class Structure:
    """Seed structure accuracy and the share of the truth it was computed on."""

    accuracy: float
    correct: int
    common: int
    truth_gates: int

    @property
    def coverage(self) -> float:
        """``structure_coverage``: common gates / truth gates (root included)."""
        return self.common / self.truth_gates if self.truth_gates else 0.0


def structure_accuracy(pred: dict, truth: dict, _pred_rels=None, _true_parents=None) -> Structure:
    """Seed definition: correct parents / gates common to both trees.

    Gates and parents are compared by :func:`norm`; a repeated gate name pairs its
    occurrences as multisets (min count common, multiset intersection of parents
    correct), which is order-free. No common gate scores 0. The accuracy alone rewards
    saying little (a 3-gate chain of QC gates is mostly right), so the result also
    carries how many truth gates it was computed on.
    """
    pred_parents = _parents_by_gate(_pred_rels if _pred_rels is not None else T.relations(pred))
    true_parents = _true_parents if _true_parents is not None else _parents_by_gate(T.relations(truth))
    common = correct = 0
    for gate in pred_parents.keys() & true_parents.keys():
        p, g = pred_parents[gate], true_parents[gate]
        common += min(sum(p.values()), sum(g.values()))
        correct += sum((p & g).values())
    truth_gates = sum(sum(c.values()) for c in true_parents.values())
    return Structure(correct / common if common else 0.0, correct, common, truth_gates)


def _triple(gate: str, parent: str | None, d: int) -> tuple[str, str | None, int]:
    return (sem(gate), sem(parent) if parent else None, d)


def structure_accuracy_reference(pred: dict, truth: dict, _pred_rels=None, _true_rels=None) -> float:
    """Reference definition: (sem gate, sem parent, depth) triples of the truth found.

    A truth triple counts when the prediction has it, or has the same gate at the
    same depth under a parent that :func:`is_valid_parent` accepts (applied to the
    already-normalised names, as the reference does). Where the reference keeps one
    hash-order-dependent parent per (gate, depth), every parent is tried here.
    """
    true_rels = _true_rels if _true_rels is not None else [_triple(*r) for r in T.relations(truth)]
    if not true_rels:
        return 0.0
    pred_rels = {_triple(*r) for r in (_pred_rels if _pred_rels is not None else T.relations(pred))}
    lookup: dict[tuple[str, int], set] = defaultdict(set)
    for gate, parent, d in pred_rels:
        lookup[(gate, d)].add(parent)
    correct = 0
    for rel in true_rels:
        gate, _, d = rel
        if rel in pred_rels or any(
            pp is not None and is_valid_parent(gate, pp) for pp in lookup.get((gate, d), ())
        ):
            correct += 1
    return correct / len(true_rels)


def _found(name: str, norms: set[str], sems: set[str]) -> bool:
    """``name`` names one of a tree's gates: equal ``norm`` (as hierarchy F1) or ``sem``."""
    return norm(name) in norms or sem(name) in sems


def critical_gates(truth: dict, panel_entries: list[dict] | None) -> list[str]:
    """The truth's critical gates (seed step 1: those that appear in the ground truth).

    Gates the truth flags ``is_critical``; if it flags none, the reference's candidates
    (from the panel: singlets unless CyTOF, live, then each ``MARKER_CRITICAL_GATES``
    marker of the panel with all its alternative names; without a panel the default
    list) narrowed to the truth gates they name, first gate in pre-order per candidate.
    """
    nodes = [n for n, _, _ in T.walk(truth)]
    flagged = list(dict.fromkeys(n["name"] for n in nodes if n.get("is_critical")))
    if flagged:
        return flagged
    tab = tables()
    if panel_entries is not None:
        candidates = [("live",)] if is_cytof_panel(panel_entries) else [("singlets",), ("live",)]
        markers = {str(e.get("marker", "")).lower() for e in panel_entries}
        candidates += [names for marker, names in tab.marker_critical.items() if marker in markers]
    else:
        candidates = [(name,) for name in tab.default_critical]
    chosen: list[str] = []
    for names in candidates:
        gate = next((n["name"] for n in nodes
                     if any(_found(alt, {norm(n["name"])}, {sem(n["name"])}) for alt in names)),
                    None)
        if gate is not None and gate not in chosen:
            chosen.append(gate)
    return chosen


def critical_gate_recall(pred_names: set[str], critical: list[str]) -> tuple[float, list[str]]:
    """Share of the truth's critical gates the prediction has (an empty list scores 1)."""
    if not critical:
        return 1.0, []
    norms = {norm(n) for n in pred_names}
    sems = {sem(n) for n in pred_names}
    missing = [c for c in critical if not _found(c, norms, sems)]
    return (len(critical) - len(missing)) / len(critical), missing


def hallucination_rate(pred_gates: dict[str, set[str]], panel: PanelIndex
                       ) -> tuple[float, dict[str, str]]:
    """Share of distinct predicted names whose gate cites a marker the panel lacks.

    ``pred_gates`` maps each distinct name to the markers its nodes list; a name is
    flagged when the name itself (:func:`markers.hallucinated`) or one of those
    markers (:func:`markers.unknown_marker`) is not backed by the panel.
    """
    flagged = {}
    for name in sorted(pred_gates):
        reason = hallucinated(name, panel) or next(
            (r for m in sorted(pred_gates[name]) if (r := unknown_marker(m, panel))), None)
        if reason:
            flagged[name] = reason
    return (len(flagged) / len(pred_gates) if pred_gates else 0.0), flagged


def hallucination_rate_reference(pred_names: set[str], panel_markers: list[str]) -> float:
    """Reference substring heuristic (section 4.3), kept for comparison."""
    pm = tuple(sorted({str(m).lower() for m in panel_markers} | set(tables().extra_dims)))
    flagged = sum(1 for name in pred_names if _reference_flag(name, pm))
    return flagged / len(pred_names) if pred_names else 0.0


@functools.lru_cache(maxsize=65536)
def _reference_flag(name: str, pm: tuple[str, ...]) -> bool:
    tab = tables()
    low = name.lower()
    if any(term in low for term in tab.skip_terms):
        return False
    if not any(m in low for m in pm) and ("+" in name or "-" in name):
        return True
    return any(population in low and not any(any(r in m for m in pm) for r in required)
               for population, required in tab.population_required.items())


def depth_accuracy(pred_depth: int, true_depth: int) -> float:
    if true_depth == 0:
        return 1.0 if pred_depth == 0 else 0.0
    return max(0.0, 1.0 - abs(pred_depth - true_depth) / true_depth)


@dataclass
class Truth:
    """What scoring needs from a test case, computed once per case."""

    case_id: str
    root: dict
    names: set[str]
    depth: int
    panel_markers: list[str]
    panel: PanelIndex
    critical: list[str]
    parents: dict = field(default_factory=dict)  # norm gate -> Counter of norm parents
    triples: list = field(default_factory=list)  # reference (sem gate, sem parent, depth)

    @classmethod
    def from_case(cls, case: dict) -> Truth:
        root = T.clean_tree(case)
        if root is None:
            raise ValueError("test case has no gating_hierarchy.root")
        panel_entries = entries(case)
        markers = [str(e.get("marker")) for e in panel_entries or [] if e.get("marker")]
        return cls(
            case_id=str(case.get("test_case_id", "")),
            root=root,
            names=T.name_set(root),
            depth=T.depth(root),
            panel_markers=markers,
            panel=PanelIndex.from_markers(markers),
            critical=critical_gates(root, panel_entries),
            parents=_parents_by_gate(T.relations(root)),
            triples=[_triple(*r) for r in T.relations(root)],
        )


def evaluate(pred: dict | None, truth: Truth, details: bool = False, semantic=None) -> dict:
    """All metrics for one prediction (a cleaned tree, or None when unparseable).

    An unparseable prediction scores 0 on every metric except the hallucination
    rates, which are NaN (no gates, nothing to hallucinate; a 0 would reward failure).
    ``semantic`` (a :class:`scievals.gating.semantic.SemanticScorer`, which needs the
    ``semantic`` extra) adds :data:`SEMANTIC_METRICS`; without it they are absent, never 0.
    """
    if pred is None:
        scores = {m: 0.0 for m in METRICS + REFERENCE_METRICS}
        if semantic is not None:
            scores.update(dict.fromkeys(SEMANTIC_METRICS, 0.0))
        scores["hallucination_rate"] = math.nan
        scores["hallucination_rate_reference"] = math.nan
        if details:
            scores["details"] = {"missing": sorted(truth.names), "missing_critical": truth.critical}
        return scores
    rels = T.relations(pred)
    pred_gates: dict[str, set[str]] = defaultdict(set)
    for gate, _, _ in T.walk(pred):
        pred_gates[gate["name"]].update(gate.get("markers") or ())
    pred_names = set(pred_gates)
    pred_depth = max(d for _, _, d in rels)
    match = hierarchy_prf(pred_names, truth.names, norm)
    reference_match = hierarchy_prf(pred_names, truth.names, norm_reference)
    structure = structure_accuracy(pred, truth.root, rels, truth.parents)
    critical, missing_critical = critical_gate_recall(pred_names, truth.critical)
    halluc, flagged = hallucination_rate(pred_gates, truth.panel)
    scores = {
        "hierarchy_f1": match.f1,
        "hierarchy_precision": match.precision,
        "hierarchy_recall": match.recall,
        "synonym_f1": synonym_f1(pred_names, truth.names),
        "structure_accuracy": structure.accuracy,
        "structure_coverage": structure.coverage,
        "critical_gate_recall": critical,
        "hallucination_rate": halluc,
        "depth_accuracy": depth_accuracy(pred_depth, truth.depth),
        "hierarchy_f1_reference": reference_match.f1,
        "structure_accuracy_reference": structure_accuracy_reference(pred, truth.root, rels,
                                                                     truth.triples),
        "hallucination_rate_reference": hallucination_rate_reference(pred_names, truth.panel_markers),
    }
    if semantic is not None:
        scores.update(semantic.scores(pred_names, truth.names))
    if details:
        scores["details"] = {
            "matched": match.matched,
            "missing": match.missing,
            "extra": match.extra,
            "structure_correct": structure.correct,
            "structure_common": structure.common,
            "structure_truth_gates": structure.truth_gates,
            "critical_gates": truth.critical,
            "missing_critical": missing_critical,
            "hallucinated": flagged,
            "pred_depth": pred_depth,
            "true_depth": truth.depth,
            "pred_gates": len(pred_names),
            "true_gates": len(truth.names),
        }
    return scores


