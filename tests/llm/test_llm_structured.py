"""Structured output (scievals.llm.structured): the benchmarks' schemas are in OpenAI's strict
subset, the requests carry them to the local fake server in each provider's parameter, a
server that rejects the parameter gets one retry without it and a notice, and the cache key
changes with it."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator, ValidationError, validate
from llm_helpers import anthropic_spec, openai_spec
from scievals.autogkb.prompts import REPLY_SCHEMA as AUTOGKB_SCHEMA
from scievals.autogkb.prompts import build_request as autogkb_request
from scievals.common.errors import ScievalsError
from scievals.gating.prompts import REPLY_SCHEMA as GATING_SCHEMA
from scievals.gating.prompts import build_request as gating_request
from scievals.llm import structured
from scievals.llm.cache import cache_key, key_material
from scievals.llm.providers.openai_compat import OpenAICompatAPI
from scievals.llm.runner import run_batch

CASE = {"test_case_id": "C1", "panel": {"entries": [{"marker": "CD3", "fluorophore": "FITC"},
                                                    {"marker": "CD4", "fluorophore": "PE"}]},
        "context": {"sample_type": "PBMC", "species": "human", "application": "test"}}
ARTICLE = {"case_id": "PMID1", "title": "A study", "text_mode": "evidence", "text": "rs1 ..."}


def strict_subset_ok(schema: dict) -> None:
    """Valid JSON Schema (the 2020-12 metaschema) and inside OpenAI's strict subset."""
    Draft202012Validator.check_schema(schema)
    assert structured.strict_problems(schema) == []


@pytest.mark.parametrize("reply_schema", [GATING_SCHEMA, AUTOGKB_SCHEMA])
def test_the_benchmark_schemas_are_in_the_strict_subset(reply_schema):
    strict_subset_ok(reply_schema["schema"])
    unrolled = structured.unroll(reply_schema["schema"], structured.ANTHROPIC_DEPTH)
    strict_subset_ok(unrolled)
    assert "$ref" not in json.dumps(unrolled)


def test_the_strict_checker_finds_what_the_subset_refuses():
    open_object = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    assert structured.strict_problems(open_object) == ["$: additionalProperties must be false"]
    optional = {**open_object, "additionalProperties": False, "required": []}
    assert structured.strict_problems(optional) == ["$: every property must be required"]
    bounded = {"type": "object", "additionalProperties": False, "required": ["a"],
               "properties": {"a": {"type": "array", "maxItems": 3,
                                    "items": {"type": "string", "minLength": 1}}}}
    assert structured.strict_problems(bounded) == ["$.a: maxItems is not allowed",
                                                   "$.a[]: minLength is not allowed"]
    assert structured.strict_problems({"type": "array", "items": {"type": "string"}}) == [
        "$: the root must be an object"]


def test_a_gating_reply_that_fits_the_schema_parses_and_a_deep_one_fits_the_unrolled_one():
    from scievals.gating.parser import parse_prediction

    tree = {"name": "All Events", "markers": [], "children": [
        {"name": "Singlets", "markers": ["FSC-A"], "children": [
            {"name": "CD3+", "markers": ["CD3"], "children": []}]}]}
    validate(tree, GATING_SCHEMA["schema"])
    assert parse_prediction(json.dumps(tree)).ok
    with pytest.raises(ValidationError):  # closed: an extra key is refused
        validate({**tree, "note": "x"}, GATING_SCHEMA["schema"])
    deep = {"name": "g17", "markers": [], "children": []}  # 17 levels down, as the deepest truth
    for i in range(16, -1, -1):
        deep = {"name": f"g{i}", "markers": [], "children": [deep]}
    validate(deep, structured.unroll(GATING_SCHEMA["schema"], structured.ANTHROPIC_DEPTH))


