"""Config validation against the JSON schemas in ``config/``.

Validation fills schema defaults and turns the first violation into one
:class:`ScievalsError` line that names the key, what is wrong and what is
allowed. Each benchmark section has its own schema file, so adding a benchmark
adds a schema instead of growing one big file; which benchmarks exist comes from
the registry (``scievals.registry``), which passes itself in here.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import jsonschema
from jsonschema import Draft202012Validator, validators

from scievals.common.errors import ScievalsError
from scievals.common.io import read_own_yaml, read_yaml

CONFIG_DIR = Path(__file__).resolve().parents[3] / "config"


class BenchmarkSchema(Protocol):
    """What validation needs of a registered benchmark (``scievals.registry.Benchmark``)."""

    name: str
    title: str
    baselines: tuple[str, ...]  # built-in predictors: always in the model registry
    schema: Path  # JSON schema of the benchmark's config section


def _with_defaults(cls):
    """A validator class that also writes each property's ``default`` into the instance."""
    validate_properties = cls.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, sub in properties.items():
                if "default" in sub and name not in instance:
                    instance[name] = _copy(sub["default"])
        yield from validate_properties(validator, properties, instance, schema)

    return validators.extend(cls, {"properties": set_defaults})


def _copy(value):
    return copy.deepcopy(value)


@cache
def _schema_file(path: Path, mtime_ns: int, size: int) -> dict:
    return read_own_yaml(path)


def schema_file(path: str | Path) -> dict:
    """A schema YAML file, read once per process while it is unchanged (every benchmark
    section shares the data-source schema); a fresh copy each call, since callers complete it
    in place."""
    path = Path(path)
    try:
        stat = path.stat()
    except OSError:
        return read_yaml(path)  # says what is wrong with the path, in one line
    return copy.deepcopy(_schema_file(path, stat.st_mtime_ns, stat.st_size))


def _finite_number(checker, instance) -> bool:
    """JSON has no NaN or infinity, but YAML does (``.nan``, ``.inf``): a number key holding
    one would compare false with every bound (``max_mb: .nan`` passed ``minimum: 0`` and then
    pruned every kept run), so no setting of any schema takes one."""
    return Draft202012Validator.TYPE_CHECKER.is_type(instance, "number") \
        and math.isfinite(instance)


_DefaultingValidator = validators.extend(
    _with_defaults(Draft202012Validator),
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("number", _finite_number))


def _key_path(error: jsonschema.ValidationError, prefix: str) -> str:
    parts = [prefix] if prefix else []
    parts += [str(p) for p in error.absolute_path]
    return ".".join(parts) or "(top level)"


def _describe(error: jsonschema.ValidationError) -> tuple[str, str]:
    """(problem, fix) for the most common schema failures."""
    schema = error.schema
    validator = error.validator
    if validator == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed)) if isinstance(error.instance, dict) else []
        return (f"unknown key(s) {extra}", f"allowed keys: {allowed}")
    if validator == "enum":
        return (f"{error.instance!r} is not allowed", f"allowed values: {schema['enum']}")
    if validator == "type" and isinstance(error.instance, float) \
            and not math.isfinite(error.instance):
        return (f"{error.instance} is not a finite number", "give a finite number"
                + (f", e.g. the default {schema['default']}" if "default" in schema else ""))
    if validator == "type":
        return (f"{error.instance!r} is not of type {schema['type']}", "fix the value's type")
    if validator == "required":
        return (error.message, "add the key")
    return (error.message, schema.get("description", ""))


def schema_of(model, drop: Sequence[str] = ()) -> tuple[dict, dict]:
    """(JSON schema, its ``$defs``) of a pydantic model: the model is the one definition of
    keys, types, defaults and limits; ``None`` defaults are left out (never filled in)."""
    schema = model.model_json_schema(mode="validation")
    defs = schema.pop("$defs", {})

    def clean(node):
        if isinstance(node, dict):
            if node.get("default", 0) is None:
                del node["default"]
            node.pop("title", None)
            for value in node.values():
                clean(value)
        elif isinstance(node, list):
            for value in node:
                clean(value)

    clean(schema)
    clean(defs)
    for key in drop:
        schema["properties"].pop(key, None)
        if key in schema.get("required", []):
            schema["required"].remove(key)
    return schema, defs


def validate(instance: Any, schema: str | Path | dict, where: str, prefix: str = "") -> Any:
    """Validate ``instance`` in place (filling defaults) or raise one ScievalsError."""
    if not isinstance(schema, dict):
        schema = schema_file(schema)
    validator = _DefaultingValidator(schema)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        error = jsonschema.exceptions.best_match(errors)
        problem, fix = _describe(error)
        raise ScievalsError(f"{where}: {_key_path(error, prefix)}", problem, fix)
    return instance


def top_level_schema(benchmarks: Sequence[BenchmarkSchema],
                     generated: dict[str, tuple[dict, dict]] | None = None) -> dict:
    """config/schema.yaml completed by the registry: the allowed ``benchmarks:`` names
    (default: all), one section per benchmark (checked by its own schema) and the parts
    generated from the LLM layer's models (``generated``: key -> :func:`schema_of`)."""
    schema = schema_file(CONFIG_DIR / "schema.yaml")
    for key, (part, defs) in (generated or {}).items():
        schema.setdefault("$defs", {}).update(defs)
        target = schema["properties"][key]
        if target.get("type") == "object" and "additionalProperties" in target:
            target["additionalProperties"] = {**part, **target["additionalProperties"]}
        else:
            schema["properties"][key] = {**part, **target}
    names = [b.name for b in benchmarks]
    listing = schema["properties"]["benchmarks"]
    listing["items"] = {"enum": names}
    listing["default"] = names
    for bench in benchmarks:
        schema["properties"][bench.name] = {
            "description": f"{bench.title}; see config/schemas/{bench.schema.name}.",
            "type": "object",
            "default": {},
        }
    return schema


def section_schema(bench: BenchmarkSchema) -> dict:
    """A benchmark's section schema plus the data-source keys every section shares
    (config/schemas/data_source.schema.yaml); the benchmark may only set their defaults."""
    schema = schema_file(bench.schema)
    own = schema.setdefault("properties", {})
    shared = schema_file(CONFIG_DIR / "schemas" / "data_source.schema.yaml")
    schema["allOf"] = schema.get("allOf", []) + shared.get("allOf", [])
    for key, spec in shared["properties"].items():
        extra = set(own.get(key, {})) - {"default", "description"}
        if extra:
            raise ScievalsError(bench.schema, f"redefines the data-source key {key!r} ({sorted(extra)})",
                                "set only its default (and description) there")
        own[key] = {**spec, **own.get(key, {})}
    return schema


def validate_config(config: dict, benchmarks: Sequence[BenchmarkSchema], where: str = "config",
                    generated: dict[str, tuple[dict, dict]] | None = None) -> dict:
    """Validate the whole workflow config: the top level, then each benchmark section."""
    validate(config, top_level_schema(benchmarks, generated), where)
    for bench in benchmarks:
        for name in bench.baselines:
            config["models"].setdefault(name, {"provider": "baseline"})
    for bench in benchmarks:
        validate(config[bench.name], section_schema(bench), where, prefix=bench.name)
    _check_model_references(config, where)
    return config


def _check_model_references(config: dict, where: str) -> None:
    registry = config["models"]
    for bench in config["benchmarks"]:
        for name in config[bench].get("models", []):
            if name not in registry:
                raise ScievalsError(
                    f"{where}: {bench}.models",
                    f"model {name!r} is not in the model registry",
                    f"define it under models: (known: {sorted(registry)})",
                )
