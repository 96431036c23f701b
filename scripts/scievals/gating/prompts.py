"""Prompts: three context levels x two strategies, as in the reference study.

- ``minimal``: the marker list only.
- ``standard``: sample type, species and application, then one line per panel
  entry (``- CD3: BUV395 (clone: UCHT1)``; a missing fluorophore prints "unknown").
- ``rich``: standard plus panel size, complexity, tissue and curator notes. The OMIP
  id is never shown (the reference removed it because it leaks the answer).

``direct`` asks for the JSON tree only; ``cot`` asks the model to reason through
technology, QC gates, reachable populations and tree organisation first, then end
with the JSON tree. The wording is ours; the content follows the reference
(``experiments/prompts.py``). :data:`PROMPT_VERSION` changes whenever a template
changes, so cached replies to an old prompt are never reused silently.
"""

from __future__ import annotations

import copy
import json

from scievals.common.errors import ScievalsError
from scievals.common.experiments import Condition
from scievals.llm.base import LLMRequest, Message

PROMPT_VERSION = "gating-prompts-v2"  # v2: direct requests carry the reply's JSON schema
CONTEXTS = ("minimal", "standard", "rich")
STRATEGIES = ("direct", "cot")

SCHEMA_EXAMPLE = {
    "name": "All Events",
    "markers": [],
    "children": [
        {"name": "Gate name", "markers": ["marker1", "marker2"], "children": [
            {"name": "Child gate", "markers": ["marker3"], "children": []},
        ]},
    ],
}

# The reply's JSON schema, for servers that enforce it (scievals.llm.structured): the tree of
# SCHEMA_EXAMPLE, recursive through {"$ref": "#"} (unrolled for Anthropic). Sent with `direct`
# requests only: `cot` asks for reasoning before the JSON, which a schema would forbid.
REPLY_SCHEMA = {
    "name": "gating_hierarchy",
    "schema": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "markers": {"type": "array", "items": {"type": "string"}},
            "children": {"type": "array", "items": {"$ref": "#"}},
        },
        "required": ["name", "markers", "children"],
        "additionalProperties": False,
    },
}

# confidence: "on" (issue 42): every gate also states how sure the model is. The default
# "off" leaves the templates, the schema and so the cached requests as they were.
CONFIDENCE_SETTINGS = ("off", "on")
CONFIDENCE_FIELD = {
    "type": "number",
    "description": "Probability (0 to 1) that an expert's hierarchy for this panel has "
                   "this gate.",
}
SCHEMA_EXAMPLE_CONFIDENCE = {
    "name": "All Events",
    "markers": [],
    "confidence": 1.0,
    "children": [
        {"name": "Gate name", "markers": ["marker1", "marker2"], "confidence": 0.9,
         "children": [
             {"name": "Child gate", "markers": ["marker3"], "confidence": 0.6, "children": []},
         ]},
    ],
}
_CONFIDENCE = (
    'Give every gate a "confidence": your probability, from 0 to 1, that an expert\'s '
    "hierarchy for this panel contains that gate. Be calibrated: of the gates you give "
    "0.7, about 7 in 10 should be in the expert's hierarchy."
)


def reply_schema(confidence: bool = False) -> dict:
    """:data:`REPLY_SCHEMA`, with a required ``confidence`` number on every node (the
    schema's one node type, recursive) when ``confidence``."""
    if not confidence:
        return REPLY_SCHEMA
    schema = copy.deepcopy(REPLY_SCHEMA)
    schema["name"] = "gating_hierarchy_with_confidence"
    schema["schema"]["properties"]["confidence"] = dict(CONFIDENCE_FIELD)
    schema["schema"]["required"].append("confidence")
    return schema


SYSTEM = "You are an expert flow cytometrist who designs gating strategies."

