"""Batch ids on disk until their answers are in the cache (DESIGN, round 6).

One JSON file per submitted batch, ``<cache_dir>-batches/<provider>/<model slug>/<id>.json``
(beside the response cache, not in it, so ``llm cache clear`` leaves open batches alone):
the batch id, the server and model it went to, and ``custom_ids``, each request's
``custom_id`` -> the cache key its answer is stored under. A file is written (atomically)
right after the provider accepted the batch and before the first poll, and removed once the
batch's answers are cached, so a job killed while it waits finds its batches again on the
next run instead of paying for them twice. It also keeps what the client had learned when
it submitted the batch (sampling parameters and structured output the server refused), so
the run that picks it up reads a refusal against what was sent.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from scievals.common.io import write_text
from scievals.llm.base import ModelSpec
from scievals.llm.cache import model_slug

log = logging.getLogger("scievals.llm")


@dataclass
class BatchEntry:
    batch_id: str
    provider: str
    model: str | None
    base_url: str | None  # as shown: credentials never reach the file
    custom_ids: dict[str, str]  # custom_id -> cache key
    label: str = ""
    created_unix: float = 0.0
    refused_sampling: list[str] = field(default_factory=list)  # left out of its requests
    structured_refused: str | None = None  # the schema was left out (the server's 400)


def ledger_root(cache_dir: str | os.PathLike) -> Path:
    """The ledger's folder beside the cache folder (``.cache/llm`` -> ``.cache/llm-batches``)."""
    cache_dir = Path(cache_dir)
    return cache_dir.parent / f"{cache_dir.name}-batches"


class Ledger:
    """The open batches of one model at one server."""

    def __init__(self, cache_dir: str | os.PathLike, spec: ModelSpec) -> None:
        self.folder = ledger_root(cache_dir) / spec.provider / model_slug(spec.model)
        self.spec = spec

    def _path(self, batch_id: str) -> Path:
        return self.folder / f"{re.sub(r'[^A-Za-z0-9._-]+', '_', batch_id)}.json"

    def _base_url(self) -> str | None:
        return (self.spec.shown_url or "").rstrip("/") or None

    def add(self, batch_id: str, custom_ids: dict[str, str], label: str,
            refused_sampling: list[str] | None = None,
            structured_refused: str | None = None) -> BatchEntry:
        entry = BatchEntry(batch_id, self.spec.provider, self.spec.model, self._base_url(),
                           custom_ids, label, time.time(), list(refused_sampling or []),
                           structured_refused)
        write_text(self._path(batch_id), json.dumps(asdict(entry), sort_keys=True))
        return entry

    def remove(self, entry: BatchEntry) -> None:
        self._path(entry.batch_id).unlink(missing_ok=True)

    def open_batches(self) -> list[BatchEntry]:
        """This model's batches still on file, oldest first (another server's are skipped;
        an unreadable file is said and skipped: its batch is then paid for again)."""
        if not self.folder.is_dir():
            return []
        entries = []
        for path in sorted(self.folder.glob("*.json")):
            try:
                entry = BatchEntry(**json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, TypeError) as exc:
                log.warning("ignoring unreadable batch ledger file %s (%s)", path, exc)
                continue
            if entry.base_url == self._base_url() and entry.model == self.spec.model:
                entries.append(entry)
        return sorted(entries, key=lambda e: e.created_unix)
