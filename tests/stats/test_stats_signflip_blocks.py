"""The Monte-Carlo sign-flip test drawn in blocks (issue 45 item 10): the same subsets, so the
same p and interval, as one whole (M, n) draw; and memory that does not grow with the items."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from scievals.stats import paired


def whole_matrix(n: int, seed: int) -> np.ndarray:
    """The subsets as the docstring of ``_subsets`` defines them, drawn as one matrix: each
    item in with probability 1/2, empty rows drawn again until none (written here from the
    description, not from the module)."""
    rng = np.random.default_rng([seed, n])
    out = (rng.random((paired.MC_SUBSETS, n)) < 0.5).astype(float)
    while (empty := out.sum(axis=1) == 0).any():
        out[empty] = (rng.random((int(empty.sum()), n)) < 0.5).astype(float)
    return out


def reference(d: np.ndarray, subsets: np.ndarray, alpha: float = 0.05):
    """p and interval from all subset sums (Hartigan: the k-th smallest/largest subset mean)."""
    sums = subsets @ d
    total = len(subsets) + 1
    tol = 1e-9
    p = min(1.0, 2 * (1 + min((sums <= tol).sum(), (sums >= -tol).sum())) / total)
    k = int(total * alpha / 2)
    means = np.sort(sums / subsets.sum(axis=1))
    return p, means[k - 1], means[len(means) - k]


def test_blocks_give_the_whole_matrix_answer(monkeypatch):
    # n = 600 > CACHED_MAX_ITEMS: blocked; a tiny chunk makes many blocks of one row each
    monkeypatch.setattr(paired, "_CHUNK_VALUES", 1000)
    rng = np.random.default_rng(7)
    d = rng.normal(0.03, 0.3, size=600)
    p, low, high = paired.sign_flip(d[None, :], span=1.0, seed=3)
    ref_p, ref_low, ref_high = reference(d, whole_matrix(600, 3))
    assert p[0] == pytest.approx(ref_p, abs=1e-12)
    assert low[0] == pytest.approx(ref_low, abs=1e-12)
    assert high[0] == pytest.approx(ref_high, abs=1e-12)


def test_empty_draws_are_drawn_again_as_in_the_whole_matrix():
    # at n = 14 about half the seeds draw at least one empty subset among 8,191 (8,191 / 2^14)
    seed = next(s for s in range(50) if not (
        np.random.default_rng([s, 14]).random((paired.MC_SUBSETS, 14)) < 0.5).any(axis=1).all())
    blocks = np.concatenate(list(paired._drawn_blocks(14, seed, 100)))
    whole = whole_matrix(14, seed)
    assert blocks.shape == whole.shape and (blocks.sum(axis=1) > 0).all()
    # the same multiset of rows (the order differs: redrawn rows come last)
    assert sorted(map(tuple, blocks)) == sorted(map(tuple, whole))


def test_memory_is_flat_in_the_items(monkeypatch):
    # a whole 8,191 x 2,000 float64 matrix is 131 MB; drawn in blocks of 100,000 entries the
    # test holds the sums (8,191 floats), one block (0.8 MB as float, 0.1 MB as bool) and d
    monkeypatch.setattr(paired, "_CHUNK_VALUES", 100_000)
    d = np.random.default_rng(1).normal(size=(1, 2000))
    tracemalloc.start()
    paired.sign_flip(d, span=10.0, seed=11)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 8_000_000, f"{peak / 1e6:.1f} MB"
