"""The one checked downloader every benchmark's data step uses.

:func:`fetch` copies an ``http(s)://`` URL, a ``file://`` URL or a local path to ``dest``:

- streamed with a timeout and a size cap, hashed while it is written;
- checked against the expected sha256 (or a source's md5) before it is moved into place:
  ``dest`` is complete and verified, or untouched (atomic write);
- refused without a checksum unless the caller says so (``verify=False``, which a config
  can only reach through an explicit ``allow_unverified: true``);
- a progress bar when stderr is a terminal;
- with ``store``, every verified file is also kept as ``<store>/<sha256>`` and reused
  from there: a real copy, once verified, survives a later offline run (the rule's own
  outputs are deleted by Snakemake before it re-runs, the store is not).

Every failure is one :class:`DownloadError` line naming the source.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from scievals.common.errors import ScievalsError
from scievals.common.io import atomic_path

log = logging.getLogger(__name__)

CHUNK = 1 << 20


class DownloadError(ScievalsError):
    """A source that did not give the expected bytes (network, status, size or checksum)."""


@dataclass(frozen=True)
class Fetched:
    sha256: str
    origin: str  # the URL or path the bytes came from (never a token)
    status: str  # "downloaded", "copied", "cached" (dest was already right), "reused" (store)
    size: int


def file_digest(path: str | os.PathLike, algorithm: str = "sha256") -> str:
    digest = hashlib.new(algorithm)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def local_path(source: str) -> Path | None:
    """The file a ``file://`` URL or a plain path names; None for a network URL."""
    parsed = urlparse(source)
    if parsed.scheme in ("http", "https"):
        return None
    if parsed.scheme == "file":
        return Path(unquote(parsed.path))
    return Path(source).expanduser()


def _progress(total: int | None, label: str):
    if not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm  # the 'llm' extra; a core install downloads without a bar
    except ImportError:  # progress is a nicety; never a reason to fail
        return None
    return tqdm(total=total, unit="B", unit_scale=True, desc=label, leave=False)


def _stream(chunks, handle, hashes: dict, max_bytes: int | None, source: str, bar) -> int:
    size = 0
    for chunk in chunks:
        size += len(chunk)
        if max_bytes is not None and size > max_bytes:
            raise DownloadError(source, f"larger than the limit ({max_bytes} bytes)",
                                "raise the benchmark's max_download_mb if the file is right")
        for digest in hashes.values():
            digest.update(chunk)
        handle.write(chunk)
        if bar is not None:
            bar.update(len(chunk))
    return size


def _read_local(path: Path):
    with open(path, "rb") as handle:
        yield from iter(lambda: handle.read(CHUNK), b"")


def fetch(source: str, dest: str | os.PathLike, *, sha256: str | None = None,
          md5: str | None = None, verify: bool = True, timeout_s: float = 30.0,
          max_bytes: int | None = None, headers: dict | None = None,
          store: str | os.PathLike | None = None, label: str = "") -> Fetched:
    """Copy ``source`` to ``dest`` if its checksum matches; raise DownloadError otherwise."""
    dest = Path(dest)
    expected = {k: v.lower() for k, v in (("sha256", sha256), ("md5", md5)) if v}
    if verify and not expected:
        raise DownloadError(source, "no checksum configured",
                            "set the expected sha256, or allow_unverified: true to accept "
                            "whatever the source gives")
    if dest.is_file() and expected and all(
            file_digest(dest, name) == want for name, want in expected.items()):
        return Fetched(file_digest(dest), str(source), "cached", dest.stat().st_size)
    if store and sha256:
        kept = Path(store) / sha256.lower()
        if kept.is_file() and file_digest(kept) == sha256.lower():
            with atomic_path(dest) as tmp:
                shutil.copyfile(kept, tmp)
            return Fetched(sha256.lower(), str(source), "reused", kept.stat().st_size)
    hashes = {name: hashlib.new(name) for name in {"sha256", *expected}}
    local = local_path(source)
    bar = None
    try:
        with atomic_path(dest) as tmp:
            with open(tmp, "wb") as handle:
                if local is None:
                    size, status = _download(source, handle, hashes, timeout_s, max_bytes,
                                             headers or {}, label), "downloaded"
                else:
                    if not local.is_file():
                        raise DownloadError(source, "no such file", "check the path")
                    bar = _progress(local.stat().st_size, label or local.name)
                    size = _stream(_read_local(local), handle, hashes, max_bytes, source, bar)
                    status = "copied"
            for name, want in expected.items():
                got = hashes[name].hexdigest()
                if got != want:
                    raise DownloadError(source, f"{name} {got} differs from the expected {want}",
                                        "the file is not the pinned release; fix the URL/path "
                                        "or the checksum")
    finally:
        if bar is not None:
            bar.close()
    actual = hashes["sha256"].hexdigest()
    if store:
        _keep(dest, Path(store) / actual)
    return Fetched(actual, str(source), status, size)


def _download(url: str, handle, hashes: dict, timeout_s: float, max_bytes: int | None,
              headers: dict, label: str) -> int:
    # Not at the top: the Snakefile imports this module (through the benchmarks' data
    # modules) at every start, and httpx costs about 0.1 s to import.
    import httpx

    timeout = httpx.Timeout(timeout_s, connect=min(10.0, timeout_s))
    bar = None
    try:
        with httpx.stream("GET", url, headers=headers, timeout=timeout,
                          follow_redirects=True) as response:
            if response.status_code != 200:
                raise DownloadError(url, f"HTTP {response.status_code}",
                                    "check the URL (and the token for gated copies)")
            total = response.headers.get("content-length")
            bar = _progress(int(total) if total and total.isdigit() else None,
                            label or Path(urlparse(url).path).name)
            return _stream(response.iter_bytes(), handle, hashes, max_bytes, url, bar)
    except httpx.HTTPError as exc:  # timeouts, refused connections, protocol errors
        problem = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
        raise DownloadError(url, problem, "check the network or use a local copy") from None
    finally:
        if bar is not None:
            bar.close()


def _keep(path: Path, kept: Path) -> None:
    """Keep a verified file in the store (a hard link when possible, else a copy)."""
    if kept.exists():
        return
    kept.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(path, kept)
    except OSError:
        with atomic_path(kept) as tmp:
            shutil.copyfile(path, tmp)
