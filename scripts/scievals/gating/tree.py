"""Gating trees as plain dicts: ``{"name", "markers", "children"}``.

Everything that scores, renders or builds trees goes through :func:`clean_tree`, so
the metrics can assume a well-formed tree. Traversals are iterative (model output
can nest deeply) and pre-order, so results never depend on hash order.
"""

from __future__ import annotations

import json

from collections.abc import Iterator
from typing import Any

# The deepest hierarchy accepted, in edges from the root. Real strategies are far
# shallower (the embedded cases: 5-17); deeper nesting is a runaway model or a hostile
# file, and JSON nested a few hundred gates deep is past what Python's parser reads.
# One limit for every reader: prediction files, replies, test cases.
MAX_DEPTH = 100
TOO_DEEP = f"hierarchy nests deeper than {MAX_DEPTH} levels"


class TooDeep(ValueError):
    """A hierarchy deeper than :data:`MAX_DEPTH` (or JSON too deeply nested to read)."""

    def __init__(self) -> None:
        super().__init__(TOO_DEEP)


def node(name: str, markers: list[str] | None = None, children: list[dict] | None = None,
         **extra: Any) -> dict:
    out = {"name": name, "markers": list(markers or []), "children": list(children or [])}
    out.update(extra)
    return out


def unwrap(obj: Any) -> Any:
    """The root node inside a test case, a ``{"root": ...}`` wrapper or a node itself."""
    if isinstance(obj, dict):
        if isinstance(obj.get("gating_hierarchy"), dict):
            obj = obj["gating_hierarchy"]
        if "name" not in obj and isinstance(obj.get("root"), dict):
            obj = obj["root"]
    return obj


def clean_tree(obj: Any) -> dict | None:
    """A copy of a hierarchy with string names, list markers and list children.

    Returns None when ``obj`` holds no node at all. A node without a name takes its
    ``gate_name``, else "All Events" (as the reference parser does); non-dict children
    are dropped. Extra keys (``is_critical``, ``gate_type``, counts) are kept. Raises
    :class:`TooDeep` for a tree deeper than :data:`MAX_DEPTH`.
    """
    root = unwrap(obj)
    if not isinstance(root, dict):
        return None

    def convert(raw: dict) -> dict:
        name = raw.get("name", raw.get("gate_name", "All Events"))
        markers = raw.get("markers") or []
        if isinstance(markers, str):
            markers = [markers]
        out = {k: v for k, v in raw.items() if k not in ("name", "markers", "children")}
        out["name"] = " ".join(str(name).split()) if name is not None else "All Events"
        out["markers"] = [str(m) for m in markers if m is not None] if isinstance(markers, list) else []
        out["children"] = []
        return out

    new_root = convert(root)
    stack = [(root, new_root, 0)]
    while stack:
        raw, new, level = stack.pop()
        children = raw.get("children") or []
        if not isinstance(children, list):
            children = []
        for child in children:
            if isinstance(child, dict):
                if level >= MAX_DEPTH:
                    raise TooDeep()
                converted = convert(child)
                new["children"].append(converted)
                stack.append((child, converted, level + 1))
    return new_root


def junk_names(obj: Any) -> list[str]:
    """Gate names in a hierarchy given as an object that are not non-empty text, each with
    where it is (``children[0].children[2]: 5``). A node without any name is left out: it
    takes "All Events", as in the reference."""
    roots = obj if isinstance(obj, list) else [unwrap(obj)]
    found = []
    stack = [(r, f"[{i}]" if isinstance(obj, list) else "root")
             for i, r in enumerate(roots) if isinstance(r, dict)]
    while stack and len(found) < 20:
        raw, where = stack.pop()
        key = "name" if "name" in raw else "gate_name" if "gate_name" in raw else None
        if key is not None:
            value = raw[key]
            if not isinstance(value, str) or not value.strip():
                found.append(f"{where}.{key} = {json.dumps(value)[:40]}")
        children = raw.get("children")
        if isinstance(children, list) and where.count(".children") < MAX_DEPTH:
            stack.extend((child, f"{where}.children[{i}]")
                         for i, child in reversed(list(enumerate(children)))
                         if isinstance(child, dict))
    return found


def walk(root: dict) -> Iterator[tuple[dict, dict | None, int]]:
    """Pre-order (node, parent, depth) with the root at depth 0."""
    stack: list[tuple[dict, dict | None, int]] = [(root, None, 0)]
    while stack:
        current, parent, depth = stack.pop()
        yield current, parent, depth
        for child in reversed(current.get("children", [])):
            stack.append((child, current, depth + 1))


def names(root: dict) -> list[str]:
    """Every node's name in pre-order (duplicates kept)."""
    return [n["name"] for n, _, _ in walk(root)]


def name_set(root: dict | None) -> set[str]:
    return set(names(root)) if root else set()


def relations(root: dict) -> list[tuple[str, str | None, int]]:
    """(gate, parent or None, depth) for every node, root included, pre-order."""
    return [(n["name"], p["name"] if p else None, d) for n, p, d in walk(root)]


def depth(root: dict | None) -> int:
    """Longest root-to-leaf path in edges (a lone root is 0)."""
    if not root:
        return 0
    return max(d for _, _, d in walk(root))


def count_nodes(root: dict | None) -> int:
    return sum(1 for _ in walk(root)) if root else 0


def render(root: dict, marks: dict[int, str] | None = None) -> list[str]:
    """ASCII tree lines; ``marks`` maps ``id(node)`` to a suffix such as " ✓"."""
    marks = marks or {}
    lines = [root["name"] + marks.get(id(root), "")]

    def add(children: list[dict], prefix: str) -> None:
        for i, child in enumerate(children):
            last = i == len(children) - 1
            lines.append(prefix + ("└── " if last else "├── ") + child["name"] + marks.get(id(child), ""))
            add(child["children"], prefix + ("    " if last else "│   "))

    # Recursion depth equals tree depth; trees deeper than a few hundred levels are
    # not gating strategies, so render only what fits.
    try:
        add(root["children"], "")
    except RecursionError:
        lines.append("… (tree too deep to render)")
    return lines
