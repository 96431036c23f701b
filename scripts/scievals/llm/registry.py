"""The model registry (config ``models:``) and the checks run before any job starts."""

from __future__ import annotations

import os
import socket
from urllib.parse import urlsplit

from pydantic import ValidationError

from scievals.common.errors import ScievalsError, pydantic_error, visible
from scievals.common.redaction import redact_text, restore_url
from scievals.llm.base import ModelSpec
from scievals.llm.keys import DEFAULT_KEY_ENV

# Providers that talk to a server (the others run in-process).
NETWORK_PROVIDERS = ("openai", "anthropic")
PREFLIGHT_TIMEOUT_S = 3.0


def model_spec(name: str, config: dict) -> ModelSpec:
    """The registry entry ``config["models"][name]`` as a validated :class:`ModelSpec`."""
    registry = config.get("models") or {}
    if name not in registry:
        raise ScievalsError(
            f"config: models.{name}",
            f"model {name!r} is not in the model registry",
            f"define it under models: (known: {sorted(registry)})",
        )
    entry = dict(registry[name] or {})
    entry.pop("name", None)
    if isinstance(entry.get("base_url"), str):  # a job's params carry it redacted
        entry["base_url"] = restore_url(name, entry["base_url"])
    try:
        spec = ModelSpec(name=name, **entry)
    except ValidationError as exc:
        raise pydantic_error(exc, f"config: models.{name}", "see config/README.md (models)") from None
    if spec.provider in NETWORK_PROVIDERS and not spec.model:
        raise ScievalsError(
            f"config: models.{name}",
            f"provider {spec.provider} needs a model id",
            "add model: <provider's model id>, e.g. a dated id",
        )
    if (spec.price_in_per_mtok is None) != (spec.price_out_per_mtok is None):
        raise ScievalsError(
            f"config: models.{name}",
            "only one of price_in_per_mtok / price_out_per_mtok is set",
            "set both (USD per million tokens) or neither",
        )
    if spec.batch and spec.provider not in NETWORK_PROVIDERS:
        raise ScievalsError(
            f"config: models.{name}.batch",
            f"provider {spec.provider} has no batch API",
            "remove batch: (only provider openai or anthropic sends batches)",
        )
    if spec.base_url is not None:
        base_url_parts(f"config: models.{name}.base_url", spec.base_url)
    if spec.responses is not None and spec.provider != "mock":
        raise ScievalsError(
            f"config: models.{name}.responses",
            "scripted responses are only for provider mock",
            "remove responses: or set provider: mock",
        )
    return spec


def key_env(spec: ModelSpec) -> str | None:
    """The environment variable holding this model's key, or None if it needs none.

    A configured ``api_key_env`` always counts. Without one, the provider's own
    endpoint needs its usual variable, while a custom ``base_url`` (a local
    vLLM/Ollama server) is assumed to need no key.
    """
    if spec.api_key_env:
        return spec.api_key_env
    if spec.provider in NETWORK_PROVIDERS and not spec.base_url:
        return DEFAULT_KEY_ENV[spec.provider]
    return None


def api_key(spec: ModelSpec) -> str | None:
    """The key value from the environment; ScievalsError naming the variable if unset."""
    var = key_env(spec)
    if var is None:
        return None
    value = os.environ.get(var, "").strip()
    if not value:
        raise ScievalsError(
            f"model {spec.name!r}",
            f"environment variable {var} is not set",
            f"export {var}=<your {spec.provider} API key>, or drop the model from the run",
        )
    return value


def base_url_parts(where: str, url: str) -> tuple[str, int]:
    """(host, port) of a base URL, or one ScievalsError naming ``where``: whatever
    ``urlsplit`` refuses (``http://[::1``, a port that is no number or out of range) or an
    URL that is not http(s) with a host. The config check, ``run --base-url`` and the
    preflight all ask here, so a malformed URL is one line wherever it is given."""
    shown = visible(redact_text(url), keep="")
    fix = "write it like http://localhost:8000/v1; an IPv6 host in brackets: http://[::1]:8000/v1"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ScievalsError(where, f"{shown!r} is not a URL ({exc})", fix) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ScievalsError(where, f"{shown!r} is not an http(s) URL", fix)
    return parts.hostname, port or (443 if parts.scheme == "https" else 80)


def _host_port(spec: ModelSpec) -> tuple[str, int]:
    return base_url_parts(f"config: models.{spec.name}.base_url", spec.base_url or "")


def check_reachable(spec: ModelSpec, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> None:
    """Open (and close) a TCP connection to the model's ``base_url``."""
    host, port = _host_port(spec)
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            pass
    except OSError as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise ScievalsError(
            f"model {spec.name!r}",
            f"base_url {spec.shown_url} is not reachable ({reason})",
            "start the server or fix models." + spec.name + ".base_url",
        ) from None


def preflight(specs: list[ModelSpec]) -> None:
    """Stop before any job starts if an LLM lacks its key or its server.

    Baselines and the mock provider always pass. The first problem is raised as
    one ScievalsError line naming the model and the variable or URL.
    """
    checked: set[tuple[str, int]] = set()
    for spec in specs:
        if spec.provider not in NETWORK_PROVIDERS:
            continue
        api_key(spec)
        if spec.base_url:
            target = _host_port(spec)
            if target not in checked:
                check_reachable(spec)
                checked.add(target)


def configured_models(config: dict) -> list[ModelSpec]:
    """The registry entries of every model an enabled benchmark lists (its ``models`` and,
    where the section has one, its LLM ``judge_model``), each once."""
    names = dict.fromkeys(
        name for bench in config["benchmarks"]
        for name in [*config[bench].get("models", []), config[bench].get("judge_model")]
        if name
    )
    return [model_spec(name, config) for name in names]


def preflight_config(config: dict) -> None:
    """:func:`preflight` of every model the enabled benchmarks use (the workflow's onstart)."""
    preflight(configured_models(config))


def key_envs(config: dict) -> list[str]:
    """Names of the API-key variables the enabled benchmarks' models read."""
    return sorted({env for spec in configured_models(config) if (env := key_env(spec))})
