"""Every Eval Ever records in (schema 0.3.0): the aggregate JSON and its instance rows
``<uuid>_samples.jsonl`` beside it, both checked against the vendored schemas
(``schemas/every_eval_ever_0.3.0``) with jsonschema.

An item is an instance row's ``sample_id`` (rows of one sample repeated are its samples, in
file order); a metric is the row's ``evaluation_name`` (joined to its result by
``evaluation_result_id`` when given) and its ``metric_id``, with the result's
``metric_config``: ``min_score``/``max_score`` the range ([0, 1] for ``score_type`` binary),
``lower_is_better`` the direction; pass/fail when every score is 0 or 1 in [0, 1]. A row our
export marks ``metadata["scored"] = "false"`` (a failed request; the schema needs a score, so
it says 0) is left out and counted, never scored 0.
"""

from __future__ import annotations

import math
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.common.io import iter_jsonl
from scievals.interop.runs import ImportedRun, Usage, add_row_usage, finished
from scievals.interop.runs import number as json_float


def looks_like_eee(data) -> bool:
    return isinstance(data, dict) and "evaluation_results" in data and "model_info" in data


def validator(name: str):
    """The validator of the vendored schema ``name`` (loaded once, by the writer's module)."""
    # here: jsonschema is imported only when a record is read (start-up of commands)
    from scievals.interop.eee import validators

    aggregate, instance = validators()
    return aggregate if name == "eval.schema.json" else instance


def schema_problem(data, name: str) -> str | None:
    """The first way ``data`` breaks the schema ``name`` (a path and message), or None."""
    error = next(iter(sorted(validator(name).iter_errors(data), key=lambda e: list(e.path))),
                 None)
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(top)"
    return f"{where}: {error.message[:200]}"


def read_record(path: Path, data: dict) -> ImportedRun:
    """An Every Eval Ever aggregate record already parsed, with its instance rows."""
    problem = schema_problem(data, "eval.schema.json")
    if problem:
        raise ScievalsError(path, f"not a valid Every Eval Ever 0.3.0 record ({problem})",
                            "check it with `python -m every_eval_ever validate`")
    samples = _instance_file(path, data)
    results = data["evaluation_results"]
    by_id = {r["evaluation_result_id"]: r for r in results if r.get("evaluation_result_id")}
    by_name: dict[str, list] = {}
    for result in results:
        by_name.setdefault(result["evaluation_name"], []).append(result)
    records, declared, seen, unnamed, failed, spent = [], {}, {}, 0, set(), {}
    model = data["model_info"]["id"]
    for number, row in _rows(samples):
        result = by_id.get(row.get("evaluation_result_id"))
        if result is None:  # no join key: the evaluation's result when it has only one
            named = by_name.get(row["evaluation_name"]) or []
            result = named[0] if len(named) == 1 else None
            unnamed += len(named) > 1
        name = row["evaluation_name"]
        metric = _metric_name(result, by_name)
        key = (name, metric, row["sample_id"])
        seen[key] = seen.get(key, 0) + 1
        add_row_usage(spent.setdefault(name, Usage()), row)  # a failed request's too
        if (row.get("metadata") or {}).get("scored") == "false":
            failed.add((name, str(row["sample_id"])))  # our failed request: no score, not 0
            continue
        records.append((name, metric, row["sample_id"], seen[key],
                        json_float(row["evaluation"]["score"])))
        if result is not None and (name, metric) not in declared:
            declared[(name, metric)] = _declared(result["metric_config"])
    library = data["eval_library"]
    fmt = f"Every Eval Ever 0.3.0 record ({library['name']} {library['version']})"
    notes = [f"{unnamed} instance row(s) without an evaluation_result_id in an evaluation of "
             "several results: which result they score is not said, so they are metric "
             "'score'"] if unnamed else []
    if failed:
        notes.append(f"{len(failed)} item(s) marked scored: false (a failed request, written "
                     "with score 0 because the schema needs a number) left out, not counted 0")
    run = finished(path, fmt, model, records, declared, _reported(results), notes, failed)
    run.usage = spent
    condition = _our_condition(data)
    if condition:  # one of our records of a condition: labelled as `logs` labels it
        run.arm = f"{model} [{condition}]"
    return run


def _our_condition(data: dict) -> str:
    """The condition of a record scievals exported (``<benchmark>@<condition>/...`` in its
    evaluation_id: scievals.interop.eee), or ""."""
    if data["eval_library"].get("name") != "scievals":
        return ""
    return str(data.get("evaluation_id", "")).split("/", 1)[0].partition("@")[2]


def _instance_file(path: Path, data: dict) -> Path:
    detail = data.get("detailed_evaluation_results") or {}
    names = [f"{path.stem}_samples.jsonl"]
    if detail.get("file_path"):
        names.insert(0, Path(detail["file_path"]).name)
    for name in names:
        if (path.parent / name).is_file():
            return path.parent / name
    raise ScievalsError(path, f"no instance rows beside it ({names[-1]})",
                        "an aggregate record alone has no per-item scores: keep its "
                        "_samples.jsonl next to it")


def _rows(path: Path):
    """(row number, instance row) of the instance file, each checked against the schema."""
    for number, row in enumerate(iter_jsonl(path), start=1):
        problem = schema_problem(row, "instance_level_eval.schema.json")
        if problem:
            raise ScievalsError(f"{path}: row {number}", "not an Every Eval Ever 0.3.0 "
                                f"instance row ({problem})", "check it with the validator")
        yield number, row


def _metric_name(result, by_name) -> str:
    if result is None:
        return "score"
    config = result["metric_config"]
    return str(config.get("metric_id") or config.get("metric_name") or "score")


def _bound(value, default: float) -> float:
    if value is None:
        return default
    if value in ("Infinity", "-Infinity"):
        return math.inf if value == "Infinity" else -math.inf
    return float(value)


def _declared(config: dict) -> tuple:
    """(declared range or None, lower_is_better) of a result's metric_config."""
    binary = config.get("score_type") == "binary"
    if "min_score" in config or "max_score" in config:
        rng = (_bound(config.get("min_score"), -math.inf), _bound(config.get("max_score"),
                                                                  math.inf))
    else:
        rng = (0.0, 1.0) if binary else None
    return (rng, bool(config["lower_is_better"]))


def _reported(results: list) -> dict[str, float]:
    out = {}
    for result in results:
        value = (result.get("score_details") or {}).get("score")
        if isinstance(value, (int, float)):
            out[f"{result['evaluation_name']}/{_metric_name(result, {})}"] = float(value)
    return out
