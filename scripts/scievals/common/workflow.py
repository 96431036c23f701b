"""Helpers the rule files call at DAG-build time (kept out of the .smk files)."""

from __future__ import annotations

import re
from pathlib import Path

from scievals.common.errors import ScievalsError

MODEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def byo_prediction_models(predictions_dir: str, suffix: str, configured: list[str]) -> list[str]:
    """Model names of the user's own prediction files (``<dir>/<model><suffix>``).

    A file whose name is not a valid model name, or that shadows a configured
    model, is an error: silently scoring the wrong file would be worse.
    """
    folder = Path(predictions_dir)
    if not folder.is_dir():
        return []
    names = []
    for path in sorted(folder.glob(f"*{suffix}")):
        name = path.name[: -len(suffix)]
        if not MODEL_NAME.match(name):
            raise ScievalsError(
                path, "file name is not a valid model name",
                "rename it to letters, digits, '.', '_' or '-' (it names the model in the tables)",
            )
        if name in configured:
            raise ScievalsError(
                path, f"model name {name!r} is also a configured model",
                "rename the file or remove the model from the benchmark's models list",
            )
        names.append(name)
    return names


def _used_models(config: dict):
    from scievals.llm.registry import model_spec

    names = dict.fromkeys(
        name for bench in config["benchmarks"] for name in config[bench].get("models", [])
    )
    return [model_spec(name, config) for name in names]


def preflight_models(config: dict) -> None:
    """Check keys and servers of every model the enabled benchmarks list (LLM layer)."""
    from scievals.llm.registry import preflight

    preflight(_used_models(config))


def llm_key_envs(config: dict) -> list[str]:
    """Names of the API-key variables the enabled benchmarks' models read."""
    from scievals.llm.registry import key_env

    return sorted({env for spec in _used_models(config) if (env := key_env(spec))})
