"""Token-based hallucination: marker references in gate names vs the panel."""

from __future__ import annotations

import pytest
from scievals.gating.markers import hallucinated, marker_references
from scievals.gating.metrics import Truth, hallucination_rate, hallucination_rate_reference
from scievals.gating.panel import PanelIndex, marker_keys


def panel(*markers):
    return PanelIndex.from_markers(markers)


def test_cd38_is_a_hallucination_when_the_panel_has_only_cd3():
    assert hallucinated("CD38+", panel("CD3", "CD4")) == "marker cd38 not in panel"
    # The reference's substring test misses it: "cd3" is in "cd38+".
    assert hallucination_rate_reference({"CD38+"}, ["CD3", "CD4"]) == 0.0
    assert hallucination_rate({"CD38+": set()}, panel("CD3", "CD4"))[0] == 1.0


def test_non_classical_monocytes_is_not_a_hallucination():
    p = panel("CD14", "CD16")
    assert marker_references("Non-classical monocytes", p) == ()
    assert hallucinated("Non-classical monocytes", p) is None
    # The reference flags it: no panel marker is a substring and the name has a '-'.
    assert hallucination_rate_reference({"Non-classical monocytes"}, ["CD14", "CD16"]) == 1.0
    # Without CD14/CD16 the population itself is unsupported.
    assert "non-classical mono" in hallucinated("Non-classical monocytes", panel("CD3"))


@pytest.mark.parametrize("name, markers", [
    ("HLA-DR+ CD14-", ("HLA-DR", "CD14")),
    ("CD8+ T cells", ("CD8a",)),           # one-letter suffix in the panel
    ("aAmine-", ("CD3",)),                 # viability dye, never a hallucination
    ("IFN-g+", ("IFN-γ",)),                # Greek and hyphen folded
    ("IFNγ+ CD4+", ("IFNy", "CD4")),       # alias group
    ("TCRgd+", ("TCR γδ",)),
    ("γδ T cells", ("CD3",)),              # no signed marker token
    ("F4/80+ macrophages", ("F4/80",)),
    ("PD-1+", ("PD-1 (CD279)",)),
    ("CD279+", ("PD-1",)),                 # CD alias of PD-1
    ("CCR7+ CD45RA-", ("CCR7 (CD197)", "CD45RA")),
    ("CD56bright NK cells", ("CD56 (NCAM) b", "CD16")),
    ("Th1-like Treg", ("CXCR3", "FoxP3")),  # "-like" is not a negative sign
    ("KIR3DL05+ NK cells", ("Mamu-KIR3DL05", "CD16")),
    ("Plasmacytoid DCs", ("CD123",)),
    ("Th22 Cells", ("CD4",)),               # not the Th2 population
    ("Stem cell memory CD8 T cells", ("CD8", "CD95")),
])
def test_valid_gate_names(name, markers):
    assert hallucinated(name, panel(*markers)) is None


@pytest.mark.parametrize("name, markers, reason", [
    ("CCR7+", ("CD3", "CD4"), "marker ccr7 not in panel"),
    ("HLA-DQ+", ("HLA-DR",), "marker hladq not in panel"),
    ("PD-1+", ("CD3",), "marker pd1 not in panel"),
    ("IL-17A+", ("IL-2",), "marker il17a not in panel"),
    ("CD3-CD56+", ("CD3",), "marker cd56 not in panel"),
    ("CD4 T cells", ("CD3",), "marker cd4 not in panel"),      # bare CD tokens count
    ("Tregs", ("CD4",), "population 'tregs' lacks its markers in the panel"),
    ("Plasmablasts", ("CD19",), "population 'plasma' lacks its markers in the panel"),
])
def test_hallucinated_gate_names(name, markers, reason):
    assert hallucinated(name, panel(*markers)) == reason


def test_marker_keys_split_aliases_and_footnotes():
    assert {"ccr7", "cd197"} <= marker_keys("CCR7 (CD197)")
    assert "cd123" in marker_keys("CD123 a")           # table footnote letter dropped
    assert "siglech" in marker_keys("Siglec H")         # a real letter kept
    assert {"cd16", "cd32"} <= marker_keys("CD16/32")
    assert {"tcrgd", "gdtcr"} <= marker_keys("TCR γδ")


def test_verified_ground_truth_uses_only_its_own_panel(verified_cases):
    for case in verified_cases:
        truth = Truth.from_case(case)
        _rate, flagged = hallucination_rate({n: set() for n in truth.names}, truth.panel)
        assert flagged == {}, case["test_case_id"]
