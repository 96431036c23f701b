"""On-disk response cache: one JSON file per request, written atomically on arrival.

The key is sha256 over the canonical JSON of everything that decides a reply:
provider, model id, base_url, messages, sampling parameters, sample index and
the caller's scope (benchmark + prompt version). It never includes the API key, the
credentials of a ``base_url`` (``http://user:pass@host`` is keyed and stored as
``http://***@host``), the registry name, timeouts or connection limits. Files live at
``<cache_dir>/<provider>/<model slug>/<key[:2]>/<key>.json``, so ``llm cache
clear --model`` and ``stats`` work from the folder layout alone. Errors are never
cached; a reply cut short by ``max_tokens`` is a real reply and is cached.

The first writer wins: an entry is published with ``os.link`` from a finished temporary
file, which fails if the entry exists, so two runs sharing a cache folder never replace
each other's replies and a cached re-run of either reproduces what the first one stored
(the second run adopts that reply, see :meth:`ResponseCache.put`). Only ``refresh`` mode
replaces entries, because asking for that is its purpose.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import shutil
import tempfile
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
        # credentials in the URL are not part of the key, as the API key is not: a new
        # password keeps the cache; the entry never holds them
        "base_url": (spec.shown_url or "").rstrip("/") or None,
        "messages": [m.model_dump() for m in request.messages],
        "params": params.key_dump(),
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
    replace: bool = False  # refresh mode: new replies replace stored ones
    hits: int = 0
    misses: int = 0
    _dirs_made: set[Path] = field(default_factory=set)

    @classmethod
    def for_mode(cls, root: str | os.PathLike, mode: str) -> ResponseCache:
        return cls(Path(root), read=mode == "use", write=mode in ("use", "refresh"),
                   replace=mode == "refresh")

    def path(self, spec: ModelSpec, key: str) -> Path:
        return self.root / spec.provider / model_slug(spec.model) / key[:2] / f"{key}.json"

    def get(self, spec: ModelSpec, key: str, request: LLMRequest) -> LLMResponse | None:
        """The cached response, or None (also counted as a miss)."""
        if not self.read:
            self.misses += 1
            return None
        stored = self._load(self.path(spec, key))
        if stored is None:
            self.misses += 1
            return None
        self.hits += 1
        reply, latency = stored
        return reply.response(request, latency, cache_hit=True, attempts=0)

    @staticmethod
    def _load(path: Path) -> tuple[ProviderReply, float] | None:
        """(reply, latency) of the entry at ``path``; None if it is missing or unreadable."""
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            return ProviderReply.model_validate(entry["reply"]), float(entry.get("latency_s", 0.0))
        except (FileNotFoundError, NotADirectoryError):  # a file where a folder should be: no entry
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            # Hand-edited or foreign file: ask again and replace it.
            log.warning("ignoring unreadable cache entry %s (%s)", path, exc)
            return None

    def put(
        self,
        spec: ModelSpec,
        key: str,
        material: dict[str, Any],
        reply: ProviderReply,
        latency_s: float,
    ) -> tuple[ProviderReply, float]:
        """Store one reply at once; return the (reply, latency) the cache now holds.

        That is ``reply`` itself, unless another run stored this request first: then the
        earlier entry stays and is returned, so this run's predictions equal what any
        cached re-run will read. An OSError (read-only folder, full disk) propagates;
        nothing half-written is left behind either way.
        """
        if not self.write:
            return reply, latency_s
        entry = {
            "key": key,
            "request": material,
            "reply": reply.model_dump(),
            "latency_s": latency_s,
            "created_unix": time.time(),
        }
        text = json.dumps(entry, sort_keys=True, ensure_ascii=False)
        path = self.path(spec, key)
        if self.replace:
            write_text(path, text)
            return reply, latency_s
        if _publish_once(path, text):
            return reply, latency_s
        stored = self._load(path)
        if stored is not None:
            log.info("cache entry %s was stored by another run first; using its reply", path.name)
            return stored
        write_text(path, text)  # an unreadable entry is replaced, as get() promised
        return reply, latency_s


# link() is not supported by some network and FUSE file systems.
_NO_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS, errno.EXDEV, errno.EMLINK}


def _publish_once(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` if nothing is there yet; False if an entry exists already.

    The text is written to a temporary file first and hard-linked into place: the link
    either creates the complete entry or fails because one exists, so readers never see a
    partial file and two writers never both win.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; shared caches need the usual mode
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError as exc:
            if exc.errno not in _NO_LINKS:
                raise
            # No hard links here: check, then rename (a narrow race, last writer wins in it).
            if path.exists():
                return False
            os.replace(tmp, path)
        return True
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once at import: os.umask is process-wide, and entries are written from worker threads.
_UMASK = _read_umask()


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
