"""Worked values of the AutoGKB reference formula (specs/autogkb.md), derived by hand.

Weights (reference order): Variant 1.0, Gene 1.0, Drug 1.5, Category 0.5, Alleles 1.5,
Is/Is Not 1.0, Direction 2.0, Phenotype 2.0, When-treated 0.5, Comparison 1.0; total 12.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scievals.autogkb import metrics
from scievals.autogkb.data import load_articles
from scievals.autogkb.metrics import (
    FIELDS,
    TOTAL_WEIGHT,
    evaluate,
    normalise,
    pair_score,
    reference_score,
    similarity,
)

# A curated row with every field filled, so "both null" never helps by accident.
T = {
    "Variant/Haplotypes": "rs4244285", "Gene": "CYP2C19", "Drug(s)": "clopidogrel",
    "Phenotype Category": "Efficacy", "Alleles": "AA", "Is/Is Not associated": "Associated with",
    "Direction of effect": "decreased", "Phenotype": "Efficacy:response",
    "When treated with/exposed to/when assayed with": "when treated with",
    "Comparison Allele(s) or Genotype(s)": "GG", "Notes": "ignored by the scorer",
}


FLIPPED = dict(T, **{"Direction of effect": "increased"})


def test_total_weight_is_twelve():
    assert TOTAL_WEIGHT == 12.0


@pytest.mark.parametrize("raw, expected", [
    (None, ""),                                            # None -> ""
    ("  Fluorouracil,  Irinotecan ", "fluorouracil irinotecan"),  # strip, one space, drop ","
    ("fluorouracil,irinotecan", "fluorouracilirinotecan"),  # comma deleted: tokens fuse
    (",,;", ""),                                           # only separators -> empty
    ("abc ,", "abc "),                                     # nothing stripped after deleting
    ("a\t\n b", "a b"),                                    # any whitespace run -> one space
    (2.0, "2.0"), (1, "1"), (True, "true"),                # str() of scalars
    (["a", "b"], "['a' 'b']"),                             # a list is its repr, comma dropped
    ("HLA-B*15:02 (x)", "hla-b*15:02 (x)"),                # other punctuation stays
])
def test_normalise(raw, expected):
    assert normalise(raw) == expected


@pytest.mark.parametrize("p, g, expected", [
    ("", "", 1.0),                       # both empty (two nulls agree)
    ("", "x", 0.0), ("x", "", 0.0),      # one empty
    ("increased", "increased", 1.0),     # exact
    ("in", "increased", 0.8),            # substring, no minimum length
    ("creased", "decreased", 0.8),       # substring the other way round
    ("increased", "decreased", 0.0),     # no shared token: 0/2
    ("a b", "b a", 1.0),                 # reordered tokens: 2/2
    ("x y z", "x y w", 0.5),             # {x,y} / {x,y,z,w} = 2/4
    ("clopidogrel aspirin", "clopidogrel prasugrel", 1 / 3),  # 1 shared of 3
])
def test_similarity_branches(p, g, expected):
    assert similarity(p, g) == pytest.approx(expected, rel=1e-15)


def test_pair_scores():
    assert pair_score(T, T) == 1.0
    # Wrong drug: (12 - 1.5) / 12 = 0.875
    assert pair_score(dict(T, **{"Drug(s)": "warfarin"}), T) == pytest.approx(0.875)
    # Flipped direction: (12 - 2) / 12 = 0.8333...
    assert pair_score(FLIPPED, T) == pytest.approx(10 / 12)
    # Phenotype "response" inside "efficacy:response": (12 - 2 + 2 x 0.8) / 12 = 11.6 / 12
    assert pair_score(dict(T, Phenotype="response"), T) == pytest.approx(11.6 / 12)
    # Drug Jaccard 1/3: (12 - 1.5 + 1.5 / 3) / 12 = 11 / 12
    assert pair_score(dict(T, **{"Drug(s)": "clopidogrel, aspirin"}),
                      dict(T, **{"Drug(s)": "clopidogrel; prasugrel"})) == pytest.approx(11 / 12)
    # Case and spacing do not matter after normalisation.
    assert pair_score({k: str(v).upper() + "  " for k, v in T.items()}, T) == 1.0


def test_threshold_is_inclusive_and_all_or_nothing():
    only_ids = {f: T[f] for f in ("Variant/Haplotypes", "Gene", "Drug(s)")}
    # (1 + 1 + 1.5) / 12 = 0.291666...: below 0.7 -> 0; at t = 0.25 it counts, x 100 / 1
    assert reference_score([only_ids], [T]) == 0.0
    assert evaluate([only_ids], [T]).score == 0.0
    assert evaluate([only_ids], [T], threshold=0.25).score == pytest.approx(3.5 / 12 * 100)
    # Flipped direction 10/12 = 0.8333: counted at 0.7, not at 0.9.
    assert evaluate([FLIPPED], [T]).score == pytest.approx(1000 / 12)
    assert evaluate([FLIPPED], [T], threshold=0.9).score == 0.0
    # Exactly at the threshold counts: wrong drug 10.5/12 = 0.875 >= 0.875 -> 87.5.
    assert evaluate([dict(T, **{"Drug(s)": "x"})], [T], threshold=0.875).score == \
        pytest.approx(87.5)


def test_many_to_one_and_scores_above_100():
    # Two copies of a perfect row vs one curated row: (1 + 1) / 1 x 100 = 200.
    assert evaluate([T, T], [T]).score == 200.0
    assert reference_score([T, T], [T]) == 200.0
    # A near-duplicate adds its own best pair: (1 + 10/12) / 1 x 100 = 183.33...
    assert evaluate([T, FLIPPED], [T]).score == pytest.approx(100 * (1 + 10 / 12))
    # The one-to-one score gives the duplicate nothing: 100; precision 1/2, recall 1/1,
    # F1 = 2 x 0.5 x 1 / 1.5 = 2/3.
    ev = evaluate([T, T], [T])
    assert ev.one_to_one_score == 100.0
    assert (ev.precision, ev.recall) == (0.5, 1.0)
    assert ev.f1 == pytest.approx(2 / 3)


def test_unmatched_truth_costs_through_denominator():
    truths = [dict(T, **{"Variant/Haplotypes": f"rs{i}", "Gene": f"G{i}", "Drug(s)": f"d{i}",
                         "Alleles": f"A{i}", "Phenotype": f"P{i}"}) for i in range(7)]
    # 6 exact of 7 curated rows; the 7th has no pair >= 0.7 (5 fields differ: 7/12 max):
    # 6 / 7 x 100 = 85.714...
    ev = evaluate(truths[:6], truths)
    assert ev.score == pytest.approx(600 / 7)
    assert ev.recall == pytest.approx(6 / 7) and ev.precision == 1.0
    # An unrelated extra prediction below the threshold costs nothing: still 100.
    assert evaluate(truths + [{"Gene": "XYZ"}], truths).score == pytest.approx(100.0)


def test_empty_lists_score_zero():
    assert evaluate([], [T]).score == 0.0
    assert evaluate([T], []).score == 0.0
    assert evaluate([], []).score == 0.0
    assert reference_score([], []) == 0.0


def test_wrong_key_spellings_read_as_null():
    snake = {f.lower().replace("/", "_").replace(" ", "_"): v for f, v in T.items()}
    # Every field reads as null against a fully filled row: all 0 -> pair 0 -> score 0.
    assert evaluate([snake], [T]).score == 0.0


def test_per_field_breakdown_over_matched_pairs():
    ev = evaluate([FLIPPED], [T])
    assert ev.field_similarity["Direction of effect"] == 0.0
    assert all(ev.field_similarity[f] == 1.0 for f in FIELDS if f != "Direction of effect")
    assert ev.pairs == [(0, 0, pytest.approx(10 / 12))]


def test_hungarian_prefers_the_assignment_with_the_larger_total():
    a, b = dict(T), dict(T, Gene="OTHER")  # b vs a: 11/12
    # Predictions [b, a] vs truths [a, b]: the best one-to-one pairs a-a and b-b (2 x 1.0).
    ev = evaluate([b, a], [a, b])
    assert sorted(ev.pairs) == [(0, 1, 1.0), (1, 0, 1.0)]
    assert ev.one_to_one_score == 100.0


def test_perfect_predictions_score_100_on_every_embedded_article():
    for pmcid, article in load_articles().items():
        truth = article["var_pheno_ann"]
        if not truth:
            continue
        ev = evaluate(list(reversed(truth)), truth)
        assert ev.score == pytest.approx(100.0, abs=1e-9), pmcid
        assert ev.one_to_one_score == pytest.approx(100.0, abs=1e-9), pmcid
        assert ev.f1 == 1.0, pmcid


@pytest.mark.parametrize("prune", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_fast_path_identical_to_pairwise_loop(seed, prune, monkeypatch):
    if prune:
        monkeypatch.setattr(metrics, "CHEAP_PAIRS", 0)
    rng = random.Random(seed)
    rows = [r for a in load_articles().values() for r in a["var_pheno_ann"]]
    preds = []
    for _ in range(60):
        row = dict(rng.choice(rows))
        for field in rng.sample(FIELDS, rng.randint(0, 4)):
            row[field] = rng.choice([None, "increased", "Toxicity", (row[field] or "") + " x"])
        preds.append(row)
    truths = rng.sample(rows, 40)
    for t in (0.3, 0.7, 0.9):
        ev = evaluate(preds, truths, t)
        assert ev.score == reference_score(preds, truths, t)
        # Every kept pair is exact: its score equals the loop's pair score bit for bit.
        assert all(s == pair_score(preds[i], truths[j]) for i, j, s in ev.pairs)


_VALUES = st.one_of(
    st.none(), st.integers(-3, 3), st.sampled_from(["increased", "decreased", "in", "creased"]),
    st.text(alphabet="ab ,;\t*:/-", max_size=8),
    st.lists(st.sampled_from(["a", "b"]), max_size=2),
)
_ROWS = st.lists(st.fixed_dictionaries({}, optional={f: _VALUES for f in FIELDS}), max_size=6)


@settings(max_examples=300, deadline=None)
@given(preds=_ROWS, truths=_ROWS, threshold=st.sampled_from([0.0, 0.3, 0.7, 0.9, 1.0]),
       prune=st.booleans())
def test_fast_path_equals_loop_on_arbitrary_values(preds, truths, threshold, prune):
    # prune=True makes every field "large", so the pruned path runs on these small lists.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(metrics, "CHEAP_PAIRS", 0 if prune else metrics.CHEAP_PAIRS)
        ev = evaluate(preds, truths, threshold)
    assert ev.score == reference_score(preds, truths, threshold)
    assert ev.one_to_one_score <= 100.0 + 1e-9
    assert 0.0 <= ev.precision <= 1.0 and 0.0 <= ev.recall <= 1.0
