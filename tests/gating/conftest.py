"""Fixtures for the gating tests: embedded cases and small tree builders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scievals.gating.paths import OMIP_STAGING_DIR, OMIP_VERIFIED_DIR
from scievals.gating.tree import node


def _chain(*names: str) -> dict:
    """A linear tree: chain("A", "B", "C") is A > B > C."""
    root = node(names[0])
    current = root
    for name in names[1:]:
        child = node(name)
        current["children"].append(child)
        current = child
    return root


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def verified_cases() -> list[dict]:
    return [load(p) for p in sorted(OMIP_VERIFIED_DIR.glob("*.json"))]


@pytest.fixture(scope="session")
def omip_cases() -> list[dict]:
    """Every embedded OMIP case the curation keeps (verified and valid staging)."""
    from scievals.gating.curate import load_omip_dir

    return [c for folder in (OMIP_VERIFIED_DIR, OMIP_STAGING_DIR) for c in load_omip_dir(folder)[0]]


@pytest.fixture(scope="session")
def staging_files() -> list[Path]:
    return sorted(OMIP_STAGING_DIR.glob("*.json"))


@pytest.fixture(scope="session")
def omip_008() -> dict:
    return load(OMIP_VERIFIED_DIR / "omip_008.json")


def _make_case(case_id: str, root: dict, markers: list[str], fluorophores=None) -> dict:
    """A valid test case around a given tree and panel."""
    fluorophores = fluorophores or [None] * len(markers)
    return {
        "test_case_id": case_id, "source_type": "synthetic",
        "context": {"sample_type": "PBMC", "species": "human", "application": "test"},
        "panel": {"entries": [{"marker": m, "fluorophore": f} for m, f in zip(markers, fluorophores)]},
        "gating_hierarchy": {"root": root},
        "metadata": {"curation_date": "2026-01-01", "curator": "test"},
    }


@pytest.fixture(scope="session")
def chain():
    return _chain


@pytest.fixture(scope="session")
def make_case():
    return _make_case


# The truth as its own prediction: every headline metric at its best value.
PERFECT = {"hierarchy_f1": 1.0, "structure_accuracy": 1.0, "structure_coverage": 1.0,
           "critical_gate_recall": 1.0, "depth_accuracy": 1.0, "hallucination_rate": 0.0}


def _assert_scores_itself_perfectly(case: dict) -> None:
    from scievals.gating.metrics import Truth, evaluate
    from scievals.gating.tree import clean_tree

    scores = evaluate(clean_tree(case), Truth.from_case(case), details=True)
    got = {m: scores[m] for m in PERFECT}
    assert got == PERFECT, (case["test_case_id"], got, scores["details"])
    for metric in ("synonym_f1", "hierarchy_f1_reference", "structure_accuracy_reference"):
        assert scores[metric] == 1.0, (case["test_case_id"], metric)


@pytest.fixture(scope="session")
def assert_scores_itself_perfectly():
    return _assert_scores_itself_perfectly
