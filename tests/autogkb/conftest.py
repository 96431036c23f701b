"""Fixtures shared by the autogkb tests: the embedded demo articles, curated."""

from __future__ import annotations

from pathlib import Path

import pytest
from scievals.autogkb import curate


@pytest.fixture(scope="module")
def curated_demo(tmp_path_factory) -> tuple[Path, dict]:
    """(folder, curation report): the demo articles curated into a fresh folder per test
    module (cases.jsonl, report.json, vocab.json)."""
    d = tmp_path_factory.mktemp("autogkb")
    report = curate.curate({"origin": "demo", "articles": []}, d, d / "cases.jsonl",
                           d / "report.json", d / "vocab.json")
    return d, report


@pytest.fixture(scope="module")
def cases_jsonl(curated_demo) -> Path:
    return curated_demo[0] / "cases.jsonl"
