"""The content digest of the code that computes a benchmark's score tables.

A score rule's ``code_version`` param and the key of a kept table
(:mod:`scievals.common.score_cache`) name this digest besides the benchmark's
``METRICS_VERSION``: an edit to the scoring code re-runs every score job it affects and no
kept table made by the old code comes back, even when nobody bumped the version, the tree is
always ``<sha>-dirty``, ``SCIEVALS_GIT_COMMIT`` is set or the copy is outside git.

What is hashed: the source of ``scievals.<b>.score`` and of every scievals module it imports,
directly or through others, at module level or inside a function, with the packages above
each (Python runs their ``__init__``), found by reading the ``import`` statements (a regular
expression, not ``ast``: a few milliseconds for the Snakefile's parse, which asks at every
start). Modules the score code does not import (a benchmark's predict code, the report) are
left out, so editing them re-scores nothing. Not followed: modules loaded by a name computed
at run time (``importlib.import_module``: the LLM providers, chosen by the config). The
third-party libraries those modules import (numpy, pandas, scipy...) are named by their
installed versions instead (:func:`library_versions`): a kept table made under another scipy
is not served.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from functools import cache
from importlib import metadata
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # scripts/scievals

# `from scievals.x import a, b` (also parenthesised over lines) and `import scievals.x`, at
# any indentation; a line in a docstring that looks like one only adds a module to the digest.
_IMPORT = re.compile(
    rb"^[ \t]*(?:from[ \t]+(scievals(?:\.\w+)*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)"
    rb"|import[ \t]+(scievals(?:\.\w+)*))", re.MULTILINE)
_NAME = re.compile(rb"\w+")
# the top-level module of any `import x...` / `from x... import` (scievals, the standard
# library and relative imports are left out by the caller)
_TOP = re.compile(
    rb"^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import|import[ \t]+([A-Za-z_]\w*))",
    re.MULTILINE)


def _source_path(module: str) -> Path | None:
    """The file of a scievals module (a package's ``__init__.py``); None for a name that is
    no module (``from scievals.common.io import write_csv`` names a function)."""
    base = PACKAGE.joinpath(*module.split(".")[1:])
    if base.is_dir():
        init = base / "__init__.py"
        return init if init.is_file() else None
    path = base.with_suffix(".py")
    return path if path.is_file() else None


@cache
def _module(module: str) -> tuple[bytes, tuple[str, ...]] | None:
    """(source bytes, the scievals modules it may import); read once per process."""
    path = _source_path(module)
    if path is None:
        return None
    source = path.read_bytes()
    parts = module.split(".")
    named = [".".join(parts[:i]) for i in range(1, len(parts))]  # its parent packages
    for package, names, plain in _IMPORT.findall(source):
        if plain:
            named.append(plain.decode())
            continue
        named.append(package.decode())
        named.extend(f"{package.decode()}.{name.decode()}" for name in _NAME.findall(names))
    return source, tuple(named)


def reached_modules(root: str) -> dict[str, bytes]:
    """Every scievals module ``root`` imports, directly or not, itself included: name ->
    source bytes."""
    found: dict[str, bytes] = {}
    todo = [root]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        module = _module(name)
        if module is not None:
            found[name] = module[0]
            todo.extend(module[1])
    return found


@cache
def code_digest(*roots: str) -> str:
    """SHA-256 over the source of every module the ``roots`` reach (the module docstring), by
    module name; once per process."""
    reached: dict[str, bytes] = {}
    for root in roots:
        reached.update(reached_modules(root))
    digest = hashlib.sha256()
    for name, source in sorted(reached.items()):
        digest.update(f"\0{name}\0{len(source)}\0".encode())
        digest.update(source)
    return digest.hexdigest()


def score_code_digest(benchmark: str) -> str:
    """The digest of the code that computes ``benchmark``'s score tables."""
    return code_digest(f"scievals.{benchmark}.score")


# Modules whose distribution has another name (checked against importlib.metadata's own
# map in tests/common/test_common_code_digest.py); anything else unresolved asks that map,
# which reads every installed distribution (0.3 s, so only then).
DISTRIBUTION_OF = {"yaml": "PyYAML", "re2": "google-re2"}


@cache
def library_versions(*roots: str) -> tuple[tuple[str, str], ...]:
    """(distribution, version) of every third-party library the modules the ``roots`` reach
    import, sorted; a module no installed distribution provides is left out."""
    top: set[str] = set()
    for root in roots:
        for source in reached_modules(root).values():
            for pair in _TOP.findall(source):
                top.update(name.decode() for name in pair if name)
    found = {}
    for name in sorted(top - set(sys.stdlib_module_names) - {"scievals", "__future__"}):
        found.update(_installed(name))
    return tuple(sorted(found.items()))


def _installed(module: str) -> dict[str, str]:
    """distribution -> version of what provides ``module``; empty when nothing installed does."""
    dist = DISTRIBUTION_OF.get(module, module)
    try:
        return {dist: metadata.version(dist)}
    except metadata.PackageNotFoundError:
        if importlib.util.find_spec(module) is None:  # not installed (an extra's module)
            return {}
        return {d: metadata.version(d) for d in _all_providers().get(module, ())}


@cache
def _all_providers() -> dict[str, list[str]]:
    return metadata.packages_distributions()
