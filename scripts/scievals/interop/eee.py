"""Every Eval Ever (schema 0.3.0) records from this project's tables.

One record per (benchmark, model, condition), as EEE's field guide asks: the condition (a
gating context/strategy, waza's no-skill arm ``<model> [no-skill]``) goes into
``evaluation_id``, never into the model id. A benchmark whose conditions are partitions of
one evaluation (abdev's folds, named by its registry ``headline_condition``) keeps them as
results of one record instead, the fold in ``evaluation_result_id``.

- aggregate: one ``evaluation_results`` entry per summary row (dataset x metric); our
  ``ci_low``/``ci_high``/``ci_method``/``n`` become ``uncertainty.confidence_interval``
  (level 0.95, our method name), ``num_samples`` and, for bootstrap methods,
  ``num_bootstrap_samples``; dataset sha256, config hash, commit, version and the limited
  flag go into string -> string ``additional_details``; rows without a finite value (a
  Spearman of a constant prediction) cannot be a score and are named in
  ``eval_library.additional_details["rows_without_a_value"]``;
- instances: one row per item the sample viewer shows (``scievals.common.samples.Sample``):
  input, reply, expected answer, the value parsed from the reply (``answer_attribution``;
  the reply itself where nothing is parsed from it), score, tokens, latency, cost and the
  item's metrics (``metadata``, strings). An item without a score (a failed request) gets score 0,
  ``is_correct`` false and ``metadata["scored"] = "false"``: the schema needs a number.

What the schema cannot carry (paired differences, Holm-adjusted p, ranks): :data:`NOT_CARRIED`.
:func:`problems` checks a record pair against the vendored JSON schemas and the checks the
EEE validator adds (file layout, companion file, finite scores within declared bounds,
deployment fields).
"""

from __future__ import annotations

import json
import math
import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path, PurePosixPath

import pandas as pd
from jsonschema import Draft7Validator

from scievals import __version__
from scievals import registry
from scievals.common.io import write_jsonl, write_text
from scievals.llm.usage_rows import BATCH_METRICS, USAGE_METRICS, USAGE_METRICS_IF_ANY
from scievals.stats.intervals import metric_range

SCHEMA_VERSION = "0.3.0"
SCHEMA_DIR = Path(__file__).parent / "schemas" / "every_eval_ever_0.3.0"
CONFIDENCE_LEVEL = 0.95  # every interval of the tables is a 95 % one (docs/statistics.md)
NOT_CARRIED = ("not carried by the Every Eval Ever schema: paired differences between models "
               "(comparisons.csv), Holm-adjusted p (p_holm), ranks and tiers")
# waza's arm without skills is a leaderboard row of its own: "<model> [no-skill]".
ARM = re.compile(r"^(?P<model>.+?) \[(?P<arm>[^\]]+)\]$")
# Metrics where smaller is better (the others: larger is better).
LOWER_IS_BETTER = ("hallucination_rate*", "task_failure_rate", "within_task_score_sd",
                   "tokens_in", "tokens_out", "cost_usd", "failed_requests", "latency*",
                   "reasoning_tokens", "cached_tokens_in", "cache_write_tokens_in")
USAGE = (frozenset(USAGE_METRICS) | frozenset(USAGE_METRICS_IF_ANY) | frozenset(BATCH_METRICS)
         | {"latency_mean_s"})
BOOTSTRAP_METHODS = ("percentile", "bca", "bootstrap")
# A model whose developer the registry does not say (a local server's "llama3.1:8b").
LOCAL_DEVELOPER = "local"
_UNSAFE = re.compile(r'[<>:"/\\|?*\x00-\x1f]')


def _text(value) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)


def _finite(value) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _component(name: str) -> str:
    """A portable folder name (EEE's datastore rules: no reserved characters, no trailing
    dot or space, never ``data``)."""
    safe = _UNSAFE.sub("_", name).rstrip(". ") or "_"
    return "_data" if safe == "data" else safe


def split_arm(model: str) -> tuple[str, str]:
    """(model, arm) of a table's model name: ``waza_mock [no-skill]`` -> (waza_mock, no-skill)."""
    match = ARM.match(model)
    return (match["model"], match["arm"]) if match else (model, "")


