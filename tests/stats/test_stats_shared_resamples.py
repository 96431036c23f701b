"""scievals.stats.intervals.SHARED: cluster resamples and the truth's side of each statistic,
computed once per process for every file of a score batch, with the same numbers."""

import numpy as np
import pytest
from scievals.abdev.metrics import weighted_recall
from scievals.stats.intervals import (
    SHARED,
    SharedResamples,
    _weighted_ranks,
    cluster_bootstrap,
    cluster_counts,
    weighted_spearman,
)


@pytest.fixture(autouse=True)
def empty_cache():
    SHARED.clear()
    yield
    SHARED.clear()


def test_weighted_ranks_worked_example_with_and_without_ties():
    # values 3, 1, 2 with weights 1, 2, 0: the repeated rows are 1, 1, 3. The two 1s hold
    # ranks 1 and 2 (average 1.5); the 2 (weight 0) has 2 below it: 2 + (0 + 1) / 2 = 2.5;
    # the 3 has 2 below it: 2 + (1 + 1) / 2 = 3.
    distinct = _weighted_ranks(np.array([3.0, 1.0, 2.0]), np.array([[1.0, 2.0, 0.0]]))
    assert distinct.tolist() == [[3.0, 1.5, 2.5]]
    # a tie: values 2, 1, 2 with weights 1, 1, 2: the rows 1, 2, 2, 2; the 1 has rank 1, the
    # three 2s ranks 2-4 (average 3), whichever row they come from
    tied = _weighted_ranks(np.array([2.0, 1.0, 2.0]), np.array([[1.0, 1.0, 2.0]]))
    assert tied.tolist() == [[3.0, 1.0, 3.0]]


def test_weights_are_drawn_once_per_clusters_and_seed_and_read_only():
    codes = [np.array([0, 0, 1, 2, 2, 1]), np.array([1, 0, 1, 0])]
    first = SHARED.weights(codes, 50, 7)
    assert SHARED.weights([c.copy() for c in codes], 50, 7) is first  # keyed by content
    assert SHARED.weights(codes, 50, 8) is not first
    assert not first[0].flags.writeable
    # the draws of scipy.stats.bootstrap with one sample per stratum: one generator, strata
    # in order, k draws of k clusters each
    rng = np.random.default_rng(7)
    for w, c, k in zip(first, codes, (3, 2)):
        assert np.array_equal(w, cluster_counts(rng.integers(0, k, (50, k)), k)[:, c])
        # every cluster has 2 rows, so k draws always give 2k rows: 6 and 4
        assert (w.sum(axis=1) == 2 * k).all()


def test_truth_side_is_computed_once_for_shared_weights_only():
    weights = SHARED.weights([np.array([0, 1, 2, 0, 1, 2])], 20, 0)[0]
    calls = []
    truth = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])

    def compute():
        calls.append(1)
        return weights * 2.0

    SHARED.truth_side("x", truth, weights, compute)
    SHARED.truth_side("x", truth.copy(), weights, compute)
    assert len(calls) == 1
    SHARED.truth_side("x", truth[::-1].copy(), weights, compute)  # other values: their own
    assert len(calls) == 2
    SHARED.truth_side("x", truth, weights.copy(), compute)  # weights not drawn here: never kept
    SHARED.truth_side("x", truth, weights.copy(), compute)
    assert len(calls) == 4


def test_a_full_cache_starts_over():
    cache = SharedResamples(limit=2)
    a = cache.weights([np.array([0, 1])], 5, 0)
    cache.weights([np.array([1, 0])], 5, 0)
    cache.weights([np.array([0, 1, 1])], 5, 0)  # the third: the first two are dropped
    assert cache.weights([np.array([0, 1])], 5, 0) is not a


def test_shared_and_unshared_weights_give_the_same_bits():
    # Two predictions scored on one set of shared resamples against one truth: each must get
    # exactly the numbers it gets on a private copy of the weights (nothing shared).
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 12, 60)
    codes = np.unique(codes, return_inverse=True)[1]
    truth = rng.normal(size=60).round(1)  # ties in the truth
    shared = SHARED.weights([codes], 200, 3)[0]
    for pred in (rng.normal(size=60), rng.normal(size=60).round(0)):
        private = np.array(shared)  # writable, so not SHARED's
        assert weighted_spearman(pred, truth, shared).tobytes() == weighted_spearman(
            pred, truth, private).tobytes()
        assert weighted_recall(pred, truth, shared).tobytes() == weighted_recall(
            pred, truth, private).tobytes()


def test_cluster_bootstrap_spearman_matches_scipy_on_repeated_rows():
    # Independent reference: scipy.stats.spearmanr on the rows repeated by the weights.
    from scipy import stats as sps

    rng = np.random.default_rng(5)
    codes = np.unique(rng.integers(0, 8, 30), return_inverse=True)[1]
    truth, pred = rng.normal(size=30).round(1), rng.normal(size=30)
    _, _, dist = cluster_bootstrap(lambda w: weighted_spearman(pred, truth, w[0]), [codes],
                                   {"n_resamples": 40, "seed": 2})
    weights = SHARED.weights([codes], 40, 2)[0]
    for b in range(40):
        rows = np.repeat(np.arange(30), weights[b])
        assert dist[b] == pytest.approx(sps.spearmanr(pred[rows], truth[rows]).statistic,
                                        abs=1e-12)
