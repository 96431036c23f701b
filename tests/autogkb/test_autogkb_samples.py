"""autogkb's consensus of k annotation lists, worked by hand."""

from __future__ import annotations

from scievals.autogkb.experiments import consensus, sample_keys


def _ann(variant, gene, drug, phenotype=None):
    return {"Variant/Haplotypes": variant, "Gene": gene, "Drug(s)": drug, "Phenotype": phenotype}


def test_consensus_keeps_keys_held_by_a_majority_and_the_most_written_version():
    # rs1 in 3 of 3 samples (kept), rs2 in 2 (kept: 2 > 1.5), rs3 in 1 (dropped).
    # rs1's versions: phenotype "x" once, "y" twice -> "y".
    samples = [
        [_ann("rs1", "G1", "drugA", "x"), _ann("rs2", "G2", "drugB")],
        [_ann("rs1", "G1", "drugA", "y"), _ann("rs3", "G3", "drugC")],
        [_ann("RS1 ", "g1", "DrugA", "y"), _ann("rs2", "G2", "drugB")],  # same key, normalised
    ]
    got = consensus(samples)
    assert got == [_ann("rs1", "G1", "drugA", "y"), _ann("rs2", "G2", "drugB")]


def test_consensus_ties_and_unparsed_samples():
    # k = 2, rs1 in both with different phenotypes (1 vote each): sample 0's wins
    a, b = [_ann("rs1", "G1", "d", "first")], [_ann("rs1", "G1", "d", "second")]
    assert consensus([a, b]) == a and consensus([b, a]) == b
    # an unparsed sample counts: rs1 in 1 of 2 is not more than half
    assert consensus([a, None]) == []


def test_sample_keys_repeat_once():
    keys = sample_keys([_ann("rs1", "G1", "d", "x"), _ann("rs1", "g1", "D", "y")])
    assert keys == {("rs1", "g1", "d")}
    assert sample_keys(None) == frozenset()