def model_info(model: str, entry: Mapping | None) -> dict:
    """EEE ``model_info`` of a registry entry (None: the user's own prediction file)."""
    entry = dict(entry or {})
    provider = entry.get("provider")
    model_id = str(entry.get("model") or model)
    base_url = entry.get("base_url")
    if provider in ("baseline", "mock"):
        developer, deployment, availability = "scievals", "self_deployed", "open_weights"
    elif provider is None:  # an own prediction file: who made it is not known here
        developer, deployment, availability = "own-files", "unknown", "unknown"
    elif "/" in model_id:  # vLLM / Hugging Face style ids carry their developer
        developer = model_id.split("/", 1)[0]
        deployment = "self_deployed" if base_url else "externally_managed"
        availability = "unknown"
    elif base_url:  # an OpenAI-compatible server of the user's
        developer, deployment, availability = LOCAL_DEVELOPER, "self_deployed", "unknown"
    else:
        developer, deployment, availability = provider, "externally_managed", "closed_weights"
    name = model_id.split("/", 1)[1] if model_id.startswith(developer + "/") else model_id
    details = {"deployment_type": deployment, "model_availability": availability,
               "scievals_model": model}
    if provider:
        details["provider"] = str(provider)
    info = {"name": name, "id": f"{developer}/{name}", "developer": developer,
            "additional_details": details}
    if provider not in (None, "baseline", "mock"):
        info["inference_platform"] = "local" if base_url else str(provider)
    return info


def lower_is_better(metric: str) -> bool:
    name = metric.rpartition(":")[2]
    return any(fnmatchcase(name, pattern) for pattern in LOWER_IS_BETTER)


def metric_bounds(benchmark: str, metric: str) -> tuple[float | str, float | str]:
    """(min_score, max_score) as EEE writes them (``"Infinity"`` for an open end): usage
    rows are counts and dollars, the rest the benchmark's declared ranges."""
    if metric in USAGE:
        low, high = 0.0, math.inf
    else:
        low, high = metric_range(_ranges(benchmark), metric)

    def bound(value: float) -> float | str:
        return value if math.isfinite(value) else ("Infinity" if value > 0 else "-Infinity")

    return bound(low), bound(high)


@cache
def _ranges(benchmark: str) -> dict:
    return registry.get(benchmark).ranges()


def partitions(benchmark: str) -> bool:
    """True when the benchmark's conditions are parts of one evaluation (abdev's folds, of
    which the registry names one ``headline_condition``), not variants of it."""
    return registry.get(benchmark).headline_condition is not None


@dataclass(frozen=True)
class RunFacts:
    """What every record of one run shares."""

    retrieved_timestamp: str  # Unix epoch seconds, as EEE wants it: a string
    started_utc: str = ""
    run_id: str = ""
    n_resamples: int = 0
    organization: str = "scievals"
    extras: Mapping[str, str] = field(default_factory=dict)


@dataclass
class Record:
    """One aggregate record and its instance rows, with the names EEE files them under."""

    benchmark: str
    model: str  # the table's model name (arm included)
    condition: str
    aggregate: dict
    instances: list[dict]
    uuid: str
    items: list[dict] = field(default_factory=list)  # the viewer's samples behind instances

    @property
    def folder(self) -> PurePosixPath:
        """``data/<collection>/<developer>/<model>``: the EEE datastore folder."""
        info = self.aggregate["model_info"]
        return PurePosixPath("data", _component(self.benchmark),
                             _component(info["developer"]), _component(info["name"]))

    @property
    def aggregate_path(self) -> PurePosixPath:
        return self.folder / f"{self.uuid}.json"

    @property
    def samples_path(self) -> PurePosixPath:
        return self.folder / f"{self.uuid}_samples.jsonl"


def _uncertainty(row: Mapping, n_resamples: int) -> dict:
    out: dict = {}
    low, high = _finite(row.get("ci_low")), _finite(row.get("ci_high"))
    method = _text(row.get("ci_method"))
    if low is not None and high is not None:
        out["confidence_interval"] = {"lower": low, "upper": high,
                                      "confidence_level": CONFIDENCE_LEVEL,
                                      **({"method": method} if method else {})}
        if n_resamples and any(m in method for m in BOOTSTRAP_METHODS):
            out["num_bootstrap_samples"] = int(n_resamples)
    n = _finite(row.get("n"))
    if n is not None and n >= 0:
        out["num_samples"] = int(n)
    return out


