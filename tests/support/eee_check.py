"""The Every Eval Ever 0.3.0 validator's verdict on a record pair, written for the tests from
its code (every_eval_ever/validator/validation_core.py: the JSON schemas, then the datastore
path, companion file, ids, finite scores within declared bounds and deployment fields),
with jsonschema and the schema files vendored unchanged from the wheel."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from jsonschema import Draft7Validator

SCHEMAS = (Path(__file__).resolve().parents[2] / "scripts" / "scievals" / "interop" / "schemas"
           / "every_eval_ever_0.3.0")
AGGREGATE = Draft7Validator(json.loads((SCHEMAS / "eval.schema.json").read_text()))
INSTANCE = Draft7Validator(json.loads((SCHEMAS / "instance_level_eval.schema.json").read_text()))
UUID4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"


def validator_errors(aggregate: dict, rows: list[dict], repo_path: str) -> list[str]:
    """The EEE validator's verdict, as its code reads (schema + registered checks)."""
    errors = [e.message for e in AGGREGATE.iter_errors(aggregate)]
    errors += [e.message for row in rows for e in INSTANCE.iter_errors(row)]
    # strict JSON: no NaN or Infinity numbers anywhere
    json.dumps(aggregate, allow_nan=False), [json.dumps(r, allow_nan=False) for r in rows]
    if not re.fullmatch(rf"data/[^/]+/[^/]+/[^/]+/{UUID4}\.json", repo_path):
        errors.append("path")
    detail = aggregate.get("detailed_evaluation_results")
    if rows:
        assert detail is not None, "a samples file needs detailed_evaluation_results"
        if detail["file_path"] != repo_path[:-len(".json")] + "_samples.jsonl":
            errors.append("companion path")
        if detail["format"] != "jsonl" or detail.get("total_rows") != len(rows):
            errors.append("companion format/rows")
        if {r["evaluation_id"] for r in rows} != {aggregate["evaluation_id"]}:
            errors.append("evaluation_id")
        if {r["model_id"] for r in rows} != {aggregate["model_info"]["id"]}:
            errors.append("model_id")
    details = aggregate["model_info"]["additional_details"]
    if details.get("deployment_type") not in ("self_deployed", "externally_managed", "unknown"):
        errors.append("deployment_type")
    if details.get("model_availability") not in ("open_weights", "closed_weights", "unknown"):
        errors.append("model_availability")
    for result in aggregate["evaluation_results"]:
        metric, score = result["metric_config"], result["score_details"]["score"]
        bound = {"Infinity": math.inf, "-Infinity": -math.inf}
        low = bound.get(metric.get("min_score"), metric.get("min_score"))
        high = bound.get(metric.get("max_score"), metric.get("max_score"))
        if metric.get("score_type") == "continuous" and (low is None or high is None):
            errors.append("bounds")
        elif not (math.isfinite(score) and low <= score <= high):
            errors.append(f"score {score} outside [{low}, {high}]")
    # the datastore folder names the model as model_info.id does (developer/model)
    developer, model = aggregate["model_info"]["id"].split("/", 1)
    if repo_path.split("/")[2:4] != [developer, model.replace("/", "_")]:
        errors.append("identity path")
    return errors




def check_tree(root: Path) -> tuple[int, int, list[str]]:
    """(aggregates, sample rows, errors) of every record under ``root/data``, each checked
    with its samples file, as `python -m every_eval_ever validate 'data/*/*/*/*.json*'`."""
    aggregates = sorted((root / "data").glob("*/*/*/*.json"))
    samples = {p for p in (root / "data").glob("*/*/*/*_samples.jsonl")}
    errors, rows_seen = [], 0
    for path in aggregates:
        repo_path = path.relative_to(root).as_posix()
        aggregate = json.loads(path.read_text(encoding="utf-8"),
                               parse_constant=lambda c: errors.append(f"{path}: {c}"))
        companion = path.with_name(path.stem + "_samples.jsonl")
        rows = []
        if companion.exists():
            samples.discard(companion)
            rows = [json.loads(line) for line in companion.read_text(encoding="utf-8")
                    .splitlines() if line.strip()]
        rows_seen += len(rows)
        errors += [f"{repo_path}: {e}" for e in validator_errors(aggregate, rows, repo_path)]
    errors += [f"{p}: samples file without its aggregate" for p in sorted(samples)]
    return len(aggregates), rows_seen, errors
