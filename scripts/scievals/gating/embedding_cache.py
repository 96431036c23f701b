"""An on-disk cache of sentence vectors, one small file per (model, text), shared by every
score job on the machine (docs/gating.md, "Embedding cache").

Where: ``$SCIEVALS_CACHE_DIR/embeddings/`` if that variable is set (``off`` turns the cache
off), else ``$XDG_CACHE_HOME/scievals/embeddings/`` (``~/.cache/scievals/embeddings/``).
Below it, one folder per model key (the pinned files' sha256 and the encoder's
:data:`ENCODER_VERSION`): another model or encoder never reads these vectors.

Safe on NFS and under concurrent jobs without locks: an entry is written to a temporary file
in its folder and renamed over its name (``os.replace``, atomic), so a reader sees a whole
entry or none; two jobs writing one text write the same bytes. An entry carries the sha256 of
its vector: a truncated or damaged one is ignored and written again. A cache that cannot be
read or written costs time, never a score: the job encodes, and a folder it cannot write is
said once at the end of the run (a ``fallback`` notice).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from scievals.common import notices

ENV = "SCIEVALS_CACHE_DIR"
OFF = "off"
# Bump when the vectors of a text change for the same model files (the forward pass, the
# batching, the dtype): entries of another version live in another folder.
ENCODER_VERSION = 1
_MAGIC = b"scievals-vector-1\n"
_DTYPE = np.dtype("<f4")


def cache_root(environ: Mapping[str, str] = os.environ) -> Path | None:
    """The cache's base folder (None when turned off)."""
    chosen = environ.get(ENV, "").strip()
    if chosen.lower() == OFF:
        return None
    if chosen:
        return Path(chosen).expanduser()
    xdg = environ.get("XDG_CACHE_HOME", "").strip()
    # the XDG spec: a relative XDG_CACHE_HOME is invalid and ignored
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "scievals"


def model_key(files_sha256: Mapping[str, str]) -> str:
    text = "\n".join(f"{name} {digest}" for name, digest in sorted(files_sha256.items()))
    return hashlib.sha256(f"{text}\nencoder {ENCODER_VERSION}".encode()).hexdigest()[:24]


class VectorCache:
    """Vectors of texts under ``folder`` (one model's): :meth:`get` and :meth:`put`."""

    def __init__(self, folder: Path, width: int):
        self.folder = Path(folder)
        self.width = int(width)
        self._warned = False

    @classmethod
    def for_model(cls, files_sha256: Mapping[str, str], width: int) -> VectorCache | None:
        root = cache_root()
        return None if root is None else cls(root / "embeddings" / model_key(files_sha256),
                                             width)

    def _path(self, text: str) -> Path:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return self.folder / digest[:2] / f"{digest[2:]}.vec"

    def get(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """The cached vectors among ``texts`` (missing, truncated or damaged entries left out)."""
        size = len(_MAGIC) + 32 + self.width * _DTYPE.itemsize
        out = {}
        for text in texts:
            try:
                data = self._path(text).read_bytes()
            except OSError:
                continue
            body = data[len(_MAGIC) + 32:]
            if (len(data) == size and data.startswith(_MAGIC)
                    and hashlib.sha256(text.encode("utf-8") + body).digest()
                    == data[len(_MAGIC):len(_MAGIC) + 32]):
                out[text] = np.frombuffer(body, dtype=_DTYPE).astype(np.float32)
        return out

    def put(self, vectors: Mapping[str, np.ndarray]) -> None:
        """Store each vector atomically; a failure is logged once and otherwise ignored."""
        for text, vector in vectors.items():
            body = np.ascontiguousarray(vector, dtype=_DTYPE).tobytes()
            # the text is in the digest: an entry renamed or copied to another name is refused
            entry = _MAGIC + hashlib.sha256(text.encode("utf-8") + body).digest() + body
            path = self._path(text)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
                try:
                    with os.fdopen(fd, "wb") as fh:
                        fh.write(entry)
                    os.replace(tmp, path)
                except BaseException:
                    Path(tmp).unlink(missing_ok=True)
                    raise
            except OSError as exc:
                if not self._warned:  # a fallback: said again at the end of the run
                    self._warned = True
                    notices.record("fallback", "gating",
                                   f"embedding cache {self.folder} not written "
                                   f"({exc.strerror or exc}): later jobs encode the gate names "
                                   f"again; set {ENV} to a writable folder, or to {OFF!r}",
                                   once=True)
                return
