"""The waza package's import graph: no cycle, and no function-level import of a waza module
that hides one (the way the old ``context`` <-> ``graders`` cycle was broken at run time)."""

from __future__ import annotations

import ast
from pathlib import Path

import scievals.waza
from scievals.waza.graders import registry
from scievals.waza.suites import GO_GRADER_TYPES, LEGACY_GRADER_TYPES

PACKAGE = Path(scievals.waza.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.Module, top_level_only: bool) -> set[str]:
    """Every ``scievals.waza...`` module imported (``from a import b`` counts ``a.b`` when
    that is a module of the package, else ``a``)."""
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if candidate in MODULES else node.module)
    return {name for name in found if name.startswith("scievals.waza")}


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _graph() -> dict[str, set[str]]:
    return {name: _imports(ast.parse(path.read_text()), top_level_only=True)
            for name, path in MODULES.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle as a path of module names, or [] (depth-first search)."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_the_cycle_finder_finds_a_cycle():
    # a -> b -> c -> a is a cycle; d -> a is not part of one
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_waza_imports_have_no_cycle():
    graph = _graph()
    assert "scievals.waza.graders.registry" in graph["scievals.waza.suites"]
    assert _cycle(graph) == []


def test_function_level_imports_hide_no_cycle():
    """A function-level import of a waza module is never a cycle breaker: the graph with
    them added still has no cycle. The one there is is deliberate: the predict stage loads
    the graders (``runs``) only when a run needs a provisional verdict, so a plain predict
    job skips their imports."""
    hidden = {}
    graph = _graph()
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text())
        inner = _imports(tree, top_level_only=False) - _imports(tree, top_level_only=True)
        if inner:
            hidden[name] = sorted(inner)
            graph[name] = graph[name] | inner
    assert hidden == {"scievals.waza.predict": ["scievals.waza.runs"]}
    assert _cycle(graph) == []


def test_graders_depend_only_on_the_api_not_on_the_registry():
    graph = _graph()
    families = [m for m in graph if m.startswith("scievals.waza.graders.")
                and m.rsplit(".", 1)[1] not in ("registry", "base", "_common", "rubrics")
                and ".sandbox" not in m]
    assert len(families) == 9
    for family in families:
        assert "scievals.waza.graders.registry" not in graph[family], family
    # the registry knows every grader type a suite may name (specs/waza.md: 12 Go types and
    # 8 Python-era types, 20 in all) plus current waza's three synthetic ``expected``
    # graders (internal names no schema allows), and nothing else
    internal = {"expected.output_contains", "expected.output_not_contains",
                "expected.output_contains_any"}
    assert set(registry.REGISTRY) == set(GO_GRADER_TYPES + LEGACY_GRADER_TYPES) | internal
    assert len(registry.REGISTRY) == 12 + 8 + 3
