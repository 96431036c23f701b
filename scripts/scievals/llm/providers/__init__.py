"""Provider factories, imported lazily so an SDK is needed only when its provider is used."""

from __future__ import annotations

import importlib
from types import ModuleType

from scievals.common.errors import ScievalsError
from scievals.llm.base import ModelAPI, ModelSpec

# Provider -> (module, class). One file per provider; add a provider by adding a line.
PROVIDERS = {
    "openai": ("scievals.llm.providers.openai_compat", "OpenAICompatAPI"),
    "anthropic": ("scievals.llm.providers.anthropic", "AnthropicAPI"),
    "mock": ("scievals.llm.providers.mock", "MockAPI"),
}

# SDK package -> pip requirement (lower bounds tested with this code).
SDK_REQUIREMENTS = {"openai": "openai>=1.40", "anthropic": "anthropic>=0.34"}


def require_sdk(package: str, spec: ModelSpec) -> ModuleType:
    """Import an SDK or explain in one line how to install it."""
    try:
        return importlib.import_module(package)
    except ImportError:
        requirement = SDK_REQUIREMENTS.get(package, package)
        raise ScievalsError(
            f"model {spec.name!r}",
            f"provider {spec.provider} needs the {package} package, which is not installed",
            f"pip install '{requirement}' (or pip install 'scievals[llm]')",
        ) from None


def provider_class(spec: ModelSpec) -> type:
    """The provider's class, without creating a client (its SDK is imported on creation)."""
    if spec.provider not in PROVIDERS:
        raise ScievalsError(
            f"model {spec.name!r}",
            f"provider {spec.provider} is not called through the LLM layer",
            "baselines run inside their benchmark; give an LLM provider "
            f"({', '.join(sorted(PROVIDERS))})",
        )
    module_name, class_name = PROVIDERS[spec.provider]
    return getattr(importlib.import_module(module_name), class_name)


def create_api(spec: ModelSpec, api_key: str | None) -> ModelAPI:
    """A client for ``spec``; ``api_key`` comes from :func:`scievals.llm.registry.api_key`."""
    return provider_class(spec)(spec, api_key)
