"""gating.experiments.units: which predicted gates are units, their keys and correctness."""

from scievals.common.experiments import Unit
from scievals.gating.experiments import units
from scievals.gating.parser import parse_prediction

CASE = {"test_case_id": "c1", "gating_hierarchy": {"root": {
    "name": "All Events", "children": [
        {"name": "Singlets", "children": [
            {"name": "Live", "children": [
                {"name": "CD3+ T cells", "children": [{"name": "CD4+", "children": []}]}]}]}]}}}


def test_units_keys_correctness_and_confidence():
    pred = {"name": "All Events", "children": [
        {"name": "Singlets", "confidence": 0.9, "children": [
            {"name": "Live", "confidence": 1, "children": [
                # "CD4+ T cells" normalises to "cd4+" (hierarchy_f1's rule): a truth name
                {"name": "CD4+ T cells", "confidence": "high", "children": []},
                {"name": "B cells", "confidence": 1.2, "children": []},
                {"name": "Singlets", "confidence": 0.1, "children": []}]}]}]}
    got = units(parse_prediction(pred), CASE)
    # root left out; the repeated "Singlets" is one unit with its first confidence;
    # "high" and 1.2 are not probabilities -> None
    assert got == [Unit("singlets", True, 0.9), Unit("live", True, 1.0),
                   Unit("cd4+", True, None), Unit("b", False, None)]


def test_unparsed_reply_has_no_units():
    assert units(None, CASE) == []
    assert units(parse_prediction("no tree here"), CASE) == []
