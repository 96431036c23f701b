"""Imports run downward only (DESIGN.md, issue 18): every import in scripts/scievals/**, at
module level or inside a function, goes to the same floor or a lower one, no benchmark
package imports another, and the modules import each other without a cycle.

Floors, lowest first: common < stats < llm, figures < benchmark packages < registry
(scievals.registry) < results, report, cli. ``stats`` (intervals, paired tests,
comparisons, tiers) stands on common's plumbing only, so users and importers can call it
without the workflow. ``figures`` (FigureSpec and the shared
plotting helpers) shares the LLM layer's floor: the registry and every benchmark's
``figures`` module stand on it."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest
from scievals import registry

PACKAGE = Path(__file__).resolve().parents[1] / "scripts" / "scievals"
BENCHMARKS = set(registry.NAMES)
FLOORS = {"common": 0, "stats": 1, "llm": 2, "figures": 2, **{b: 3 for b in BENCHMARKS},
          # the registry and the whole-config check that reads it
          "registry": 4, "config_validation": 4, "workflow_config": 4,
          "results": 5, "interop": 5, "report": 5, "cli": 5, "run": 5, "__main__": 5}
FLOOR_NAMES = ["common", "stats", "llm/figures", "benchmark packages", "registry",
               "results/interop/report/cli"]


def module_name(path: Path) -> str:
    parts = ("scievals", *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported(path: Path) -> set[str]:
    """The scievals modules ``path`` imports (``from pkg import sub`` names the submodule)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                out.add(sub if sub in MODULES else node.module)
    return {name for name in out if name.split(".")[0] == "scievals" and name != "scievals"}


GRAPH = {name: imported(path) for name, path in MODULES.items()}


def part(module: str) -> str | None:
    """The floor key of a module: its first component below scievals (None: the root)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def floor(module: str) -> int:
    key = part(module)
    return 0 if key is None else FLOORS[key]


def test_every_module_has_a_floor():
    unknown = sorted({part(m) for m in MODULES if part(m) is not None} - set(FLOORS))
    assert not unknown, f"new top-level parts of scievals need a floor in FLOORS: {unknown}"


def test_the_graph_is_read():
    # Known edges of the house, checked so a parser bug cannot make the tests below vacuous.
    assert "scievals.figures.spec" in GRAPH["scievals.registry"]
    assert "scievals.registry" in GRAPH["scievals.results.leaderboard"]
    assert "scievals.common.errors" in GRAPH["scievals.common.tables"]
    assert "scievals.stats.paired" in GRAPH["scievals.stats.comparisons"]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_run_downward(module):
    upward = sorted(t for t in GRAPH[module] if floor(t) > floor(module))
    assert not upward, (
        f"{module} ({FLOOR_NAMES[floor(module)]}) imports a higher floor: "
        + ", ".join(f"{t} ({FLOOR_NAMES[floor(t)]})" for t in upward))


@pytest.mark.parametrize("module", sorted(m for m in MODULES if part(m) in BENCHMARKS))
def test_no_benchmark_imports_another(module):
    others = sorted(t for t in GRAPH[module] if part(t) in BENCHMARKS - {part(module)})
    assert not others, f"{module} imports another benchmark: {others}"


def test_figures_live_in_their_benchmark_package():
    for bench in registry.REGISTRY:
        for spec in bench.figures:
            assert spec.function.startswith(f"scievals.{bench.name}.figures:"), spec.function


def cycle_free_graph(graph: dict[str, set[str]]) -> list[str]:
    """A cycle of ``graph`` as a list of modules, or [] when there is none."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return []


def test_cycle_detection_finds_a_cycle():
    assert set(cycle_free_graph({"a": {"b"}, "b": {"c"}, "c": {"a"}})) == {"a", "b", "c"}
    assert cycle_free_graph({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle():
    graph = {m: {t for t in targets if t in MODULES} for m, targets in GRAPH.items()}
    cycle = cycle_free_graph(graph)
    assert not cycle, f"import cycle: {' -> '.join(cycle)}"


# A cli module's note covers its commands' function-level imports (see abdev/cli.py).
CLI_NOTE = "Each command imports what it needs inside its own function"


def unexplained_inner_imports(path: Path) -> list[int]:
    """Lines of function-level imports in ``path`` that say nothing of why: no comment on
    the line or on the two lines above it (a run of imports shares one), and no cli note."""
    text = path.read_text(encoding="utf-8")
    if CLI_NOTE in text:
        return []
    lines = text.splitlines()
    found = []
    for function in ast.walk(ast.parse(text)):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                first = node.lineno - 1  # up to the first import of the run it is in
                while first > 0 and lines[first - 1].strip().startswith(("import ", "from ")):
                    first -= 1
                nearby = lines[max(0, first - 2):node.lineno]
                if not any("#" in line for line in nearby):
                    found.append(node.lineno)
    return sorted(set(found))


def test_the_unexplained_import_finder_finds_one(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    import json\n\n\ndef g():\n    import csv  # why: rare\n\n\n"
                      "def h():\n    # why: rare\n    import io\n    import os\n    import re\n")
    assert unexplained_inner_imports(module) == [2]


def test_every_function_level_import_says_why():
    """Imports sit at the top unless there is a reason to wait (an optional extra, or the
    start-up of jobs and commands): then a comment says which."""
    found = {name: lines for name, path in MODULES.items()
             if (lines := unexplained_inner_imports(path))}
    assert found == {}