def _result(benchmark: str, row: Mapping, n_resamples: int, condition_in_id: bool) -> dict:
    metric, dataset = str(row["metric"]), _text(row.get("dataset"))
    low, high = metric_bounds(benchmark, metric)
    condition = _text(row.get("condition"))
    result_id = "/".join(filter(None, [dataset, condition if condition_in_id else "", metric]))
    details = {"dataset_sha256": _text(row.get("dataset_sha256")),
               "config_hash": _text(row.get("config_hash")),
               "limited": "true" if "(limited to " in dataset else "false"}
    if condition_in_id:
        details["condition"] = condition
    score = {"score": float(row["value"])}
    uncertainty = _uncertainty(row, n_resamples)
    if uncertainty:
        score["uncertainty"] = uncertainty
    return {
        "evaluation_result_id": result_id,
        "evaluation_name": f"{benchmark}/{dataset}",
        "source_data": {"dataset_name": dataset, "source_type": "other",
                        "additional_details": details},
        "metric_config": {"metric_id": metric, "metric_name": metric,
                          "metric_kind": "usage" if metric in USAGE else "benchmark_metric",
                          "lower_is_better": lower_is_better(metric),
                          "score_type": "continuous", "min_score": low, "max_score": high},
        "score_details": score,
    }


def _generation_config(entry: Mapping | None) -> dict | None:
    params = dict((entry or {}).get("params") or {})
    args = {}
    if isinstance(params.get("temperature"), (int, float)):
        args["temperature"] = float(params["temperature"])
    if isinstance(params.get("max_tokens"), int) and params["max_tokens"] >= 1:
        args["max_tokens"] = params["max_tokens"]
    return {"generation_args": args} if args else None


def aggregate(benchmark: str, model: str, condition: str, rows: pd.DataFrame,
              entry: Mapping | None, facts: RunFacts, samples_path: str | None = None,
              total_rows: int = 0) -> dict:
    """The aggregate record of one (benchmark, model, condition)'s summary ``rows``."""
    base, _ = split_arm(model)
    info = model_info(base, entry)
    partitioned = partitions(benchmark)
    results, missing = [], []
    generation = _generation_config(entry)
    for row in rows.to_dict("records"):
        if _finite(row.get("value")) is None:
            missing.append("/".join(filter(None, [_text(row.get("condition")), row["metric"]])))
            continue
        result = _result(benchmark, row, facts.n_resamples, partitioned)
        if generation:
            result["generation_config"] = generation
        results.append(result)
    first = rows.iloc[0] if len(rows) else {}
    library = {"git_commit": _text(first.get("git_commit")),
               "run_id": facts.run_id, **dict(facts.extras)}
    if missing:
        library["rows_without_a_value"] = ";".join(missing)
    variant = "@" + condition if condition else ""
    record = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": f"{benchmark}{variant}/{info['id']}/{facts.retrieved_timestamp}",
        "retrieved_timestamp": facts.retrieved_timestamp,
        "source_metadata": {
            "source_name": f"scievals run {facts.run_id}".strip(),
            "source_type": "evaluation_run",
            "source_organization_name": facts.organization,
            "evaluator_relationship": ("first_party" if (entry or {}).get("provider")
                                       in ("baseline", "mock") else "third_party")},
        "model_info": info,
        "eval_library": {"name": "scievals",
                         "version": _text(first.get("scievals_version")) or __version__,
                         "additional_details": {k: str(v) for k, v in library.items() if v}},
        "evaluation_results": results,
    }
    if facts.started_utc:
        record["evaluation_timestamp"] = facts.started_utc
    if samples_path:
        record["detailed_evaluation_results"] = {"format": "jsonl", "file_path": samples_path,
                                                 "total_rows": total_rows}
    return record


