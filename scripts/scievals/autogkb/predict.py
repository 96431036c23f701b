"""Predictions: one JSONL record per article (and sample) for one model.

- ``autogkb_baseline`` (provider ``baseline``): the deterministic extractor of
  :mod:`scievals.autogkb.baseline` with the curated drug vocabulary; condition ``baseline``.
- LLM models: the extraction prompt of :mod:`scievals.autogkb.prompts` through
  :func:`scievals.llm.runner.run_batch` (cache, retries, concurrency, accounting);
  condition ``<text_mode>`` (``evidence`` or ``fulltext``), with ``@t<temperature>`` for each
  of ``autogkb.temperatures`` when that is not the default ``[0.0]``; each reply kept raw
  and parsed.
- Bring your own: ``predictions/autogkb/<model>.json``, an object PMCID -> list of
  annotations, validated and parsed like a reply (:func:`import_predictions`).

Record keys: case_id, model, condition, sample_index, prompt_version, prompt_sha256,
raw_text, annotations, parse_status, parse_method, parse_error, parse_warnings, error,
tokens_in, tokens_out, latency_s, cache_hit, attempts.
"""

from __future__ import annotations

import itertools
import json
import logging
from pathlib import Path
from typing import Any

from scievals.autogkb import baseline
from scievals.autogkb.curate import read_cases
from scievals.autogkb.data import load_articles, test_pmcids
from scievals.autogkb.experiments import feedback, item_inputs
from scievals.autogkb.fields import KEY_ALIASES, squash
from scievals.autogkb.metrics import FIELDS, count_duplicates
from scievals.autogkb.parser import ParseResult, parse_annotations, parse_reply
from scievals.autogkb.prompts import (
    CONFIDENCE,
    PROMPT_VERSION,
    build_request,
    confidence_settings,
)
from scievals.common import notices
from scievals.common.errors import ScievalsError
from scievals.common.experiments import Condition, temperature_arms
from scievals.common.io import (
    canonical_json,
    read_json,
    refuse_unwritable_text,
    sha256_text,
    write_json,
    write_jsonl,
)
from scievals.common.names import named_with_hints
from scievals.llm.parsing import refuse_cut_short
from scievals.llm.registry import model_spec
from scievals.llm.settings import LLMSettings
from scievals.llm.usage import summarize_usage

log = logging.getLogger(__name__)

BASELINES = ("autogkb_baseline",)
BYO_CONDITION = "user"


def _record(case_id: str, model: str, condition: str, parsed: ParseResult, **extra) -> dict:
    rec = {"case_id": case_id, "model": model, "condition": condition, "sample_index": 0,
           "prompt_version": None, "prompt_sha256": None, "raw_text": None, "error": None,
           "tokens_in": 0, "tokens_out": 0, "latency_s": 0.0, "cache_hit": False, "attempts": 0}
    rec.update(parsed.as_record())
    rec.update(extra)
    return rec


def baseline_predictions(cases: list[dict], model: str, vocabulary: set[str]) -> list[dict]:
    if model not in BASELINES:
        raise ScievalsError(f"config: models.{model}", "no autogkb baseline of this name",
                            f"autogkb baselines: {list(BASELINES)}")
    return [_record(c["case_id"], model, "baseline",
                    ParseResult("ok", method="baseline",
                                annotations=baseline.extract(c["text"], vocabulary)),
                    prompt_version=baseline.BASELINE_VERSION)
            for c in cases]


def reply_record(case: dict, model: str, request, response, condition: str | None = None) -> dict:
    """A prediction record from one LLM response; ``condition`` defaults to the article's
    text mode (a temperature arm or a refinement turn passes its own name)."""
    parsed = (parse_reply(response.text) if response.error is None
              else ParseResult("failed", error=f"model error: {response.error}"))
    parsed = refuse_cut_short(parsed, response.stop_reason, annotations=[])
    return _record(
        case["case_id"], model, condition or case["text_mode"], parsed,
        sample_index=response.sample_index, prompt_version=PROMPT_VERSION,
        prompt_sha256=sha256_text(canonical_json([m.model_dump() for m in request.messages])),
        raw_text=response.text, error=response.error, tokens_in=response.usage.tokens_in,
        tokens_out=response.usage.tokens_out, latency_s=response.latency_s,
        cache_hit=response.cache_hit, attempts=response.attempts)


