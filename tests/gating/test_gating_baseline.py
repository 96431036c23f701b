"""The marker baseline: valid trees from panel markers only."""

from __future__ import annotations

import pytest
from scievals.gating.baseline import predict_hierarchy
from scievals.gating.markers import is_valid_reference, marker_references
from scievals.gating.metrics import Truth, evaluate
from scievals.gating.panel import PanelIndex
from scievals.gating.tree import count_nodes, names, render


def test_baseline_on_every_embedded_case(verified_cases, staging_files):
    import json

    cases = verified_cases + [json.loads(p.read_text()) for p in staging_files]
    for case in cases:
        tree = predict_hierarchy(case)
        assert count_nodes(tree) >= 3, case["test_case_id"]
        panel = PanelIndex.from_markers(e["marker"] for e in case["panel"]["entries"])
        for name in names(tree):
            for ref in marker_references(name, panel):
                assert is_valid_reference(ref, panel), (case["test_case_id"], name, ref)
        scores = evaluate(tree, Truth.from_case(case))
        assert scores["hallucination_rate"] == 0.0, case["test_case_id"]
        assert predict_hierarchy(case) == tree  # deterministic


def test_baseline_tree_for_omip_008(omip_008):
    lines = render(predict_hierarchy(omip_008))
    assert lines[:5] == ["All Events", "└── Singlets", "    └── Live cells",
                         "        ├── Lymphocytes", "        │   ├── CD3+ T cells"]
    text = "\n".join(lines)
    for gate in ("CD4+ T cells", "CD8+ T cells", "IFN-g+", "B cells", "Monocytes"):
        assert gate in text
    scores = evaluate(predict_hierarchy(omip_008), Truth.from_case(omip_008))
    assert scores["hierarchy_f1"] == pytest.approx(0.8)
    assert scores["critical_gate_recall"] == 1.0


def test_baseline_follows_the_panel(make_case):
    case = make_case("X", {"name": "All Events", "children": []},
                     ["CD45", "CD3", "CD4", "CD8", "CD45RA", "CCR7", "CD19", "IgD", "CD27", "CD56",
                      "CD16", "CD14", "HLA-DR", "CD11c", "CD123", "Zombie NIR"])
    text = "\n".join(render(predict_hierarchy(case)))
    for gate in ("Live cells", "CD45+ Leukocytes", "Naive CD4+ T cells", "TEMRA CD8+ T cells",
                 "Naive B cells", "Switched memory B cells", "CD56bright NK cells",
                 "Non-classical Monocytes", "Myeloid dendritic cells", "Plasmacytoid dendritic cells"):
        assert gate in text, gate
    assert "Regulatory T cells" not in text  # no CD25/FOXP3 in the panel
    bare = make_case("Y", {"name": "All Events", "children": []}, ["CD3"])
    assert render(predict_hierarchy(bare)) == ["All Events", "└── Singlets", "    └── Lymphocytes",
                                               "        └── CD3+ T cells"]


def test_cytof_panel_has_no_scatter_gates(make_case):
    case = make_case("C", {"name": "All Events", "children": []},
                     ["DNA", "Cisplatin", "CD45", "CD3", "CD19"], ["191Ir", "195Pt", "89Y", "141Pr", "142Nd"])
    lines = render(predict_hierarchy(case))
    assert lines[:5] == ["All Events", "└── DNA+ cells", "    └── Singlets", "        └── Live cells",
                         "            └── CD45+ Leukocytes"]
    assert "Lymphocytes" not in "\n".join(lines)


def test_time_gate_only_with_a_time_parameter(make_case):
    case = make_case("T", {"name": "All Events", "children": []}, ["CD3"])
    case["acquisition"] = {"parameters": ["FSC-A", "Time"]}
    assert render(predict_hierarchy(case))[1] == "└── Time"
