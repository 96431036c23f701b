"""On-disk response cache: one JSON file per request, written atomically on arrival.

The key is sha256 over the canonical JSON of everything that decides a reply:
provider, model id, base_url, messages, sampling parameters, sample index and
the caller's scope (benchmark + prompt version). It never includes the API key,
the registry name, timeouts or connection limits. Files live at
``<cache_dir>/<provider>/<model slug>/<key[:2]>/<key>.json``, so ``llm cache
clear --model`` and ``stats`` work from the folder layout alone. Errors are never
cached; a reply cut short by ``max_tokens`` is a real reply and is cached.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scievals.common.io import canonical_json, sha256_text, write_text
from scievals.llm.base import GenerateParams, LLMRequest, LLMResponse, ModelSpec, ProviderReply

log = logging.getLogger("scievals.llm")

# Bump when the key recipe or the entry layout changes; old entries then miss.
CACHE_FORMAT = 1


def model_slug(model: str | None) -> str:
    """A folder name for a model id (``meta-llama/Llama-3.1-8B`` -> ``meta-llama_Llama-3.1-8B``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model or "none").strip("_") or "none"


def key_material(
    spec: ModelSpec,
    request: LLMRequest,
    params: GenerateParams,
    scope: str,
    extra: dict | None = None,
) -> dict[str, Any]:
    """The request as it is hashed (and stored beside the reply for inspection)."""
    material = {
        "format": CACHE_FORMAT,
        "provider": spec.provider,
        "model": spec.model,
        "base_url": (spec.base_url or "").rstrip("/") or None,
        "messages": [m.model_dump() for m in request.messages],
        "params": params.model_dump(),
        "sample_index": request.sample_index,
        "scope": scope,
    }
    if extra:
        material["extra"] = extra
    return material


def cache_key(material: dict[str, Any]) -> str:
    return sha256_text(canonical_json(material))


@dataclass
class ResponseCache:
    """Reads and writes entries under ``root``; counts hits and misses."""

    root: Path
    read: bool = True
    write: bool = True
    hits: int = 0
    misses: int = 0
    _dirs_made: set[Path] = field(default_factory=set)

    @classmethod
    def for_mode(cls, root: str | os.PathLike, mode: str) -> ResponseCache:
        return cls(Path(root), read=mode == "use", write=mode in ("use", "refresh"))

    def path(self, spec: ModelSpec, key: str) -> Path:
        return self.root / spec.provider / model_slug(spec.model) / key[:2] / f"{key}.json"

    def get(self, spec: ModelSpec, key: str, request: LLMRequest) -> LLMResponse | None:
        """The cached response, or None (also counted as a miss)."""
        if not self.read:
            self.misses += 1
            return None
        path = self.path(spec, key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            reply = ProviderReply.model_validate(entry["reply"])
            latency = float(entry.get("latency_s", 0.0))
        except FileNotFoundError:
            self.misses += 1
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            # Hand-edited or foreign file: ask again and overwrite it.
            log.warning("ignoring unreadable cache entry %s (%s)", path, exc)
            self.misses += 1
            return None
        self.hits += 1
        return LLMResponse(
            case_id=request.case_id,
            sample_index=request.sample_index,
            text=reply.text,
            usage=reply.usage,
            latency_s=latency,
            stop_reason=reply.stop_reason,
            request_id=reply.request_id,
            response_model=reply.response_model,
            system_fingerprint=reply.system_fingerprint,
            cache_hit=True,
            attempts=0,
        )

    def put(
        self,
        spec: ModelSpec,
        key: str,
        material: dict[str, Any],
        reply: ProviderReply,
        latency_s: float,
    ) -> None:
        """Store one reply at once (temp file + os.replace), so a kill loses nothing finished."""
        if not self.write:
            return
        entry = {
            "key": key,
            "request": material,
            "reply": reply.model_dump(),
            "latency_s": latency_s,
            "created_unix": time.time(),
        }
        write_text(self.path(spec, key), json.dumps(entry, sort_keys=True, ensure_ascii=False))


@dataclass
class CacheStats:
    entries: int = 0
    bytes: int = 0
    by_model: dict[str, tuple[int, int]] = field(
        default_factory=dict
    )  # "provider/slug" -> (n, bytes)


def _entries(root: Path):
    """Yield (provider/slug, path) for every cache entry under ``root``."""
    if not root.is_dir():
        return
    for provider_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        for model_dir in sorted(p for p in provider_dir.iterdir() if p.is_dir()):
            label = f"{provider_dir.name}/{model_dir.name}"
            for path in model_dir.glob("*/*.json"):
                yield label, path


def cache_stats(root: str | os.PathLike) -> CacheStats:
    stats = CacheStats()
    for label, path in _entries(Path(root)):
        size = path.stat().st_size
        n, b = stats.by_model.get(label, (0, 0))
        stats.by_model[label] = (n + 1, b + size)
        stats.entries += 1
        stats.bytes += size
    return stats


def clear_cache(
    root: str | os.PathLike, model: str | None = None, provider: str | None = None
) -> int:
    """Delete entries (all, or those of one model id and/or provider); return the count.

    Temporary files left by a killed writer go with their folder.
    """
    root = Path(root)
    if not root.is_dir():
        return 0
    removed = 0
    wanted = None if model is None else model_slug(model)
    for provider_dir in [p for p in root.iterdir() if p.is_dir()]:
        if provider is not None and provider_dir.name != provider:
            continue
        for model_dir in [p for p in provider_dir.iterdir() if p.is_dir()]:
            if wanted is not None and model_dir.name != wanted:
                continue
            removed += sum(1 for _ in model_dir.glob("*/*.json"))
            shutil.rmtree(model_dir)
        if not any(provider_dir.iterdir()):
            provider_dir.rmdir()
    return removed