def llm_predictions(cases: list[dict], spec, config: dict) -> tuple[list[dict], dict]:
    """Every article at every configured temperature (``autogkb.temperatures``); the usage
    summary of the whole run, with one per condition when there are several."""
    from scievals.llm.runner import run_batch  # the 'llm' extra (SDKs, tenacity)

    settings = LLMSettings.from_config(config.get("llm"))
    turns = int((config.get("autogkb") or {}).get("refine_turns") or 0)
    section = config.get("autogkb") or {}
    temperatures = temperature_arms(section.get("temperatures"))
    arms = list(itertools.product(confidence_settings(section), temperatures))
    records, responses, by_condition, turn_usage = [], [], {}, {}
    for confidence, temperature in arms:
        requests = [build_request(c, confidence) for c in cases]
        by_id = {c["case_id"]: (c, r) for c, r in zip(cases, requests)}
        shown = Condition("", confidence, temperature).name
        label = f"{spec.name} [autogkb{shown}]"
        arm_spec = spec.at_temperature(temperature)
        result = run_batch(arm_spec, requests, settings,
                           scope=f"autogkb/{PROMPT_VERSION}", label=label)
        if turns:
            arm_records, arm_turns = refined(by_id, arm_spec, settings, result.responses, turns,
                                             temperature, confidence)
            records += arm_records
            turn_usage.update(arm_turns)
        for response in result.responses:
            case, request = by_id[response.case_id]
            condition = Condition(case["text_mode"], confidence, temperature).name
            if not turns:
                records.append(reply_record(case, spec.name, request, response, condition))
            by_condition.setdefault(condition, []).append(response)
        responses += result.responses
        if len(arms) == 1:
            usage = result.usage.model_dump(mode="json")
            return records, ({**usage, "turns": turn_usage} if turns else usage)
    usage = summarize_usage(spec, responses).model_dump(mode="json")
    usage["conditions"] = {c: summarize_usage(spec, rs).model_dump(mode="json")
                           for c, rs in by_condition.items()}
    if turns:
        usage["turns"] = turn_usage
    return records, usage


def refined(by_id: dict, spec, settings, responses: list, turns: int,
            temperature: float | None = None, confidence: bool = False
            ) -> tuple[list[dict], dict]:
    """The records of turn 0 and of ``turns`` refinement turns (feedback from
    :func:`scievals.autogkb.experiments.feedback` on each article's text, never its curated
    annotations), and each later turn's usage by its condition name (``<mode>#turn<k>``)."""
    from scievals.llm.refine import refined_records

    inputs = {case_id: item_inputs(case) for case_id, (case, _) in by_id.items()}

    def arm(mode: str) -> Condition:
        return Condition(mode, confidence, temperature)

    def record(request, response, turn: int) -> dict:
        case = by_id[response.case_id][0]
        condition = arm(case["text_mode"]).with_turn(turn).name
        return reply_record(case, spec.name, request, response, condition=condition)

    def said(rec: dict, response) -> str | None:
        if response.error is not None:
            return None  # no reply to give feedback on
        ok = rec["parse_status"] == "ok"
        return feedback(rec["annotations"] if ok else rec["parse_error"],
                        inputs[rec["case_id"]])

    first = [(by_id[r.case_id][1].model_copy(update={"sample_index": r.sample_index}), r)
             for r in responses]
    out, usages, _ = refined_records(spec, first, turns, record, said, settings,
                                     scope=f"autogkb/{PROMPT_VERSION}",
                                     label=f"{spec.name} [autogkb]")
    modes = sorted({case["text_mode"] for case, _ in by_id.values()})
    usage = {arm(mode).with_turn(k).name: u.model_dump(mode="json")
             for mode in modes for k, u in enumerate(usages, 1)}
    return out, usage


