"""Workspace-file graders: ``file`` (existence and content regexes) and ``diff``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scievals.waza.graders.base import (
    GraderConfigError,
    GraderContext,
    GraderOptions,
    GraderResult,
)
from scievals.waza.graders._common import Config, checks_result, go_quote, inside_workspace
from scievals.waza.graders.sandbox.regex import RegexError, compile_re2


class FileGrader:
    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("file", config, ("must_exist", "must_not_exist", "content_patterns"))
        self.must_exist = cfg.strs("must_exist")
        self.must_not_exist = cfg.strs("must_not_exist")
        self.patterns = []
        for i, entry in enumerate(cfg.list("content_patterns")):
            if not isinstance(entry, Mapping):
                raise GraderConfigError(
                    f"file grader config: key content_patterns[{i}]",
                    "must be a mapping with path, must_match, must_not_match",
                )
            sub = Config(
                f"file content_patterns[{i}]", entry, ("path", "must_match", "must_not_match")
            )
            self.patterns.append(
                (sub.str("path"), sub.strs("must_match"), sub.strs("must_not_match"))
            )
        if not (self.must_exist or self.must_not_exist or self.patterns):
            raise GraderConfigError(
                "file grader config",
                "must have at least one of 'must_exist', 'must_not_exist', or 'content_patterns'",
            )

    def grade(self, context: GraderContext) -> GraderResult:
        if context.workspace_dir is None:
            return GraderResult(0.0, False, "No workspace directory available for file grading")
        ws = context.workspace_dir
        for rel in [*self.must_exist, *self.must_not_exist, *(p[0] for p in self.patterns)]:
            inside_workspace(ws, rel)
        failures = [
            f"File must exist but not found: {rel}"
            for rel in self.must_exist
            if not os.path.exists(ws / rel)
        ]
        failures += [
            f"File must not exist but found: {rel}"
            for rel in self.must_not_exist
            if os.path.exists(ws / rel)
        ]
        total = len(self.must_exist) + len(self.must_not_exist)
        for rel, must, must_not in self.patterns:
            total += 1 + len(must) + len(must_not)
            try:
                content = (ws / rel).read_bytes().decode("utf-8", "replace")
            except OSError as exc:
                failures += _unreadable(rel, must, must_not, exc)
                continue
            for kind, patterns, wanted in (
                ("must_match", must, True),
                ("must_not_match", must_not, False),
            ):
                for pattern in patterns:
                    try:
                        found = compile_re2(pattern).search(content) is not None
                    except RegexError as exc:
                        quoted = go_quote(pattern)
                        failures.append(
                            f"Invalid '{kind}' regex pattern {quoted} for file {rel}: {exc}"
                        )
                        continue
                    if wanted and not found:
                        failures.append(f"File {rel} missing expected pattern: {pattern}")
                    elif not wanted and found:
                        failures.append(f"File {rel} contains forbidden pattern: {pattern}")
        return checks_result(
            failures,
            total,
            "All file checks passed",
            {
                "must_exist": self.must_exist,
                "must_not_exist": self.must_not_exist,
                "content_patterns": [
                    {"path": p, "must_match": m, "must_not_match": n} for p, m, n in self.patterns
                ],
                "workspace_dir": str(ws),
            },
        )


def _unreadable(rel: str, must: list[str], must_not: list[str], exc: OSError) -> list[str]:
    """A content file that cannot be read fails its implicit check and every pattern."""
    first = (f"File not found for content check: {rel}" if isinstance(exc, FileNotFoundError)
             else f"Failed to read file {rel}: {exc.strerror or exc}")
    return [first,
            *(f"File {rel} missing expected pattern (file not found): {p}" for p in must),
            *(f"File {rel} could not verify absence of pattern (file not found): {p}"
              for p in must_not)]


class DiffGrader:
    """Workspace files against snapshots (exact bytes) and ``+``/``-`` fragments.

    ``context_dir`` is the grader's own key and is not defaulted to the fixtures
    directory (the Go code does not either, §6.4); relative snapshots then
    resolve against the working directory.
    """

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("diff", config, ("expected_files", "context_dir", "update_snapshots"))
        self.context_dir = cfg.str("context_dir")
        self.update = bool(cfg.bool("update_snapshots", False)) or bool(
            options and options.update_snapshots
        )
        self.files = []
        entries = cfg.list("expected_files")
        if not entries:
            raise GraderConfigError(
                "diff grader config: key expected_files",
                "must have at least one expected_files entry",
            )
        for i, entry in enumerate(entries):
            if not isinstance(entry, Mapping):
                raise GraderConfigError(
                    f"diff grader config: key expected_files[{i}]",
                    "must be a mapping with path, snapshot, contains",
                )
            sub = Config(f"diff expected_files[{i}]", entry, ("path", "snapshot", "contains"))
            path, snapshot, contains = sub.str("path"), sub.str("snapshot"), sub.strs("contains")
            if not path:
                raise GraderConfigError(
                    f"diff grader config: key expected_files[{i}]", "missing required 'path'"
                )
            if not snapshot and not contains:
                raise GraderConfigError(
                    f"diff grader config: key expected_files[{i}]",
                    f"('{path}') must have 'snapshot' or 'contains'",
                )
            self.files.append((path, snapshot, contains))

    def grade(self, context: GraderContext) -> GraderResult:
        if context.workspace_dir is None:
            return GraderResult(0.0, False, "No workspace directory available for diff grading")
        ws = context.workspace_dir
        for path, _, _ in self.files:
            inside_workspace(ws, path)
        failures: list[str] = []
        counts = {"updated": 0, "created": 0, "unchanged": 0}
        total = 0
        for path, snapshot, contains in self.files:
            total += 1 + (1 if snapshot else 0) + len(contains)
            try:
                actual = (ws / path).read_bytes()
            except OSError as exc:
                if isinstance(exc, FileNotFoundError):
                    failures.append(f"Expected file not found in workspace: {path}")
                else:
                    failures.append(f"Failed to read workspace file {path}: {exc.strerror}")
                if snapshot:
                    failures.append(f"Snapshot comparison skipped (file not found): {path}")
                failures += [
                    f"Contains check skipped (file not found): {path} → {c}" for c in contains
                ]
                continue
            if snapshot:
                failures += self._snapshot(path, snapshot, actual, counts)
            failures += _fragments(path, actual.decode("utf-8", "replace"), contains)
        ok = "All diff checks passed"
        if self.update:
            ok += (
                f" (snapshots: {counts['updated']} updated, {counts['created']} created, "
                f"{counts['unchanged']} unchanged)"
            )
        return checks_result(
            failures,
            total,
            ok,
            {
                "expected_files": [
                    {"path": p, **({"snapshot": s} if s else {}), **({"contains": c} if c else {})}
                    for p, s, c in self.files
                ],
                "workspace_dir": str(ws),
            },
        )

    def _snapshot(self, path: str, snapshot: str, actual: bytes, counts: dict) -> list[str]:
        target = Path(snapshot)
        if self.context_dir and not target.is_absolute():
            target = Path(self.context_dir) / snapshot
        if self.update:
            if self.context_dir:
                base = os.path.normpath(os.path.abspath(self.context_dir))
                full = os.path.normpath(os.path.abspath(target))
                if not full.startswith(base + os.sep):
                    reason = f"path escapes context_dir {self.context_dir}"
                    return [f"Invalid snapshot file {snapshot} for {path}: {reason}"]
            try:
                old = target.read_bytes()
            except FileNotFoundError:
                old = None
            if old == actual:
                counts["unchanged"] += 1
                return []
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(actual)
            counts["created" if old is None else "updated"] += 1
            return []
        try:
            expected = target.read_bytes()
        except OSError as exc:
            return [f"Failed to read snapshot file {snapshot} for {path}: {exc.strerror}"]
        if expected != actual:
            return [f"File {path} does not match snapshot {snapshot}"]
        return []


def _fragments(path: str, content: str, contains: list[str]) -> list[str]:
    """``+x``/``x`` must appear, ``-x`` must not; an empty fragment passes."""
    failures = []
    for fragment in contains:
        present = not fragment.startswith("-")
        text = fragment[1:] if fragment[:1] in ("+", "-") else fragment
        text = text.strip()
        if not text:
            continue
        found = text in content
        if present and not found:
            failures.append(f"File {path} missing expected fragment: {text}")
        elif not present and found:
            failures.append(f"File {path} contains fragment that should be absent: {text}")
    return failures


# The grader types of this family (read by graders.registry).
GRADERS = {
    "file": FileGrader,
    "diff": DiffGrader,
}