def instance_row(sample: Mapping, evaluation_id: str, model_id: str, evaluation_name: str,
                 result_ids: set[str], partitioned: bool) -> dict:
    """One EEE instance row of a viewer sample (``Sample.as_dict()``)."""
    score = _finite(sample.get("score"))
    condition = _text(sample.get("condition"))
    metadata = {"condition": condition, "outcome": _text(sample.get("outcome")),
                "parse_status": _text(sample.get("parse_status")),
                "score_name": _text(sample.get("score_name")),
                "scored": "true" if score is not None else "false"}
    for name, value in (sample.get("metrics") or {}).items():
        metadata[f"metric.{name}"] = _text(value)
    if sample.get("cost_usd") is not None:
        metadata["cost_usd"] = _text(sample["cost_usd"])
    if sample.get("rationale"):
        metadata["rationale"] = str(sample["rationale"])
    reply = _text(sample.get("reply"))
    row = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "model_id": model_id,
        "evaluation_name": evaluation_name,
        "sample_id": str(sample["item"]),
        "interaction_type": "single_turn",
        "input": {"raw": _text(sample.get("input")),
                  "reference": [_text(sample.get("expected"))]},
        "output": {"raw": [reply]},
        "answer_attribution": [{"turn_idx": 0, "source": "output.raw",
                                "extracted_value": _text(sample.get("parsed")) or reply,
                                "extraction_method": metadata["parse_status"] or "-",
                                "is_terminal": True}],
        "evaluation": {"score": score if score is not None else 0.0,
                       "is_correct": _is_correct(sample, score)},
        "metadata": metadata,
    }
    score_name = _text(sample.get("score_name"))
    for result_id in result_ids:  # the aggregate's result this item's score is part of
        if result_id.rpartition("/")[2] == score_name and (
                not partitioned or f"/{condition}/" in f"/{result_id}"):
            row["evaluation_result_id"] = result_id
            break
    tokens_in, tokens_out = sample.get("tokens_in"), sample.get("tokens_out")
    if isinstance(tokens_in, int) and isinstance(tokens_out, int) and min(tokens_in,
                                                                          tokens_out) >= 0:
        row["token_usage"] = {"input_tokens": tokens_in, "output_tokens": tokens_out,
                              "total_tokens": tokens_in + tokens_out}
    latency = _finite(sample.get("latency_s"))
    if latency is not None and latency >= 0:
        row["performance"] = {"latency_ms": latency * 1000}
    if sample.get("outcome") == "request failed":
        row["error"] = _text(sample.get("rationale")) or "request failed"
    return row


def _is_correct(sample: Mapping, score: float | None) -> bool:
    """Pass/fail where the benchmark says it (waza's passed/failed), else a full score."""
    outcome = sample.get("outcome")
    if outcome in ("passed", "failed"):
        return outcome == "passed"
    return score is not None and score >= 1.0


def build_records(summary: pd.DataFrame, samples: Mapping[tuple[str, str], list[dict]],
                  models: Mapping[str, Mapping], facts: RunFacts,
                  keys: Iterable[tuple[str, str]] | None = None) -> list[Record]:
    """The records of ``summary``'s (benchmark, model) pairs (all, or those in ``keys``),
    with each pair's items from ``samples`` ((benchmark, model) -> Sample dicts) and each
    model's registry entry from ``models`` (absent: an own prediction file)."""
    frame = summary.copy()
    frame["condition"] = frame["condition"].fillna("").astype(str)
    wanted = None if keys is None else set(keys)
    out = []
    for (benchmark, model), rows in frame.groupby(["benchmark", "model"], sort=True):
        base, arm = split_arm(model)
        if wanted is not None and (benchmark, base) not in wanted:
            continue
        partitioned = partitions(benchmark)
        items = samples.get((benchmark, model))
        if items is None and arm:  # an arm's items are its model's, under its condition
            items = [s for s in samples.get((benchmark, base), [])
                     if (s.get("condition") or "") == arm]
        items = items or []
        groups = ([("", rows)] if partitioned
                  else list(rows.groupby("condition", sort=True)))
        for condition, group in groups:
            condition = "/".join(filter(None, [condition, arm]))
            mine = [s for s in items if partitioned or arm or (s.get("condition") or "") == (
                group["condition"].iloc[0])]
            out.append(record(benchmark, model, condition, group, mine, models.get(base), facts))
    return out


