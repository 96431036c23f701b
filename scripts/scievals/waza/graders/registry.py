"""The grader registry: every grader type by name, built from its config.

Each family module lists its types in ``GRADERS`` (type -> class or factory taking
``(config, options)``); this module imports every family, so the families import only
:mod:`~scievals.waza.graders.base` and the registry sits above them (no cycle).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from scievals.waza.graders import (
    code,
    expected,
    files,
    human,
    judge,
    programs,
    session,
    text,
    trigger,
)
from scievals.waza.graders.base import (
    Grader,
    GraderConfigError,
    GraderContext,
    GraderOptions,
    GraderResult,
)

GraderFactory = Callable[[Mapping[str, Any], GraderOptions], Grader]
FAMILIES = (code, expected, files, human, judge, programs, session, text, trigger)
REGISTRY: Mapping[str, GraderFactory] = MappingProxyType(
    {kind: factory for family in FAMILIES for kind, factory in family.GRADERS.items()})


def grader_types() -> list[str]:
    return sorted(REGISTRY)


def build(
    kind: str, config: Mapping[str, Any] | None, options: GraderOptions | None = None,
    name: str = "",
) -> Grader:
    """Build a grader (``name`` is its name in the suite); an unknown type or bad
    config raises GraderConfigError."""
    factory = REGISTRY.get(kind)
    if factory is None:
        raise GraderConfigError(
            f"grader type {kind!r}",
            "unsupported grader type",
            f"use one of {', '.join(sorted(REGISTRY))}",
        )
    if config is None:
        config = {}
    if not isinstance(config, Mapping):
        raise GraderConfigError(
            f"grader {kind}: config", "config must be a mapping", f"got {type(config).__name__}"
        )
    options = replace(options or GraderOptions(), grader_name=name or kind)
    return factory(config, options)


def grade(
    kind: str,
    config: Mapping[str, Any] | None,
    context: GraderContext,
    options: GraderOptions | None = None,
) -> GraderResult:
    """Build the grader of ``kind`` from ``config`` and grade ``context``."""
    return build(kind, config, options).grade(context)


def grade_all(grader: Grader, contexts: list[GraderContext]) -> list[GraderResult]:
    """``grader.grade`` on every context, batched where the grader can (the ``code``
    grader then needs one worker round trip per 256 runs instead of one per run)."""
    many = getattr(grader, "grade_many", None)
    if many is not None:
        return many(contexts)
    return [grader.grade(c) for c in contexts]
