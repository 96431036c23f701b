"""The workflow config checked as a whole: the top level, every registered benchmark's
section, the model registry and the ``llm`` section. It stands beside the registry (it
reads :data:`scievals.registry.REGISTRY`) and needs jsonschema and pydantic; the
Snakefile reaches it through :func:`scievals.workflow_config.validated`, which skips it when
nothing it depends on changed.
"""

from __future__ import annotations

from scievals import registry
from scievals.common import config as config_schema
from scievals.llm.base import ModelSpec
from scievals.llm.registry import model_spec
from scievals.llm.settings import LLMSettings


def validate_config(config: dict, where: str = "config") -> dict:
    """Validate the workflow config (filling defaults); raise one ScievalsError line otherwise.

    One source per part: the top level from config/schema.yaml, each registered benchmark's
    section from its schema plus the shared data-source keys, the model registry entries and
    the ``llm`` section from the LLM layer's pydantic models (their rules across keys, such as
    "anthropic/openai need a model id", from ``model_spec``)."""
    generated = {"models": config_schema.schema_of(ModelSpec, drop=("name",)),
                 "llm": config_schema.schema_of(LLMSettings)}
    config_schema.validate_config(config, registry.REGISTRY, where, generated)
    for name in config["models"]:
        model_spec(name, config)
    return config
