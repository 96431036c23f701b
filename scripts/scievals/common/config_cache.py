"""Remember a validated config, so an unchanged workflow config is not validated again.

The Snakefile checks the config at every start; the check itself is quick, but it needs
jsonschema and pydantic, whose imports are a good part of a no-op re-run. The key is the
sha256 of the config as given plus every file the check depends on (schemas, the checking
code); the value is the config as the check filled it in (defaults). Stdlib only, so a hit
imports nothing heavy. A cache file that cannot be read is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from pathlib import Path

from scievals.common.io import canonical_json, write_text
from scievals.common.redaction import holds_credentials


def cache_key(config: dict, sources: Iterable[str | Path]) -> str:
    digest = hashlib.sha256(canonical_json(config).encode("utf-8"))
    for path in sources:
        digest.update(str(path).encode("utf-8") + b"\0")
        digest.update(Path(path).read_bytes() + b"\0")
    return digest.hexdigest()


def _plain(config: dict) -> bool:
    """True when ``config`` survives a JSON round trip unchanged (what the cache can hold)."""
    try:
        return json.loads(json.dumps(config)) == config
    except (TypeError, ValueError):
        return False


def validated(config: dict, check: Callable[[dict], dict], sources: Iterable[str | Path],
              cache_dir: str | Path) -> dict:
    """``config`` filled in place as ``check`` fills it: from the cache when the same config
    and sources passed before, else by running ``check`` (whose errors propagate) and
    remembering the outcome."""
    key = cache_key(config, sources)
    entry = Path(cache_dir) / f"{key}.json"
    try:
        filled = json.loads(entry.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        filled = None
    if isinstance(filled, dict):
        config.clear()
        config.update(filled)
        return config
    check(config)
    # a config with credentials in a URL is checked every time: the cache would keep them
    if _plain(config) and not holds_credentials(config):
        try:
            # key order kept: rule params print config sections, and Snakemake re-runs a
            # job whose params print differently
            write_text(entry, json.dumps(config))
        except OSError:  # a read-only checkout validates every time; nothing else changes
            pass
    return config