def test_gating_and_autogkb_requests_carry_response_format(server, settings, fake_key):
    spec = openai_spec(server)
    requests = [gating_request(CASE, "minimal", "direct"), autogkb_request(ARTICLE),
                gating_request(CASE, "minimal", "cot")]
    result = run_batch(spec, requests, settings, scope="test/structured")
    bodies = [r["body"] for r in server.requests]
    by_schema = {b.get("response_format", {}).get("json_schema", {}).get("name"): b
                 for b in bodies}
    assert set(by_schema) == {"gating_hierarchy", "variant_annotations", None}
    for name, reply_schema in (("gating_hierarchy", GATING_SCHEMA),
                               ("variant_annotations", AUTOGKB_SCHEMA)):
        sent = by_schema[name]["response_format"]
        assert sent["type"] == "json_schema" and sent["json_schema"]["strict"] is True
        assert sent["json_schema"]["schema"] == reply_schema["schema"]
        strict_subset_ok(sent["json_schema"]["schema"])
    # cot asks for reasoning before the JSON: no schema
    assert "response_format" not in by_schema[None]
    assert [r.structured_output for r in result.responses] == ["sent", "sent", None]


def test_an_anthropic_request_carries_output_config_format(server, settings, fake_key):
    spec = anthropic_spec(server)
    run_batch(spec, [gating_request(CASE, "rich", "direct")], settings, scope="test/structured")
    [request] = server.requests
    fmt = request["body"]["output_config"]["format"]
    assert fmt["type"] == "json_schema"
    strict_subset_ok(fmt["schema"])
    assert "$ref" not in json.dumps(fmt["schema"])  # Anthropic takes no recursive schema
    assert fmt["schema"] == structured.unroll(GATING_SCHEMA["schema"], structured.ANTHROPIC_DEPTH)


def test_a_server_that_rejects_the_parameter_gets_one_retry_and_a_notice(
        server, settings, fake_key, notice_dir):
    server.rejected_params = {"response_format"}
    spec = openai_spec(server, max_connections=1)
    requests = [gating_request(CASE, "minimal", "direct"),
                gating_request({**CASE, "test_case_id": "C2"}, "standard", "direct")]
    result = run_batch(spec, requests, settings, scope="test/structured")
    # request 1: with the parameter (400), again without it; request 2: without it at once
    assert ["response_format" in r["body"] for r in server.requests] == [True, False, False]
    assert all(r.error is None and r.text.startswith("reply: ") for r in result.responses)
    assert [r.structured_output for r in result.responses] == ["refused", "refused"]
    [line] = [json.loads(x) for x in (notice_dir / next(iter(
        p.name for p in notice_dir.iterdir()))).read_text().splitlines()]
    assert line["kind"] == "structured_output_refused"
    assert line["message"].startswith("fake-gpt: the server rejected structured output, so 2 of "
                                      "2 requests went without the JSON schema")


def test_on_makes_a_rejection_fail_and_off_sends_nothing(server, settings, fake_key):
    server.rejected_params = {"response_format"}
    with pytest.raises(ScievalsError, match="response_format"):
        run_batch(openai_spec(server, structured_output="on"),
                  [gating_request(CASE, "minimal", "direct")], settings, scope="test/structured")
    assert server.count == 1  # no retry without the parameter
    server.reset_log()
    result = run_batch(openai_spec(server, structured_output="off"),
                       [gating_request(CASE, "minimal", "direct")], settings,
                       scope="test/structured")
    assert "response_format" not in server.requests[0]["body"]
    assert result.responses[0].structured_output is None


def test_the_cache_key_includes_the_parameter(server):
    request = gating_request(CASE, "minimal", "direct")

    def key(spec, req):
        params = spec.params
        return cache_key(key_material(spec, req, params, "s", OpenAICompatAPI.cache_extra(spec,
                                                                                         req)))

    auto, off = openai_spec(server), openai_spec(server, structured_output="off")
    assert key(auto, request) != key(off, request)
    # without a schema on the request, the key is what it was before structured output
    plain = request.model_copy(update={"json_schema": None})
    assert key(auto, plain) == key(off, plain) == key(off, request)
    other = request.model_copy(update={"json_schema": AUTOGKB_SCHEMA})
    assert key(auto, other) != key(auto, request)
