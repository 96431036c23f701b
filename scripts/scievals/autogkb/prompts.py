"""The extraction prompt: the article text, the ten field names and their allowed values.

:data:`PROMPT_VERSION` changes whenever the wording or the reply parser
(:mod:`scievals.autogkb.parser`) changes: it is the ``code_version`` of the LLM predict
rule, and the wording is part of the LLM cache key.
"""

from __future__ import annotations

import copy
import json

from scievals.autogkb.fields import ALLOWED_VALUES, FIELD_HELP
from scievals.autogkb.metrics import FIELDS
from scievals.llm.base import LLMRequest, Message

PROMPT_VERSION = "autogkb-prompt-v2"  # v2: requests carry the reply's JSON schema

SYSTEM = ("You are a PharmGKB/ClinPGx curator who extracts variant-phenotype annotations from "
          "pharmacogenomic articles.")

_TASK = """Extract every variant-phenotype association this article reports (ClinPGx
"variant and clinical phenotype" annotations): one annotation per variant (or haplotype group),
drug and phenotype combination, including reported non-associations.

Answer with a JSON list of objects. Every object has exactly these {n} keys, spelled exactly as
written (with the slashes, brackets and capitals), and a string or null as each value:

{fields}

Allowed values:
{allowed}

Example of one list element:
{example}

Give only the JSON list in your answer (an empty list [] if the article reports none)."""

EXAMPLE = {
    "Variant/Haplotypes": "rs4149056",
    "Gene": "SLCO1B1",
    "Drug(s)": "simvastatin",
    "Phenotype Category": "Toxicity",
    "Alleles": "CC + CT",
    "Is/Is Not associated": "Associated with",
    "Direction of effect": "increased",
    "Phenotype": "Side Effect:Myopathy",
    "When treated with/exposed to/when assayed with": "when treated with",
    "Comparison Allele(s) or Genotype(s)": "TT",
}


# confidence: "on" (issue 42): every annotation also states how sure the model is; "off"
# (the default) leaves the prompt and schema, and so the cached requests, as they were.
CONFIDENCE = "confidence"
CONFIDENCE_FIELD = {
    "type": "number",
    "description": "Probability (0 to 1) that a curator's annotation of this article matches "
                   "this one.",
}
_CONFIDENCE_TASK = (
    'Add to every object one more key, "confidence": a number from 0 to 1, your probability '
    "that a ClinPGx curator's annotation of this article matches this one. Be calibrated: of "
    "the annotations you give 0.7, about 7 in 10 should match a curated one.\n\n"
)


def build_prompt(case: dict, confidence: bool = False) -> str:
    fields = "\n".join(f"- \"{f}\": {FIELD_HELP[f]}" for f in FIELDS)
    allowed = "\n".join(f"- \"{f}\": " + ", ".join(f"\"{v}\"" for v in values) + ", or null"
                        for f, values in ALLOWED_VALUES.items())
    example = {**EXAMPLE, CONFIDENCE: 0.8} if confidence else EXAMPLE
    task = _TASK.format(n=len(FIELDS), fields=fields, allowed=allowed,
                        example=json.dumps(example, indent=2))
    if confidence:
        last = "Give only the JSON list"
        task = task.replace(last, _CONFIDENCE_TASK + last)
    header = f"## Article {case['case_id']}"
    if case.get("title"):
        header += f": {case['title']}"
    mode = ("the curated evidence sentences of the article" if case["text_mode"] == "evidence"
            else "the article's full text")
    return f"{header}\n\nBelow is {mode}.\n\n<article>\n{case['text']}\n</article>\n\n{task}"


# The reply's JSON schema, for servers that enforce it (scievals.llm.structured). The strict
# subset wants an object at the root, so the list is held under "annotations" (a key the parser
# reads, scievals.autogkb.parser.LIST_KEYS); each value a string or null, as the prompt says.
REPLY_SCHEMA = {
    "name": "variant_annotations",
    "schema": {
        "type": "object",
        "properties": {"annotations": {"type": "array", "items": {
            "type": "object",
            "properties": {f: {"type": ["string", "null"]} for f in FIELDS},
            "required": list(FIELDS),
            "additionalProperties": False,
        }}},
        "required": ["annotations"],
        "additionalProperties": False,
    },
}


def reply_schema(confidence: bool = False) -> dict:
    """:data:`REPLY_SCHEMA`, with a required ``confidence`` number on every annotation when
    ``confidence``."""
    if not confidence:
        return REPLY_SCHEMA
    schema = copy.deepcopy(REPLY_SCHEMA)
    schema["name"] = "variant_annotations_with_confidence"
    item = schema["schema"]["properties"]["annotations"]["items"]
    item["properties"][CONFIDENCE] = dict(CONFIDENCE_FIELD)
    item["required"].append(CONFIDENCE)
    return schema


def build_request(case: dict, confidence: bool = False) -> LLMRequest:
    return LLMRequest(case_id=case["case_id"],
                      messages=[Message(role="system", content=SYSTEM),
                                Message(role="user", content=build_prompt(case, confidence))],
                      json_schema=reply_schema(confidence))


def confidence_settings(section: dict) -> list[bool]:
    """The config's ``confidence`` ("off", "on" or a list of them) as prompt switches; a bare
    YAML on / off arrives as true / false and means the same."""
    value = section.get("confidence", "off")
    return [v in ("on", True) for v in (value if isinstance(value, list) else [value])]
