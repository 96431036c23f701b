"""Predictions: one JSONL record per (case, condition, sample).

- ``marker_baseline`` (provider ``baseline``) ignores prompts, so it makes one
  prediction per case under the single condition ``baseline``; repeating it under
  six prompt conditions would only copy the same tree six times.
- LLM models (any other provider) answer every configured context x strategy (x
  temperature: ``gating.temperatures``), condition ``f"{context}_{strategy}"`` (with
  ``@t<temperature>`` when the setting is not the default ``[0.0]``,
  :mod:`scievals.common.experiments`), through :func:`scievals.llm.runner.run_batch`
  (cache, retries, concurrency, accounting). Each reply is kept raw and parsed, with
  the parse method/status and a task-failure label.

Record keys: case_id, model, condition, context, strategy, sample_index,
prompt_version, prompt_sha256, raw_text, hierarchy (or null), parse_status,
parse_method, parse_error, parse_warnings, task_failure, error, tokens_in,
tokens_out, latency_s, cache_hit, attempts.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator

from scievals.common.errors import ScievalsError
from scievals.common.experiments import Condition, temperature_arms
from scievals.common.io import (
    canonical_json,
    refuse_unwritable_text,
    sha256_text,
    write_json,
    write_jsonl,
)
from scievals.common.names import named_with_hints
from scievals.gating import baseline
from scievals.gating.cases import read_cases
from scievals.gating.experiments import feedback, item_inputs
from scievals.gating.parser import ParseResult, parse_prediction, parse_reply
from scievals.gating.prompts import (
    CONTEXTS,
    PROMPT_VERSION,
    STRATEGIES,
    build_request,
    condition_name,
    confidence_settings,
)
from scievals.gating.records import DEEP_FIX, Duplicates, iter_lines
from scievals.gating.task_failure import classify
from scievals.gating.tree import TOO_DEEP, junk_names
from scievals.llm.parsing import refuse_cut_short
from scievals.llm.refine import REFINE_KEYS
from scievals.llm.registry import model_spec
from scievals.llm.settings import LLMSettings
from scievals.llm.usage import summarize_usage

log = logging.getLogger(__name__)

BASELINES = {"marker_baseline": baseline.predict_hierarchy}
# Bump when a baseline's predictions change: re-runs gating_predict_baseline (and scoring).
BASELINE_VERSION = "gating-baselines-v2"  # v2: stated confidences
BASELINE_CONDITION = "baseline"


def _record(case_id: str, model: str, condition: str, parsed: ParseResult, **extra) -> dict:
    rec = {
        "case_id": case_id, "model": model, "condition": condition,
        "context": None, "strategy": None, "sample_index": 0,
        "prompt_version": None, "prompt_sha256": None, "raw_text": None,
        "hierarchy": parsed.hierarchy, "task_failure": "none", "error": None,
        "tokens_in": 0, "tokens_out": 0, "latency_s": 0.0, "cache_hit": False, "attempts": 0,
    }
    rec.update(parsed.as_record())
    rec.update(extra)
    return rec


def baseline_predictions(cases: list[dict], model: str) -> list[dict]:
    if model not in BASELINES:
        raise ScievalsError(f"config: models.{model}", "no gating baseline of this name",
                            f"gating baselines: {sorted(BASELINES)}")
    predict = BASELINES[model]
    records = []
    for case in cases:
        parsed = ParseResult("ok", method="baseline", hierarchy=predict(case))
        records.append(_record(case["test_case_id"], model, BASELINE_CONDITION, parsed,
                               prompt_version=baseline.BASELINE_VERSION))
    return records


def reply_record(case_id: str, model: str, context: str, strategy: str, request, response,
                 condition: str | None = None) -> dict:
    """A prediction record from one LLM response (parsed, classified); ``condition`` defaults
    to ``<context>_<strategy>`` (a temperature arm or a refinement turn passes its own name)."""
    text = response.text
    parsed = parse_reply(text) if response.error is None else ParseResult(
        "failed", error=f"model error: {response.error}")
    repaired = parsed.ok
    parsed = refuse_cut_short(parsed, response.stop_reason, hierarchy=None)
    failure = ("truncated" if repaired and not parsed.ok
               else classify(text, parsed.ok, response.error))
    return _record(
        case_id, model, condition or condition_name(context, strategy), parsed,
        context=context, strategy=strategy, sample_index=response.sample_index,
        prompt_version=PROMPT_VERSION,
        prompt_sha256=sha256_text(canonical_json([m.model_dump() for m in request.messages])),
        raw_text=text, task_failure=failure, error=response.error,
        tokens_in=response.usage.tokens_in, tokens_out=response.usage.tokens_out,
        latency_s=response.latency_s, cache_hit=response.cache_hit, attempts=response.attempts,
    )


def llm_predictions(cases: list[dict], spec, config: dict) -> tuple[list[dict], dict]:
    from scievals.llm.runner import run_batch  # the 'llm' extra (SDKs, tenacity)

    section = config.get("gating") or {}
    contexts = section.get("contexts") or list(CONTEXTS)
    strategies = section.get("strategies") or list(STRATEGIES)
    turns = int(section.get("refine_turns") or 0)
    temperatures = temperature_arms(section.get("temperatures"))
    settings = LLMSettings.from_config(config.get("llm"))
    records: list[dict] = []
    all_responses = []
    by_condition = {}
    arms = itertools.product(contexts, strategies, confidence_settings(section), temperatures)
    for context, strategy, confidence, temperature in arms:
        arm = Condition(condition_name(context, strategy), confidence, temperature)
        condition = arm.name
        arm_spec = spec.at_temperature(temperature)
        requests = [build_request(case, context, strategy, confidence) for case in cases]
        log.info("%s: %d prompts for condition %s", spec.name, len(requests), condition,
                 extra={"terminal": False})  # the batch's own line says it on the terminal
        result = run_batch(arm_spec, requests, settings, scope="gating", label=condition)
        by_request = {r.case_id: r for r in requests}
        if turns:
            turn_records, turn_usage, sent = refined(cases, arm_spec, settings, context,
                                                     strategy, arm, by_request,
                                                     result.responses, turns)
            records += turn_records
            by_condition.update(turn_usage)
            all_responses += sent  # the follow-ups' cost is the model's too
        else:
            for response in result.responses:
                records.append(reply_record(response.case_id, spec.name, context, strategy,
                                            by_request[response.case_id], response, condition))
        all_responses += result.responses
        by_condition[condition] = result.usage.model_dump(mode="json")
    total = summarize_usage(spec, all_responses).model_dump(mode="json")
    return records, {"total": total, "conditions": by_condition}


def refined(cases: list[dict], spec, settings, context: str, strategy: str, base: Condition,
            by_request: dict, responses: list, turns: int) -> tuple[list[dict], dict, list]:
    """The records of turn 0 and of ``turns`` refinement turns (feedback from
    :func:`scievals.gating.experiments.feedback` on each case's inputs, never its truth),
    each later turn's usage by its condition name (``<condition>#turn<k>``), and the
    responses the follow-ups got."""
    from scievals.llm.refine import REVISED, refined_records

    inputs = {c["test_case_id"]: item_inputs(c) for c in cases}

    def record(request, response, turn: int) -> dict:
        return reply_record(response.case_id, spec.name, context, strategy, request, response,
                            condition=base.with_turn(turn).name)

    def said(rec: dict, response) -> str | None:
        if response.error is not None:
            return None  # no reply to give feedback on
        ok = rec["parse_status"] == "ok" and rec["hierarchy"] is not None
        return feedback(rec["hierarchy"] if ok else rec["parse_error"], inputs[rec["case_id"]])

    first = [(by_request[r.case_id].model_copy(update={"sample_index": r.sample_index}), r)
             for r in responses]
    out, usages, later = refined_records(spec, first, turns, record, said, settings,
                                         scope="gating", label=base.name)
    usage = {base.with_turn(k).name: u.model_dump(mode="json") for k, u in enumerate(usages, 1)}
    sent = [t.response for t in later if t.status == REVISED]
    return out, usage, sent


def run(cases_jsonl, model_name: str, config: dict, out_jsonl, usage_json) -> list[dict]:
    """Predict every case with ``model_name`` (all configured conditions for LLMs)."""
    cases = read_cases(cases_jsonl)
    spec = model_spec(model_name, config)
    if spec.provider == "baseline":
        records = baseline_predictions(cases, model_name)
        usage = {"total": {"model": model_name, "provider": "baseline", "requests": 0},
                 "conditions": {}}
    else:
        records, usage = llm_predictions(cases, spec, config)
    failures = sum(1 for r in records if r["parse_status"] != "ok")
    log.info("%s: %d predictions, %d unparseable", model_name, len(records), failures)
    write_jsonl(out_jsonl, records)
    write_json(usage_json, usage)
    return records


# --- bring your own predictions -------------------------------------------------------------

TEXT_KEYS = ("raw_text", "reply", "response", "text")
# Keys an own prediction line may have: what it is read from, and the rest of a record as
# run() writes it (a copied predictions.jsonl imports as it is). Anything else is refused, with
# "did you mean": a misspelt key would otherwise be dropped ("id" made "unknown case_id None").
USER_KEYS = ("case_id", "test_case_id", "hierarchy", *TEXT_KEYS, "condition", "sample_index",
             "context", "strategy")
RECORD_KEYS = tuple(_record("", "", "", ParseResult("failed")))


def normalise_user_record(raw: dict, where: str, model: str, case_ids: set[str]) -> dict:
    """A user's prediction line -> a record as :func:`run` writes it (parsed here)."""
    if not isinstance(raw, dict):
        raise ScievalsError(where, "a prediction line must be a JSON object",
                            'use {"case_id": ..., "hierarchy": {...}} or {"case_id": ..., "raw_text": "..."}')
    unknown = [k for k in raw if k not in USER_KEYS and k not in RECORD_KEYS
               and k not in REFINE_KEYS]  # a copied refinement run's file imports as it is
    if unknown:
        named = ", ".join(named_with_hints(unknown, USER_KEYS))
        raise ScievalsError(where, f"unknown key(s) {named}",
                            f"a prediction line's keys are {list(USER_KEYS)}")
    case_id = raw.get("case_id", raw.get("test_case_id"))
    if not isinstance(case_id, str) or case_id not in case_ids:
        raise ScievalsError(where, f"unknown case_id {case_id!r}",
                            "use the test_case_id values of the case file (gating cases --list)")
    condition = str(raw.get("condition") or "user")
    sample_index = raw.get("sample_index") or 0
    if not isinstance(sample_index, int) or isinstance(sample_index, bool) or sample_index < 0:
        raise ScievalsError(where, f"sample_index {sample_index!r} is not a whole number >= 0",
                            "number repeated samples of a case 0, 1, 2, ...")
    if raw.get("hierarchy") is not None:
        junk = junk_names(raw["hierarchy"])
        if junk:  # str() would make 5 or [] a gate and count the tree as parsed
            raise ScievalsError(where,
                                f"gate name(s) that are not non-empty text: {'; '.join(junk)}",
                                'give every gate its name as a string, e.g. "name": "Singlets"')
        parsed = parse_prediction(raw["hierarchy"])
        text = None
    else:
        key = next((k for k in TEXT_KEYS if raw.get(k) is not None), None)
        if key is None:
            raise ScievalsError(where, "no hierarchy and no reply text",
                                f"give 'hierarchy' or one of {list(TEXT_KEYS)}")
        text = raw[key]
        if not isinstance(text, str):
            raise ScievalsError(where, f"'{key}' is a {type(text).__name__}, not text",
                                "give the model's reply as a string, or the tree as 'hierarchy'")
        parsed = parse_reply(text)
    if parsed.error == TOO_DEEP:
        raise ScievalsError(where, TOO_DEEP, DEEP_FIX)
    return _record(
        str(case_id), model, condition, parsed,
        sample_index=sample_index, raw_text=text,
        context=raw.get("context"), strategy=raw.get("strategy"),
        task_failure=classify(text, parsed.ok) if text is not None else
        ("none" if parsed.ok else "unparseable"),
    )


def imported_records(user_jsonl, cases_jsonl, model: str) -> Iterator[dict]:
    """A user's prediction file validated and parsed into the standard record format, one
    record at a time (a file of 100,000 trees is never held whole); every problem is a
    ScievalsError, duplicates once the whole file is read."""
    case_ids = {c["test_case_id"] for c in read_cases(cases_jsonl)}
    duplicates = Duplicates()
    empty = True
    for i, raw in iter_lines(user_jsonl):
        empty = False
        # text the score step could not write: refused here, in one line
        refuse_unwritable_text(raw, f"{user_jsonl}:{i}")
        record = normalise_user_record(raw, f"{user_jsonl}:{i}", model, case_ids)
        duplicates.see(i, record)
        yield record
    if empty:
        raise ScievalsError(user_jsonl, "prediction file is empty", "one JSON object per line")
    duplicates.refuse(user_jsonl)


def import_predictions(user_jsonl, cases_jsonl, model: str, out_jsonl) -> list[dict]:
    """Validate and parse a user's prediction file into ``out_jsonl`` (written atomically,
    so a refused file leaves nothing); the records, for callers that want them (the
    workflow's import job streams instead: :func:`stage_import`)."""
    records: list[dict] = []
    write_jsonl(out_jsonl, _kept(imported_records(user_jsonl, cases_jsonl, model), records))
    return records


def _kept(records: Iterator[dict], into: list[dict]) -> Iterator[dict]:
    for record in records:
        into.append(record)
        yield record


# The jobs of gating_predict_baseline/_llm and gating_import:
# scievals.common.entry.run_stage imports this module for them alone, so a job
# loads its own stage's code and nothing else.
def stage_predict(smk) -> None:
    """One model (baseline or LLM), every case and prompt condition."""
    run(smk.input.cases, smk.wildcards.model, dict(smk.params.config), smk.output.predictions,
        smk.output.usage)


def stage_import(smk) -> None:
    """A user's own prediction file, validated and parsed."""
    write_jsonl(smk.output.predictions,
                imported_records(smk.input.user, smk.input.cases, smk.wildcards.model))