def run(cases_jsonl, vocabulary_json, model_name: str, config: dict, out_jsonl,
        usage_json) -> list[dict]:
    """Predict every case with ``model_name``; write the records and the usage summary."""
    cases = read_cases(cases_jsonl)
    spec = model_spec(model_name, config)
    if spec.provider == "baseline":
        vocabulary = set(read_json(vocabulary_json)["drugs"])
        records = baseline_predictions(cases, model_name, vocabulary)
        usage = {"model": model_name, "provider": "baseline", "requests": 0}
    else:
        records, usage = llm_predictions(cases, spec, config)
    failures = sum(r["parse_status"] != "ok" for r in records)
    log.info("%s: %d predictions, %d unparseable", model_name, len(records), failures)
    write_jsonl(out_jsonl, records)
    write_json(usage_json, usage)
    return records


class _NotJson(str):
    """NaN, Infinity or -Infinity in a file: Python reads them, JSON has no such values."""


def _own_item_problem(item: Any, index: int) -> str | None:
    """What makes one annotation of an own file unusable, or None. Stricter than a model's
    reply (whose numbers and lists are turned into text with a warning): an own file is
    written by a program, and such a value is a bug in it, not a paraphrase."""
    if not isinstance(item, dict):
        return None  # parse_annotations names it
    # a stated confidence is read by experiments.units (an invalid one is counted there)
    unknown = [k for k in item if KEY_ALIASES.get(squash(str(k))) is None and k != CONFIDENCE]
    if unknown:
        return (f"item {index}: unknown key(s) {', '.join(named_with_hints(unknown, FIELDS))}; "
                f"the fields are {list(FIELDS)}")
    for key, value in item.items():
        if key == CONFIDENCE:
            continue
        if isinstance(value, _NotJson):
            return (f"item {index} field {key!r}: {value} is not JSON "
                    "(write null for a missing value)")
        if value is not None and not isinstance(value, str):
            shown = json.dumps(value)[:40]
            return (f"item {index} field {key!r}: a {type(value).__name__} ({shown}), not text "
                    "(write the value as a string, several joined with ', ', or null)")
    return None


def _own_data(user_json, case_ids: set[str]) -> dict:
    data = read_json(user_json, parse_constant=_NotJson)
    refuse_unwritable_text(data, str(user_json))  # else the score step fails writing it
    if not isinstance(data, dict):
        raise ScievalsError(user_json, f"expected a JSON object PMCID -> list of annotations, "
                            f"got a {type(data).__name__}",
                            'write {"PMC123": [{"Variant/Haplotypes": ..., ...}], ...}')
    unknown = sorted(set(data) - case_ids)
    if unknown:
        raise ScievalsError(f"{user_json}: {unknown[0]}", f"unknown PMCID ({len(unknown)} "
                            "unknown in all)", f"use the benchmark's PMCIDs: {sorted(case_ids)}")
    return data


def _own_record(user_json, pmcid: str, value: Any, model: str) -> dict:
    """One article of an own file as a record; one ScievalsError naming article and field."""
    problems = ([_own_item_problem(item, i) for i, item in enumerate(value)]
                if isinstance(value, list) else [])
    problem = next((p for p in problems if p), None)
    parsed = parse_annotations(value, "user")
    if problem is None and not parsed.ok:
        problem = parsed.error
    if problem:
        raise ScievalsError(f"{user_json}: {pmcid}", problem, OWN_FILE_FIX)
    return _record(pmcid, model, BYO_CONDITION, parsed)


def _user_records(user_json, case_ids: set[str], model: str) -> list[dict]:
    data = _own_data(user_json, case_ids)
    return [_own_record(user_json, pmcid, value, model) for pmcid, value in sorted(data.items())]


