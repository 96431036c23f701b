"""Test cases: the OMIP JSON format, its validation, and the normalised case file.

A case is one JSON object in the reference's ``TestCase`` shape (see
``data/demo/gating/omip/README.md``). :func:`validate_case` applies the reference's
schema rules (required context strings, curation metadata, gate names, ...) plus
two of ours: a hierarchy of at least 3 nodes and a non-empty panel. The curated
case file (``cases.jsonl``) holds one valid case per line, with ``case_set``
("verified", "staging", "workspace") and ``source`` (file and sha256) added.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from scievals.common.errors import ScievalsError
from scievals.common.io import read_json, read_jsonl
from scievals.gating import tree as T

MIN_NODES = 3
SOURCE_TYPES = ("omip_paper", "flowrepository_wsp", "flowjo_wsp", "expert_annotated", "synthetic")


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")


class PanelEntry(_Loose):
    marker: str
    fluorophore: str | None = None
    clone: str | None = None
    channel: str | None = None
    vendor: str | None = None
    cat_number: str | None = None


class Panel(_Loose):
    entries: list[PanelEntry]


class GateNode(_Loose):
    name: str
    markers: list[str] = Field(default_factory=list)
    gate_type: str = "Unknown"
    is_critical: bool = False
    notes: str | None = None
    children: list[GateNode] = Field(default_factory=list)


class GatingHierarchy(_Loose):
    root: GateNode


class Context(_Loose):
    sample_type: str
    species: str
    application: str
    tissue: str | None = None
    disease_state: str | None = None
    additional_notes: str | None = None


class Metadata(_Loose):
    curation_date: dt.date
    curator: str


class Validation(_Loose):
    validation_date: dt.date | None = None


class TestCase(_Loose):
    __test__ = False  # not a pytest class

    test_case_id: str
    source_type: Literal[SOURCE_TYPES]  # type: ignore[valid-type]
    omip_id: str | None = None
    doi: str | None = None
    flowrepository_id: str | None = None
    has_wsp: bool = False
    wsp_validated: bool = False
    context: Context
    panel: Panel
    gating_hierarchy: GatingHierarchy
    difficulty: Literal["easy", "medium", "hard"] | None = None
    validation: Validation | None = None
    metadata: Metadata


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(p) for p in err["loc"])
        parts.append(f"{loc}: {err['msg']}")
    more = len(exc.errors()) - 3
    return "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")


def validation_problems(case: Any) -> list[str]:
    """Why ``case`` is not a usable test case ([] when it is)."""
    if not isinstance(case, dict):
        return ["not a JSON object"]
    try:
        TestCase.model_validate(case)
    except ValidationError as exc:
        return [_describe(exc)]
    problems = []
    root = T.clean_tree(case)
    n = T.count_nodes(root)
    if n < MIN_NODES:
        problems.append(f"gating hierarchy has {n} node(s); at least {MIN_NODES} needed")
    if not case["panel"]["entries"]:
        problems.append("panel has no entries")
    if any(not name.strip() for name in T.names(root)):
        problems.append("a gate has an empty name")
    return problems


def load_case_file(path: str | os.PathLike) -> dict:
    """One test-case JSON file, validated; a bad file is one clear error."""
    case = read_json(path)
    problems = validation_problems(case)
    if problems:
        raise ScievalsError(path, "not a valid gating test case: " + problems[0],
                            "see data/demo/gating/omip/README.md for the format")
    return case


def read_cases(path: str | os.PathLike) -> list[dict]:
    """The curated case file; every line must be a valid case with a unique id."""
    cases = read_jsonl(path)
    seen: set[str] = set()
    for i, case in enumerate(cases, 1):
        problems = validation_problems(case)
        if problems:
            raise ScievalsError(f"{path}:{i}", problems[0], "rebuild the case file (gating curate)")
        cid = case["test_case_id"]
        if cid in seen:
            raise ScievalsError(f"{path}:{i}", f"duplicate test_case_id {cid!r}", "ids must be unique")
        seen.add(cid)
    return cases


def summary_row(case: dict) -> dict:
    root = T.clean_tree(case)
    return {
        "test_case_id": case["test_case_id"],
        "case_set": case.get("case_set", ""),
        "source_type": case["source_type"],
        "species": case["context"]["species"],
        "panel_entries": len(case["panel"]["entries"]),
        "gates": T.count_nodes(root) - 1,
        "depth": T.depth(root),
        "critical": sum(1 for n, _, _ in T.walk(root) if n.get("is_critical")),
    }


def sorted_cases(cases: Iterable[dict]) -> list[dict]:
    return sorted(cases, key=lambda c: c["test_case_id"])
