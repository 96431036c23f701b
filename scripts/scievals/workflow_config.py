"""The Snakefile's config check: :func:`scievals.config_validation.validate_config` through a
cache (:mod:`scievals.common.config_cache`), repeated only when the config, a schema or the
code behind the check changed. An unchanged workflow then starts without importing
jsonschema or pydantic's schema machinery.
"""

from __future__ import annotations

from pathlib import Path

from scievals.common import config_cache
from scievals.common.errors import ScievalsError
from scievals.common.io import read_yaml

PACKAGE = Path(__file__).resolve().parent
CONFIG_DIR = PACKAGE.parents[1] / "config"
CACHE_DIR = ".cache/config"
# What the check's outcome depends on besides the config itself.
SOURCES = (
    PACKAGE / "config_validation.py",
    PACKAGE / "registry.py",
    PACKAGE / "common" / "config.py",
    PACKAGE / "llm" / "base.py",
    PACKAGE / "llm" / "settings.py",
    PACKAGE / "llm" / "registry.py",
)


def schema_files(config_dir: Path = CONFIG_DIR) -> list[Path]:
    return [config_dir / "schema.yaml", *sorted((config_dir / "schemas").glob("*.yaml"))]


def _check(config: dict) -> dict:
    # Imported here, not at the top: this is the part a cache hit skips (jsonschema and
    # pydantic's JSON schemas are most of the check's cost at every workflow start).
    from scievals.config_validation import validate_config

    return validate_config(config, where="config")


def validated(config: dict, cache_dir: str | Path = CACHE_DIR) -> dict:
    """``config`` validated and filled in place, from the cache when nothing changed."""
    return config_cache.validated(config, _check, [*SOURCES, *schema_files()], cache_dir)


def read_config_file(path: str | Path) -> dict:
    """A config file (the workflow's own or a ``--configfile``) read as user input, before
    anything hashes or expands it: the bounded YAML reader (alias budget, no recursion
    crash, a duplicated key refused; a JSON file is YAML too), a mapping at the top and text
    keys everywhere, each problem one ScievalsError naming the file (and line or key)."""
    data = read_yaml(path)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ScievalsError(path, f"the config is a {type(data).__name__}, not a mapping",
                            "write it as key: value lines, like config/config.yaml")
    stack: list[tuple[str, object]] = [("", data)]
    while stack:  # iterative: the reader allows nesting deeper than Python's recursion
        where, value = stack.pop()
        items = (value.items() if isinstance(value, dict)
                 else enumerate(value) if isinstance(value, list) else ())
        for key, item in items:
            if isinstance(value, dict) and not isinstance(key, str):
                raise ScievalsError(f"{path}: {where or '(top)'}",
                                    f"key {key!r} is not text (YAML read it as "
                                    f"{type(key).__name__})",
                                    f"quote it: '{key}'")
            stack.append((f"{where}.{key}" if where else str(key), item))
    return data


def merged_config(configfiles: list[str]) -> dict:
    """config/config.yaml with the user's config files merged over it (as Snakemake does)."""
    def merge(base: dict, over: dict) -> dict:
        for key, value in over.items():
            base[key] = (merge(dict(base[key]), value)
                         if isinstance(value, dict) and isinstance(base.get(key), dict)
                         else value)
        return base

    config = read_yaml(CONFIG_DIR / "config.yaml") or {}
    for path in configfiles:
        config = merge(config, read_yaml(path) or {})
    return config
