# Shared setup: config validation (first), the package on sys.path, helpers every
# benchmark's rule file uses. Benchmark rule files register their score tables in
# SCORE_TABLES so summary.smk can collect them without knowing the benchmark.
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "scripts"))

from scievals.common.config import validate_config
from scievals.common.errors import ScievalsError
from scievals.common.provenance import config_hash
from scievals.common.workflow import (
    byo_prediction_models,
    llm_key_envs,
    preflight_models,
)

try:
    validate_config(config, where="config")
except ScievalsError as exc:
    sys.exit(f"error: {exc.one_line()}")

BENCHMARKS = config["benchmarks"]


# API keys reach cluster jobs through envvars (never params, which Snakemake stores).
# Only keys that are set are declared: a missing one is reported by the preflight below.
envvars:
    *[name for name in llm_key_envs(config) if name in os.environ],


# Before any job runs (not on dry runs): every LLM an enabled benchmark uses has its
# API key set and its server reachable, else one line and exit 1.
onstart:
    try:
        preflight_models(config)
    except ScievalsError as exc:
        sys.exit(f"error: {exc.one_line()}")


BOOTSTRAP = config["bootstrap"]

# benchmark name -> function returning the list of its score tables (long format).
SCORE_TABLES = {}


wildcard_constraints:
    model=r"[A-Za-z0-9][A-Za-z0-9._-]*",


def section_hash(benchmark, models):
    """Config hash of one benchmark: its section, the bootstrap and its models' registry entries."""
    return config_hash(
        {
            "section": config[benchmark],
            "bootstrap": BOOTSTRAP,
            "models": {m: config["models"].get(m) for m in models},
        }
    )


def get_score_tables(wildcards):
    return SCORE_TABLES[wildcards.benchmark]()


def prediction_getter(byo_models, byo_dir, produced_dir, suffix):
    """Input function: a user's own prediction file for BYO models, else the produced one."""

    def get_prediction(wildcards):
        folder = byo_dir if wildcards.model in byo_models else produced_dir
        return f"{folder}/{wildcards.model}{suffix}"

    return get_prediction
