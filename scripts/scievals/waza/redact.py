"""Keep API keys out of what a waza run records.

Grader and agent commands never see a key (:mod:`scievals.common.subprocess_limits`), but
a grader can still print one it found elsewhere (a file, its own config). Before a results
JSON is written, every configured key value found in its text is replaced by
``[<VARIABLE> redacted]``.
"""

from __future__ import annotations

import os
import re
from typing import Any

from scievals.llm.keys import DEFAULT_KEY_ENV

# Shorter values would redact ordinary words; real API keys are far longer.
MIN_KEY_LENGTH = 8


def key_names(config: dict) -> set[str]:
    """The variables a key may be in: every registry entry's ``api_key_env`` and the
    providers' default variables (what ``llm.registry.key_env`` can return)."""
    names = set(DEFAULT_KEY_ENV.values())
    for entry in (config.get("models") or {}).values():
        if isinstance(entry, dict) and isinstance(entry.get("api_key_env"), str):
            names.add(entry["api_key_env"])
    return names


def key_values(config: dict) -> dict[str, str]:
    """Variable name -> value of every key set in this environment, longest first (a key
    that contains another is replaced whole)."""
    found = {name: os.environ.get(name, "").strip() for name in key_names(config)}
    found = {name: value for name, value in found.items() if len(value) >= MIN_KEY_LENGTH}
    return dict(sorted(found.items(), key=lambda item: -len(item[1])))


# Variables whose names say they hold a secret, whichever tool reads them.
SECRET_NAME = re.compile(r"(API_?KEY|_KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$",
                         re.IGNORECASE)


def secret_values(config: dict | None = None) -> dict[str, str]:
    """:func:`key_values` plus every variable whose name says it is a secret
    (``GITHUB_TOKEN``, ``DB_PASSWORD``): for what a hook prints, which may be anything."""
    found = {name: value.strip() for name, value in os.environ.items()
             if SECRET_NAME.search(name) and len(value.strip()) >= MIN_KEY_LENGTH}
    found.update(key_values(config or {}))
    return dict(sorted(found.items(), key=lambda item: -len(item[1])))


def redact(data: Any, keys: dict[str, str]) -> Any:
    """``data`` (JSON-shaped) with every key value in its strings (and keys) replaced."""
    if not keys:
        return data
    if isinstance(data, str):
        for name, value in keys.items():
            if value in data:
                data = data.replace(value, f"[{name} redacted]")
        return data
    if isinstance(data, dict):
        return {redact(k, keys): redact(v, keys) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [redact(item, keys) for item in data]
    return data


def redact_keys(outcome: Any, config: dict) -> Any:
    """:func:`redact` with the keys of ``config``'s registry found in the environment."""
    return redact(outcome, key_values(config))
