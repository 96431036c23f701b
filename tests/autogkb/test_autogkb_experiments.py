"""autogkb.experiments.units: a predicted annotation is right when the one-to-one matching
pairs it with a curated one at the threshold."""

from scievals.autogkb.experiments import units
from scievals.autogkb.metrics import FIELDS


def _ann(gene, drug, **extra):
    row = dict.fromkeys(FIELDS, "x")
    row.update({"Gene": gene, "Drug(s)": drug}, **extra)
    return row


def test_units_match_the_one_to_one_pairs():
    truth = [_ann("CYP2C9", "warfarin")]
    item = {"case_id": "a1", "truth": truth}
    preds = [_ann("CYP2C9", "warfarin", confidence=0.8),
             # identical copy: the matching uses it once, so it is a wrong unit
             _ann("CYP2C9", "warfarin", confidence=0.5),
             # Gene and Drug(s) differ: 9.5 of 12 weight agrees = 0.79 >= 0.7 but the one
             # curated annotation is taken by the first prediction
             _ann("VKORC1", "aspirin", confidence=True)]
    got = units(preds, item)
    assert [u.correct for u in got] == [True, False, False]
    assert [u.confidence for u in got] == [0.8, 0.5, None]  # a bool is not a probability
    assert got[0].key == got[1].key != got[2].key


def test_threshold_decides():
    # Gene, Drug(s), Alleles, Direction of effect differ: 12 - 1 - 1.5 - 1.5 - 2 = 6 of 12 = 0.5
    item = {"case_id": "a1", "truth": [_ann("A", "d")]}
    pred = [_ann("B", "e", **{"Alleles": "*2", "Direction of effect": "up"})]
    assert [u.correct for u in units(pred, item)] == [False]
    assert [u.correct for u in units(pred, item, threshold=0.5)] == [True]
    assert units(None, item) == []
