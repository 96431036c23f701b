"""Structured output: asking the server to enforce a benchmark's JSON schema on the reply.

A benchmark that asks for JSON puts ``{"name", "schema"}`` on its request
(``LLMRequest.json_schema``), the schema in OpenAI's strict subset (:func:`strict_problems`):
every object closed (``additionalProperties: false``) with every property required, no
length or number constraints; recursion only as ``{"$ref": "#"}`` (a tree of gates).

- OpenAI-compatible servers get ``response_format: {"type": "json_schema", "json_schema":
  {"name", "schema", "strict": true}}`` (OpenAI, vLLM, llama.cpp's server, Ollama >= 0.5).
- Anthropic gets ``output_config: {"format": {"type": "json_schema", "schema": ...}}``; it
  takes no recursive schema, so ``{"$ref": "#"}`` is unrolled to :data:`ANTHROPIC_DEPTH` levels.

``structured_output`` per model: ``auto`` (default) sends the schema, and a server that rejects
it (HTTP 400 naming the parameter, or any 400 that the same request without it does not get)
gets the request once more without it, from then on without it, and a notice at the end of
the run; ``on`` sends it and a rejection fails the request as any 400 does, naming
``structured_output: "off"`` as the fix; ``off`` never sends it. The reply is parsed and validated by the benchmark as
before: a server may accept the parameter and ignore it, and ``max_tokens`` can cut a
conforming reply short.
"""

from __future__ import annotations

import copy
import re
from typing import Any

# Providers that can be asked (the mock provider answers from a script; baselines ask no one).
SUPPORTED = ("openai", "anthropic")
# Deeper than any curated gating tree (17 levels): a reply may nest as deep as the truth does.
ANTHROPIC_DEPTH = 24
# A 400 that names one of these is a rejection of the parameter, not of the prompt.
_PARAMETER = re.compile(r"response_format|json_schema|output_config|output_format|"
                        r"structured output|\bformat\b", re.IGNORECASE)
# Keywords OpenAI's strict mode refuses (length and number constraints, open-ended objects).
_REFUSED = ("minLength", "maxLength", "pattern", "format", "minimum", "maximum",
            "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
            "uniqueItems", "minProperties", "maxProperties", "patternProperties")


def sends(spec, request) -> bool:
    """Is the schema sent with this request (the model's setting and the provider allow it)?"""
    return (request.json_schema is not None and spec.structured_output != "off"
            and spec.provider in SUPPORTED)


def rejects_parameter(exc) -> bool:
    """Is a rejected request a 400 about the structured-output parameter?"""
    return getattr(exc, "status", None) == 400 and bool(_PARAMETER.search(str(exc)))


def openai_parameter(json_schema: dict) -> dict:
    return {"type": "json_schema", "json_schema": {
        "name": json_schema["name"], "schema": json_schema["schema"], "strict": True}}


def anthropic_parameter(json_schema: dict) -> dict:
    return {"format": {"type": "json_schema",
                       "schema": unroll(json_schema["schema"], ANTHROPIC_DEPTH)}}


def unroll(schema: dict, depth: int) -> dict:
    """``schema`` with each ``{"$ref": "#"}`` (an array's items) replaced by the schema itself,
    ``depth`` levels deep; at the last level the array property is left out (and out of
    ``required``), so the result has no reference and no recursion."""

    def level(remaining: int) -> dict:
        node = copy.deepcopy(schema)
        properties = node.get("properties", {})
        for name, prop in list(properties.items()):
            if isinstance(prop, dict) and prop.get("items") == {"$ref": "#"}:
                if remaining > 1:
                    prop["items"] = level(remaining - 1)
                else:
                    del properties[name]
                    node["required"] = [r for r in node.get("required", []) if r != name]
        return node

    return level(depth)


def strict_problems(schema: Any, where: str = "$") -> list[str]:
    """Where ``schema`` leaves OpenAI's strict subset (an empty list: it is inside)."""
    problems: list[str] = []
    if not isinstance(schema, dict):
        return [f"{where}: not an object"]
    if set(schema) == {"$ref"}:
        return [] if schema["$ref"] == "#" or schema["$ref"].startswith("#/$defs/") else [
            f"{where}: $ref {schema['$ref']!r} is not local"]
    for keyword in _REFUSED:
        if keyword in schema:
            problems.append(f"{where}: {keyword} is not allowed")
    types = schema.get("type")
    types = types if isinstance(types, list) else [types]
    if "object" in types:
        properties = schema.get("properties")
        if not isinstance(properties, dict) or not properties:
            problems.append(f"{where}: an object needs properties")
            properties = {}
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties must be false")
        if sorted(schema.get("required", [])) != sorted(properties):
            problems.append(f"{where}: every property must be required")
        for name, sub in properties.items():
            problems += strict_problems(sub, f"{where}.{name}")
    if "array" in types:
        problems += strict_problems(schema.get("items"), f"{where}[]")
    for keyword in ("anyOf",):
        for i, sub in enumerate(schema.get(keyword, [])):
            problems += strict_problems(sub, f"{where}.{keyword}[{i}]")
    for name, sub in schema.get("$defs", {}).items():
        problems += strict_problems(sub, f"{where}.$defs.{name}")
    if where == "$" and "object" not in types:
        problems.append("$: the root must be an object")
    return problems
