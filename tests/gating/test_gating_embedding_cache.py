"""gating's on-disk embedding cache (scievals.gating.embedding_cache) and the encoder's use
of it. The tests marked ``semantic`` run the real all-MiniLM-L6-v2 (skipped without it, as in
test_gating_semantic.py); the others store hand-made vectors."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest
from scievals.gating import embedding
from scievals.gating import embedding_cache as EC
from scievals.gating.semantic import load_scorer

TEXTS = ["cell population: t cells", "cell population: cd4+ t cells",
         "cell population: natural killer cells", "cell population: live/dead-",
         "cell population: singlets (fsc-a vs fsc-h)", "cell population: all events"]


def _vector(seed: int, width: int = 8) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(width).astype(np.float32)


def test_a_stored_vector_comes_back_bit_for_bit(tmp_path):
    cache = EC.VectorCache(tmp_path, 8)
    cache.put({"a": _vector(1), "b": _vector(2)})
    got = EC.VectorCache(tmp_path, 8).get(["a", "b", "c"])
    assert set(got) == {"a", "b"}  # "c" was never stored
    assert got["a"].tobytes() == _vector(1).tobytes() and got["a"].dtype == np.float32


def test_truncated_damaged_or_misplaced_entries_are_ignored_and_rewritten(tmp_path):
    cache = EC.VectorCache(tmp_path, 8)
    cache.put({"a": _vector(1), "b": _vector(2), "c": _vector(3)})
    a, b, c = (cache._path(t) for t in "abc")
    shutil.copyfile(b, c)  # b's entry under c's name: the text is in the digest, refused
    a.write_bytes(a.read_bytes()[:-5])  # a job killed mid-write on a file system without rename
    data = bytearray(b.read_bytes())
    data[-1] ^= 1  # one bit of the vector
    b.write_bytes(bytes(data))
    assert cache.get(["a", "b", "c"]) == {}
    cache.put({"a": _vector(1)})  # what the encoder does with a text it did not get
    assert cache.get(["a"])["a"].tobytes() == _vector(1).tobytes()
    assert not list(tmp_path.rglob(".tmp-*"))  # no temporary file left behind


def test_another_width_is_not_read(tmp_path):
    EC.VectorCache(tmp_path, 8).put({"a": _vector(1)})
    assert EC.VectorCache(tmp_path, 16).get(["a"]) == {}


def test_the_cache_folder_follows_the_variable_then_xdg(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    assert EC.cache_root({}) == home / ".cache" / "scievals"
    assert EC.cache_root({"XDG_CACHE_HOME": "/x/cache"}) == EC.Path("/x/cache/scievals")
    # a relative XDG_CACHE_HOME is invalid by the spec: ignored
    assert EC.cache_root({"XDG_CACHE_HOME": "rel"}) == home / ".cache" / "scievals"
    assert EC.cache_root({"SCIEVALS_CACHE_DIR": "/y", "XDG_CACHE_HOME": "/x"}) == EC.Path("/y")
    assert EC.cache_root({"SCIEVALS_CACHE_DIR": "OFF"}) is None


def test_the_model_key_changes_with_any_pinned_file():
    base = dict(embedding.FILES_SHA256)
    other = dict(base, **{"tokenizer.json": "0" * 64})
    assert EC.model_key(base) != EC.model_key(other)
    assert EC.model_key(base) == EC.model_key(dict(reversed(base.items())))


def test_the_suite_never_writes_the_users_cache():
    # tests/conftest.py points the variable at this session's temporary folder
    root = EC.cache_root()
    assert root is not None and "pytest-" in str(root)


def test_an_unwritable_cache_is_said_once_and_never_fails(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    cache = EC.VectorCache(blocker / "sub", 8)
    said = []
    monkeypatch.setattr(EC.notices, "record", lambda *a, **kw: said.append((a, kw)))
    cache.put({"a": _vector(1)})
    cache.put({"b": _vector(2)})
    assert cache.get(["a", "b"]) == {}
    assert len(said) == 1
    (kind, benchmark, message), options = said[0]
    assert (kind, benchmark, options) == ("fallback", "gating", {"once": True})
    assert message.startswith(f"embedding cache {blocker / 'sub'} not written (")
    assert "SCIEVALS_CACHE_DIR" in message and "\n" not in message


# --- the real encoder ---------------------------------------------------------------------

@pytest.fixture
def model_folder():
    folder = embedding.model_dir()
    if folder is None:  # as test_gating_semantic.py: a failure where .ci/run requires them
        if os.environ.get("SCIEVALS_SEMANTIC_TEST", "") == "1":
            pytest.fail("SCIEVALS_SEMANTIC_TEST=1 but the MiniLM weights are not installed")
        pytest.skip("SEMANTIC METRIC TESTS NOT RUN: the MiniLM weights are not installed")
    return folder


def _encoder(folder, cache):
    return embedding.MiniLM(folder, cache=cache)


@pytest.mark.semantic
def test_a_fresh_encoder_reads_the_cache_without_a_forward_pass(model_folder, tmp_path):
    cache = EC.VectorCache(tmp_path, 384)
    first = _encoder(model_folder, cache)
    cold = first.encode(TEXTS)
    assert first.forward_passes > 0
    second = _encoder(model_folder, EC.VectorCache(tmp_path, 384))
    warm = second.encode(TEXTS)
    assert second.forward_passes == 0 and not second._loaded  # weights never read
    assert warm.tobytes() == cold.tobytes()
    # a truncated entry is computed again, to the same bits, and rewritten
    path = cache._path(TEXTS[2])
    path.write_bytes(path.read_bytes()[:100])
    third = _encoder(model_folder, EC.VectorCache(tmp_path, 384))
    assert third.encode(TEXTS).tobytes() == cold.tobytes() and third.forward_passes == 1
    assert len(path.read_bytes()) > 100


@pytest.mark.semantic
def test_a_names_vector_does_not_depend_on_the_names_beside_it(model_folder):
    # what makes a cache keyed by text sound: each name alone, and all in one call
    together = _encoder(model_folder, None).encode(TEXTS)
    for i, text in enumerate(TEXTS):
        alone = _encoder(model_folder, None).encode([text])[0]
        assert alone.tobytes() == together[i].tobytes(), text


@pytest.mark.semantic
def test_an_edited_model_file_is_unavailable_even_with_a_warm_cache(model_folder, tmp_path,
                                                                      monkeypatch):
    monkeypatch.setenv("SCIEVALS_CACHE_DIR", str(tmp_path / "cache"))
    scorer, reason = load_scorer(["T cells", "CD4+ T cells"])  # warms the cache
    assert scorer is not None, reason
    copy = tmp_path / "model"
    shutil.copytree(model_folder, copy)
    config = copy / "config.json"
    config.write_text(config.read_text(encoding="utf-8").replace(
        '"layer_norm_eps": 1e-12', '"layer_norm_eps": 1e-05'), encoding="utf-8")
    monkeypatch.setattr(embedding, "model_dir", lambda: copy)
    scorer, reason = load_scorer(["T cells", "CD4+ T cells"])
    assert scorer is None and f"{config} is not the pinned" in reason
