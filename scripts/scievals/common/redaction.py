"""Credentials out of everything the workflow writes or prints.

LiteLLM and self-hosted gateways take basic auth in the URL
(``http://user:pass@host/v1``). A ``base_url`` like that is needed to send requests, but
nowhere else: the run record, the history, cache entries, the config cache, rule params
(which Snakemake stores under ``.snakemake/``), job logs and error lines all get it through
:func:`redact_text` / :func:`redact_data`, which replace the whole userinfo (user and
password: a user name can be a key too) with ``***``. Every writer and printer of a URL or
a config uses these two functions; nothing else in the package strips credentials.

The credentials reach a workflow job through the environment (:data:`CREDENTIALS_ENV`,
declared in the Snakefile's ``envvars:`` as API keys are), never through its params:
:func:`job_credentials` and :func:`restore_url`. ``python -m scievals run --base-url`` writes
the redacted URL into its config overlay and hands the full one to Snakemake the same way.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from scievals.common.errors import ScievalsError

REDACTED = "***"
# scheme://userinfo@ : the userinfo runs up to the last "@" before the path, query or
# fragment (an unencoded "@" in a password must not leave its tail behind).
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s]*)@")
# Values shorter than this are not searched for in free text (they would mangle words).
MIN_SECRET_CHARS = 4
# Environment variable carrying {model name: base_url with credentials} to workflow jobs.
CREDENTIALS_ENV = "SCIEVALS_BASE_URL_CREDENTIALS"


def has_userinfo(text: str) -> bool:
    """True when a URL in ``text`` carries userinfo that is not already ``***``."""
    return any(m.group("userinfo") != REDACTED for m in _USERINFO.finditer(text))


def redact_text(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every URL's userinfo and every given secret value replaced by ``***``."""
    text = _USERINFO.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", text)
    for secret in secrets:
        if secret and len(secret) >= MIN_SECRET_CHARS:
            text = text.replace(secret, REDACTED)
    return text


def redact_data(data: Any) -> Any:
    """A copy of ``data`` (mappings, lists, strings, scalars) with :func:`redact_text` applied
    to every string, keys included. Iterative: a config may be nested deeply."""
    if isinstance(data, str):
        return redact_text(data)
    if not isinstance(data, (Mapping, list, tuple)) or not _any_url_userinfo(data):
        return data  # nothing to redact: the very same object (rule params keep their types)
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(data, root, 0)]
    while stack:
        value, parent, slot = stack.pop()
        if isinstance(value, str):
            parent[slot] = redact_text(value)
        elif isinstance(value, Mapping):
            copy: dict = {}
            parent[slot] = copy
            for key, item in value.items():
                new_key = redact_text(key) if isinstance(key, str) else key
                copy[new_key] = None
                stack.append((item, copy, new_key))
        elif isinstance(value, (list, tuple)):
            items = [None] * len(value)
            parent[slot] = items
            stack.extend((item, items, i) for i, item in enumerate(value))
        else:
            parent[slot] = value
    return root[0]


def _any_url_userinfo(data: Any) -> bool:
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if _USERINFO.search(value):
                return True
        elif isinstance(value, Mapping):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
    return False


def holds_credentials(data: Any) -> bool:
    """True when some string in ``data`` carries URL userinfo."""
    return redact_data(data) != data


def job_credentials(models: Mapping[str, Any]) -> dict[str, str]:
    """{model name: its base_url} for every model whose base_url carries credentials."""
    return {name: entry["base_url"] for name, entry in models.items()
            if isinstance(entry, Mapping) and isinstance(entry.get("base_url"), str)
            and has_userinfo(entry["base_url"])}


def inherited_credentials() -> dict[str, str]:
    """{model name: full base_url} this process got in :data:`CREDENTIALS_ENV` ({} if none):
    from the Snakefile for a job, from ``python -m scievals run --base-url`` for a workflow."""
    try:
        known = json.loads(os.environ.get(CREDENTIALS_ENV, "") or "{}")
    except ValueError:
        return {}
    if not isinstance(known, dict):
        return {}
    return {k: v for k, v in known.items() if isinstance(k, str) and isinstance(v, str)}


def export_credentials(models: Mapping[str, Any]) -> list[str]:
    """Put :func:`job_credentials` into the environment (for the jobs this process starts),
    beside the ones it inherited (``run --base-url`` writes only the redacted URL); the
    variable's name in a list, for ``envvars:``, or [] when no URL has credentials."""
    found = {**inherited_credentials(), **job_credentials(models)}
    if not found:
        return []
    os.environ[CREDENTIALS_ENV] = json.dumps(found, sort_keys=True)
    return [CREDENTIALS_ENV]


def restore_url(model: str, url: str | None) -> str | None:
    """The base_url a job sends requests to: ``url`` itself, or, when its credentials were
    redacted out of the job's params, the full one from :data:`CREDENTIALS_ENV` (a
    ScievalsError if they did not reach the job)."""
    if not url or f"://{REDACTED}@" not in url:
        return url
    full = inherited_credentials().get(model)
    if full is not None and redact_text(full) == url:
        return full
    raise ScievalsError(f"config: models.{model}.base_url",
                        f"{url}: its credentials did not reach this job (the environment "
                        f"variable {CREDENTIALS_ENV} the workflow sets does not hold them)",
                        "run it from the workflow with the full URL in your config file or "
                        "given to `python -m scievals run --base-url`, or pass "
                        f"{CREDENTIALS_ENV} on to the job")