def record(benchmark: str, model: str, condition: str, rows: pd.DataFrame, items: list[dict],
           entry: Mapping | None, facts: RunFacts) -> Record:
    """One :class:`Record`: the aggregate of ``rows`` and an instance row per item."""
    made = Record(benchmark, model, condition, {}, [], str(uuid.uuid4()), items)
    made.aggregate = aggregate(benchmark, model, condition, rows, entry, facts)
    made.aggregate["detailed_evaluation_results"] = {
        "format": "jsonl", "file_path": str(made.samples_path), "total_rows": len(items)}
    if not items:  # EEE wants at least one row in a companion file: then there is none
        del made.aggregate["detailed_evaluation_results"]
    results = made.aggregate["evaluation_results"]
    result_ids = {r["evaluation_result_id"] for r in results}
    names = {r["evaluation_result_id"]: r["evaluation_name"] for r in results}
    datasets = sorted({r["source_data"]["dataset_name"] for r in results}, key=len,
                      reverse=True)
    made.instances = []
    derived: dict[str, list[float]] = {}
    for item in items:
        row = instance_row(item, made.aggregate["evaluation_id"],
                           made.aggregate["model_info"]["id"], benchmark, result_ids,
                           partitions(benchmark))
        if "evaluation_result_id" not in row:
            # the item's score is no row of the tables (abdev's per-fold mean Spearman of
            # five assays, waza's weighted run score): it joins a result of its own, the
            # mean of those items, added below
            dataset = _dataset_of(str(item["item"]), datasets)
            metric = _metric_id(_text(item.get("score_name")) or "score")
            row["evaluation_result_id"] = "/".join(filter(None, [dataset, metric]))
            names.setdefault(row["evaluation_result_id"], f"{benchmark}/{dataset}")
            score = _finite(item.get("score"))
            derived.setdefault(row["evaluation_result_id"], [])
            if score is not None:
                derived[row["evaluation_result_id"]].append(score)
        row["evaluation_name"] = names[row["evaluation_result_id"]]
        made.instances.append(row)
    for result_id, scores in derived.items():
        if scores:  # a result needs a finite score; rows without one then join none
            results.append(_derived_result(benchmark, result_id, names[result_id], scores,
                                           items))
        else:
            for row in made.instances:
                if row.get("evaluation_result_id") == result_id:
                    del row["evaluation_result_id"]
    return made


def _metric_id(name: str) -> str:
    """A sample's score name as a metric id: ``mean Spearman (5 assays)`` ->
    ``mean_spearman_5_assays`` (so ``*spearman*`` ranges match it)."""
    return re.sub(r"[^a-z0-9@^]+", "_", name.lower()).strip("_") or "score"


def _dataset_of(item: str, datasets: list[str]) -> str:
    """The dataset of a record an item belongs to: the only one, or the one its suite
    prefix names (waza's ``azure-deploy/...#1`` in ``azure-deploy-demo``); longest first."""
    if len(datasets) == 1:
        return datasets[0]
    prefix = item.split("/", 1)[0]
    for dataset in datasets:
        if dataset == prefix or dataset.startswith(prefix + "-"):
            return dataset
    return datasets[0] if datasets else ""


def _derived_result(benchmark: str, result_id: str, name: str, scores: list[float],
                    items: list[dict]) -> dict:
    """The result an item score that is no table row joins: the mean of the record's items
    that carry it, said in ``additional_details`` (it is not a row of summary.csv)."""
    metric = result_id.rpartition("/")[2]
    score_name = next((_text(i.get("score_name")) for i in items
                       if _metric_id(_text(i.get("score_name")) or "score") == metric), metric)
    low, high = metric_bounds(benchmark, metric)
    mean = sum(scores) / len(scores)
    if not (_bound(low) <= mean <= _bound(high)):  # a range the items do not keep to
        low, high = "-Infinity", "Infinity"
    return {
        "evaluation_result_id": result_id,
        "evaluation_name": name,
        "source_data": {"dataset_name": name.partition("/")[2], "source_type": "other",
                        "additional_details": {
                            "derived_from": "the mean of this record's instance rows' scores "
                            f"({score_name}); not a row of summary.csv"}},
        "metric_config": {"metric_id": metric, "metric_name": score_name,
                          "metric_kind": "benchmark_metric",
                          "lower_is_better": lower_is_better(metric),
                          "score_type": "continuous", "min_score": low, "max_score": high},
        "score_details": {"score": mean, "uncertainty": {"num_samples": len(scores)}},
    }


