"""``waza grade-one``: run one grader on one recorded context and print its verdict.

For debugging a suite's graders: ``--config`` is the grader's ``config`` as
JSON, ``--context`` what graders see (snake_case, ``specs/waza.md`` §4). The
verdict ``{score, passed, feedback, details}`` goes to stdout as JSON. A bad
config, context or grading error is a :class:`ScievalsError` (the CLI prints
one line and exits 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from scievals.common.errors import ScievalsError
from scievals.waza.graders.base import GraderContext, GraderOptions
from scievals.waza.graders.registry import build
from scievals.waza.redact import redact_keys


def _read_json(path: str, what: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScievalsError(path, f"{what} file not found", "check the path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScievalsError(path, f"cannot read the {what} file: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ScievalsError(f"{path}: line {exc.lineno}", f"the {what} file is not JSON: "
                            f"{exc.msg}", "write one JSON object") from None


def grade_one(kind: str, config_path: str, context_path: str, workspace: str | None = None,
              context_dir: str | None = None, options: GraderOptions | None = None) -> dict:
    """The verdict of grader ``kind`` with the config and context read from JSON files."""
    config = _read_json(config_path, "grader config")
    if config is not None and not isinstance(config, dict):
        raise ScievalsError(config_path, "the grader config must be a JSON object",
                            'e.g. {"contains": ["hello"]}')
    data = _read_json(context_path, "context")
    if workspace is not None and not Path(workspace).is_dir():
        raise ScievalsError(workspace, "--workspace is not a directory", "pass the agent's "
                            "workspace folder or leave --workspace out")
    context = GraderContext.from_dict(data, where=context_path, workspace_dir=workspace,
                                      context_dir=context_dir)
    try:
        grader = build(kind, config, options)
    except ScievalsError as exc:
        raise ScievalsError(f"{config_path}: {exc.where}", exc.problem, exc.fix) from None
    return grader.grade(context).to_dict()


def main(args: argparse.Namespace) -> int:
    verdict = redact_keys(grade_one(args.type, args.config, args.context, args.workspace,
                                    getattr(args, "context_dir", None)), {})
    json.dump(verdict, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0