_TASK = (
    "Predict the gating hierarchy an expert would use to analyse data from this panel. "
    'Start from "All Events" and go through the appropriate quality-control gates '
    "(doublet exclusion as singlets, viability) before the cell populations the markers "
    "can resolve. For mass cytometry (CyTOF, metal-isotope labels) adapt the QC gates: "
    "there is no FSC/SSC scatter."
)
_FORMAT = (
    "Return the hierarchy as one JSON object in which every gate has a name, the markers "
    "it uses and its child gates:\n\n{schema}"
)
DIRECT = "{context}\n\n" + _TASK + "\n\n" + _FORMAT + "\n\nGive only the JSON hierarchy in your answer."
COT = (
    "{context}\n\n" + _TASK + "\n\nBefore answering, think step by step:\n"
    "1. Which technology is this (fluorophores or metal isotopes), and what does it imply for QC?\n"
    "2. Which quality-control gates are needed (time, singlets, viability, leukocytes)?\n"
    "3. Which cell populations can these markers identify, and with which marker combinations?\n"
    "4. How should the gates nest, from broad lineages to subsets?\n\n"
    + _FORMAT + "\n\nEnd your answer with only the JSON hierarchy."
)


def n_colors(case: dict) -> int:
    """Panel entries with a fluorophore that is not a scatter parameter (reference rule)."""
    return sum(1 for e in case["panel"]["entries"]
               if e.get("fluorophore") and e["fluorophore"] not in ("FSC", "SSC"))


def complexity(case: dict) -> str:
    n = n_colors(case)
    return "simple" if n <= 15 else "medium" if n <= 25 else "complex"


def context_block(case: dict, level: str) -> str:
    entries = case["panel"]["entries"]
    if level == "minimal":
        return "## Panel\n\nMarkers: " + ", ".join(e["marker"] for e in entries)
    if level not in CONTEXTS:
        raise ScievalsError("gating.contexts", f"unknown context level {level!r}",
                            f"use one of {list(CONTEXTS)}")
    ctx = case["context"]
    lines = [
        "## Experiment Information", "",
        f"Sample Type: {ctx.get('sample_type') or 'unknown'}",
        f"Species: {ctx.get('species') or 'unknown'}",
        f"Application: {ctx.get('application') or 'unknown'}",
        "", "## Panel", "",
    ]
    for e in entries:
        line = f"- {e['marker']}: {e.get('fluorophore') or 'unknown'}"
        if e.get("clone"):
            line += f" (clone: {e['clone']})"
        lines.append(line)
    if level == "rich":
        lines += ["", "## Additional Information", "",
                  f"Panel Size: {n_colors(case)} colors",
                  f"Complexity: {complexity(case)}"]
        if ctx.get("tissue"):
            lines.append(f"Tissue: {ctx['tissue']}")
        if ctx.get("additional_notes"):
            lines.append(f"Notes: {ctx['additional_notes']}")
    return "\n".join(lines)


def build_prompt(case: dict, context: str, strategy: str, confidence: bool = False) -> str:
    if strategy not in STRATEGIES:
        raise ScievalsError("gating.strategies", f"unknown strategy {strategy!r}",
                            f"use one of {list(STRATEGIES)}")
    template = DIRECT if strategy == "direct" else COT
    if not confidence:
        return template.format(context=context_block(case, context),
                               schema=json.dumps(SCHEMA_EXAMPLE))
    template = template.replace(_FORMAT, _FORMAT + " " + _CONFIDENCE)
    return template.format(context=context_block(case, context),
                           schema=json.dumps(SCHEMA_EXAMPLE_CONFIDENCE))


def build_request(case: dict, context: str, strategy: str,
                  confidence: bool = False) -> LLMRequest:
    return LLMRequest(
        case_id=case["test_case_id"],
        messages=[Message(role="system", content=SYSTEM),
                  Message(role="user",
                          content=build_prompt(case, context, strategy, confidence))],
        json_schema=reply_schema(confidence) if strategy == "direct" else None,
    )


def condition_name(context: str, strategy: str, confidence: bool = False) -> str:
    """``<context>_<strategy>``, with ``+conf`` when the prompt asked for confidences."""
    return Condition(f"{context}_{strategy}", confidence).name


def confidence_settings(section: dict) -> list[bool]:
    """The config's ``confidence`` ("off", "on" or a list of them) as prompt switches; a bare
    YAML on / off arrives as true / false and means the same."""
    value = section.get("confidence", "off")
    values = value if isinstance(value, list) else [value]
    return [v in ("on", True) for v in values]
