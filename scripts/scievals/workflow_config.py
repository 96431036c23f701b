"""The Snakefile's config check: :func:`scievals.config_validation.validate_config` through a
cache (:mod:`scievals.common.config_cache`), repeated only when the config, a schema or the
code behind the check changed. An unchanged workflow then starts without importing
jsonschema or pydantic's schema machinery.
"""

from __future__ import annotations

from pathlib import Path

from scievals.common import config_cache

PACKAGE = Path(__file__).resolve().parent
CONFIG_DIR = PACKAGE.parents[1] / "config"
CACHE_DIR = ".cache/config"
# What the check's outcome depends on besides the config itself.
SOURCES = (
    PACKAGE / "config_validation.py",
    PACKAGE / "benchmarks.py",
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
