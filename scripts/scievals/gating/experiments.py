"""gating's side of the experiment dimensions (:mod:`scievals.common.experiments`).

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

from scievals.gating import tree as T
from scievals.gating.normalize import norm


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