def dumps(data) -> str:
    """Strict JSON (EEE refuses NaN and Infinity as numbers)."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False, sort_keys=True)


def write_record(made: Record, root: str | Path) -> list[Path]:
    """Write ``made`` under ``root`` (``root/data/...``), each file atomically; the paths."""
    return write_pair(root, str(made.aggregate_path), made.aggregate, made.instances)


def write_pair(root: str | Path, repo_path: str, aggregate_record: dict,
               instances: list[dict]) -> list[Path]:
    """An aggregate at ``root/repo_path`` and its instance rows beside it (when it has any)."""
    paths = [Path(root) / repo_path]
    write_text(paths[0], dumps(aggregate_record) + "\n")  # one line: half the indented size
    if instances:
        paths.append(paths[0].with_name(paths[0].stem + "_samples.jsonl"))
        write_jsonl(paths[1], (json.loads(dumps(row)) for row in instances))
    return paths


# --- checks: the JSON schemas plus what EEE's validator adds --------------------------------

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
_FILE = re.compile(rf"{_UUID}(\.json|_samples\.jsonl)")


@cache
def validators():
    """(aggregate, instance) jsonschema validators of the vendored 0.3.0 schemas."""
    loaded = [json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
              for name in ("eval.schema.json", "instance_level_eval.schema.json")]
    return tuple(Draft7Validator(schema) for schema in loaded)


def problems(aggregate_record: dict, instances: list[dict], repo_path: str) -> list[str]:
    """What EEE 0.3.0 would refuse in this record pair (``repo_path``: the aggregate's
    ``data/...`` path); [] when it passes."""
    aggregate_check, instance_check = validators()
    found = [f"{repo_path}: {e.json_path}: {e.message}"
             for e in aggregate_check.iter_errors(aggregate_record)]
    for number, row in enumerate(instances, start=1):
        found += [f"{repo_path} samples line {number}: {e.json_path}: {e.message}"
                  for e in instance_check.iter_errors(row)]
    parts = repo_path.split("/")
    if len(parts) != 5 or parts[0] != "data" or not _FILE.fullmatch(parts[4]):
        found.append(f"{repo_path}: not data/<collection>/<developer>/<model>/<uuid4>.json")
    detail = aggregate_record.get("detailed_evaluation_results")
    if detail:
        expected = str(PurePosixPath(repo_path).with_name(
            PurePosixPath(repo_path).stem + "_samples.jsonl"))
        if detail.get("file_path") != expected:
            found.append(f"{repo_path}: companion path is not {expected}")
        if detail.get("total_rows") != len(instances) or not instances:
            found.append(f"{repo_path}: total_rows {detail.get('total_rows')} but "
                         f"{len(instances)} sample rows")
    elif instances:
        found.append(f"{repo_path}: sample rows without detailed_evaluation_results")
    ids = {(r.get("evaluation_id"), r.get("model_id")) for r in instances}
    want = (aggregate_record.get("evaluation_id"), aggregate_record["model_info"].get("id"))
    if ids - {want}:
        found.append(f"{repo_path}: sample rows name another evaluation_id or model_id")
    for index, result in enumerate(aggregate_record.get("evaluation_results", [])):
        metric, score = result["metric_config"], result["score_details"]["score"]
        low, high = (_bound(metric.get(k)) for k in ("min_score", "max_score"))
        if low is None or high is None or not low <= score <= high:
            found.append(f"{repo_path}: evaluation_results[{index}] score {score} outside "
                         f"[{metric.get('min_score')}, {metric.get('max_score')}]")
    return found


def _bound(value) -> float | None:
    if value in ("Infinity", "-Infinity"):
        return math.inf if value == "Infinity" else -math.inf
    return _finite(value)
