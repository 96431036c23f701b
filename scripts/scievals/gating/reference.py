"""The reference scorer's lookup tables, loaded once from ``reference_tables.json``.

The tables (synonyms, parent hierarchy, critical gates, hallucination tables,
parser terms) are data exported from the reference implementation; keeping them
as data means the scoring code can be checked against the reference line by line.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from scievals.common.io import read_json
from scievals.gating.paths import REFERENCE_TABLES_FILE


@dataclass(frozen=True)
class ReferenceTables:
    replacements: tuple[tuple[str, str], ...]
    synonyms: dict[str, str]  # insertion order matters: first word-boundary hit wins
    synonym_patterns: tuple[tuple[re.Pattern, str], ...]
    hierarchy: dict[str, tuple[str, ...]]
    default_critical: tuple[str, ...]
    cytof_isotope: re.Pattern
    marker_critical: dict[str, tuple[str, ...]]
    population_required: dict[str, tuple[str, ...]]
    extra_dims: tuple[str, ...]
    skip_terms: tuple[str, ...]
    meta_terms: tuple[str, ...]
    min_gates: int
    min_name_length: int
    max_name_length: int


@functools.lru_cache(maxsize=1)
def tables() -> ReferenceTables:
    raw = read_json(REFERENCE_TABLES_FILE)
    synonyms = dict(raw["CELL_TYPE_SYNONYMS"])
    patterns = tuple(
        (re.compile(r"(^|[^a-z0-9])" + re.escape(key) + r"($|[^a-z0-9])"), value)
        for key, value in synonyms.items()
    )
    return ReferenceTables(
        replacements=tuple((a, b) for a, b in raw["normalize_gate_name_replacements"]),
        synonyms=synonyms,
        synonym_patterns=patterns,
        hierarchy={k: tuple(v) for k, v in raw["CELL_TYPE_HIERARCHY"].items()},
        default_critical=tuple(raw["DEFAULT_CRITICAL_GATES"]),
        cytof_isotope=re.compile(raw["CYTOF_ISOTOPE_PATTERN"]),
        marker_critical={k: tuple(v) for k, v in raw["MARKER_CRITICAL_GATES"].items()},
        population_required={k: tuple(v) for k, v in raw["POPULATION_REQUIRED_MARKERS"].items()},
        extra_dims=tuple(raw["hallucination_extra_panel_dims"]),
        skip_terms=tuple(raw["hallucination_skip_terms"]),
        meta_terms=tuple(raw["parser_META_TERMS"]),
        min_gates=int(raw["parser_MIN_GATES"]),
        min_name_length=int(raw["parser_MIN_NAME_LENGTH"]),
        max_name_length=int(raw["parser_MAX_NAME_LENGTH"]),
    )
