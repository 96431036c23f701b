"""Helpers shared by grader families: config decoding and the check-count result."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scievals.waza.graders.base import GraderConfigError, GraderError, GraderResult


class Config:
    """Strict view of one grader's config: unknown keys and wrong types are errors.

    Go decodes each grader's ``config`` strictly per type; the error names the
    grader kind, the key path and the allowed keys.
    """

    def __init__(self, kind: str, data: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
        self.kind = kind
        self.data = data
        unknown = sorted(set(data) - set(allowed))
        if unknown:
            raise GraderConfigError(
                f"{kind} grader config: key {unknown[0]}",
                "unknown key",
                f"allowed keys: {', '.join(allowed)}",
            )

    def _bad(self, key: str, want: str) -> GraderConfigError:
        got = type(self.data[key]).__name__
        return GraderConfigError(
            f"{self.kind} grader config: key {key}", f"must be {want}, got {got}"
        )

    def str(self, key: str, default: str = "") -> str:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            raise self._bad(key, "a string")
        return value

    def strs(self, key: str) -> list[str]:
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._bad(key, "a list of strings")
        return list(value)

    def int(self, key: str, default: int = 0) -> int:
        value = self.data.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._bad(key, "an integer")
        return value

    def opt_int(self, key: str) -> int | None:
        return self.int(key) if self.data.get(key) is not None else None

    def float(self, key: str, default: float | None = None) -> float | None:
        value = self.data.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._bad(key, "a number")
        return float(value)

    def bool(self, key: str, default: bool | None = None) -> bool | None:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self._bad(key, "true or false")
        return value

    def list(self, key: str) -> list[Any]:
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self._bad(key, "a list")
        return list(value)

    def mapping(self, key: str) -> dict[str, Any] | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise self._bad(key, "a mapping")
        return dict(value)


def checks_result(
    failures: list[str], total: int, ok_feedback: str, details: dict[str, Any]
) -> GraderResult:
    """Score = passed checks / checks (1.0 with none); passed = no failures."""
    score = (total - len(failures)) / total if total > 0 else 1.0
    feedback = "; ".join(failures) if failures else ok_feedback
    return GraderResult(
        score=score,
        passed=not failures,
        feedback=feedback,
        details={**details, "failures": list(failures)},
    )


def inside_workspace(workspace: Path, rel: str) -> Path:
    """``workspace/rel``; an absolute path or one escaping via ``..`` is a grader error."""
    base = os.path.abspath(workspace)
    if os.path.isabs(rel):
        raise GraderError(
            f"path {rel!r}",
            f"is absolute and not relative to workspace {base!r}",
            "write paths relative to the workspace",
        )
    full = os.path.normpath(os.path.join(base, rel))  # lexical, like Go's filepath.Join
    if not full.startswith(base + os.sep):
        raise GraderError(
            f"path {rel!r}",
            f"resolves to {full!r} which is outside workspace {base!r}",
            "remove the '..' parts",
        )
    return Path(full)


def go_quote(text: str) -> str:
    """Go's ``%q`` for ordinary text: double quotes, ``\\``, ``\"``, ``\n``, ``\t`` escaped."""
    return json.dumps(text, ensure_ascii=False)


def go_list(items: list[str]) -> str:
    """A string list the way Go's %v prints it: ``[a b c]``."""
    return "[" + " ".join(items) + "]"