OWN_FILE_FIX = ('write {"PMCID": [{"Gene": "...", ...}, ...]} with the ten field names and '
                'text or null values (docs/autogkb.md, own files)')


def import_predictions(user_json, cases_jsonl, model: str, out_jsonl) -> list[dict]:
    """A user's ``{PMCID: [annotation, ...]}`` file -> records as :func:`run` writes them.

    Unknown PMCIDs are an error; an article the file leaves out is scored as a missing
    prediction (0, with a note); an entry that is not a usable list of annotations (an
    unknown key, a number, list or object in a text field, NaN/Infinity) stops the import
    with one line naming the file, article and field.
    """
    case_ids = {c["case_id"] for c in read_cases(cases_jsonl)}
    records = _user_records(user_json, case_ids, model)
    _notice_duplicates(user_json, model, records)
    write_jsonl(out_jsonl, records)
    return records


def duplicate_counts(records: list[dict]) -> dict[str, int]:
    """PMCID -> annotations repeating an earlier one of the article (as the scorer sees them)."""
    counts = {r["case_id"]: count_duplicates(r["annotations"]) for r in records
              if r["parse_status"] == "ok"}
    return {case_id: n for case_id, n in counts.items() if n}


def _notice_duplicates(user_json, model: str, records: list[dict]) -> None:
    """Say so when an own file repeats annotations: they raise the reference ``score``
    (a kept quirk), while ``one_to_one_score``, which ranks, counts each once."""
    counts = duplicate_counts(records)
    if not counts:
        return
    listed = ", ".join(f"{case_id} ({n})" for case_id, n in sorted(counts.items())[:5])
    more = f" and {len(counts) - 5} more article(s)" if len(counts) > 5 else ""
    notices.record(
        "other", "autogkb",
        f"{user_json}: {sum(counts.values())} duplicated annotation(s) in {len(counts)} "
        f"article(s): {listed}{more}. Model {model!r}'s reference `score` counts every copy "
        "(it can exceed 100); one_to_one_score, which ranks, counts each annotation once",
        details={"model": model, "duplicates": counts},
    )


def check_user_file(user_json, cases_jsonl=None) -> tuple[list[str], list[str]]:
    """(errors, warnings) of a bring-your-own file, as the workflow's import sees it.

    Errors stop the import (not a PMCID object, an unknown PMCID, an unusable entry);
    warnings are what the workflow accepts with a note (a missing article, scored 0;
    duplicated annotations)."""
    if cases_jsonl and Path(cases_jsonl).exists():
        case_ids = {c["case_id"] for c in read_cases(cases_jsonl)}
    else:
        case_ids = set(test_pmcids(load_articles()))
    try:
        data = _own_data(user_json, case_ids)
    except ScievalsError as exc:
        return [exc.one_line()], []
    errors, records = [], []
    for pmcid, value in sorted(data.items()):
        try:
            records.append(_own_record(user_json, pmcid, value, "check"))
        except ScievalsError as exc:
            errors.append(f"{pmcid}: {exc.problem}")
    warnings = [f"{case_id}: {n} duplicated annotation(s)"
                for case_id, n in sorted(duplicate_counts(records).items())]
    missing = sorted(case_ids - set(data))
    if missing:
        warnings.append(f"{len(missing)} article(s) missing (scored 0): {', '.join(missing)}")
    return errors, warnings


# The jobs of autogkb_predict_baseline/_llm and autogkb_import:
# scievals.common.entry.run_stage imports this module for them alone, so a job
# loads its own stage's code and nothing else.
def stage_predict(smk) -> None:
    """One model (baseline or LLM), every article."""
    run(smk.input.cases, smk.input.vocabulary, smk.wildcards.model, dict(smk.params.config),
        smk.output.predictions, smk.output.usage)


def stage_import(smk) -> None:
    """A user's own predictions/autogkb/<model>.json."""
    import_predictions(smk.input.user, smk.input.cases, smk.wildcards.model,
                       smk.output.predictions)
