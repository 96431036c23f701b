"""Every grader configured in the embedded example suites builds (none is a config error)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from scievals.waza.graders.registry import build

SUITES = Path(__file__).resolve().parents[2] / "data" / "demo" / "waza" / "suites"


def configured_graders() -> list[tuple[str, str, dict]]:
    found = []
    for path in sorted(SUITES.glob("**/*.yaml")):
        data = yaml.safe_load(path.read_text())
        if not isinstance(data, dict):
            continue
        for entry in data.get("graders") or []:
            if isinstance(entry, dict) and "type" in entry:
                where = f"{path.relative_to(SUITES)}: {entry.get('name')}"
                found.append((where, entry["type"], entry.get("config") or {}))
    return found


GRADERS = configured_graders()


def test_the_examples_use_many_grader_types():
    assert len(GRADERS) >= 20
    assert {kind for _, kind, _ in GRADERS} >= {"code", "text", "regex", "file", "behavior",
                                                 "action_sequence", "skill_invocation"}


@pytest.mark.parametrize("where, kind, config", GRADERS, ids=[g[0] for g in GRADERS])
def test_example_grader_builds(where, kind, config):
    assert build(kind, config, name=where) is not None
