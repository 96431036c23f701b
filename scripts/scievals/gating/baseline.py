"""``marker_baseline``: a deterministic gating hierarchy built from the panel alone.

No model, no network: a small marker knowledge base decides which quality-control
gates and which populations the panel can resolve, and names every gate with the
panel's own marker spelling, so the baseline never cites a marker the panel lacks.
It is the floor an LLM has to beat.

Layout (gates appear only when their markers are in the panel):

    All Events > [Time] > [DNA+ cells (CyTOF)] > Singlets > [Live cells] > [CD45+ Leukocytes]
      > Lymphocytes (flow only; FSC/SSC)
          > CD3+ T cells > CD4+ T cells > Regulatory T cells, naive/memory, cytokine+ ...
                         > CD8+ T cells > naive/memory, cytokine+ ...
                         > γδ T cells, MAIT cells, NKT-like cells
          > B cells > Naive / Memory (switched, unswitched) B cells, Plasmablasts, Transitional
          > NK cells > CD56bright / CD56dim NK cells
      > Monocytes > Classical / Intermediate / Non-classical Monocytes
      > Dendritic cells > Myeloid DCs (cDC1, cDC2), Plasmacytoid DCs
      > Granulocytes > Neutrophils, Eosinophils, Basophils

Each gate below the root states a confidence by how canonical its kind of gate is
(docs/gating.md, "Confidence and calibration"): quality-control gates of the chain (Time,
DNA+, Singlets, Live, CD45+) :data:`QC_CONFIDENCE`, lineage gates (Lymphocytes and the
lineages below the chain: T, B, NK cells, monocytes, DCs, granulocytes)
:data:`LINEAGE_CONFIDENCE`, every subset below a lineage :data:`SUBSET_CONFIDENCE`.
"""

from __future__ import annotations

from scievals.gating.panel import compact, fold, is_cytof_panel, marker_keys
from scievals.gating.tree import node

BASELINE_VERSION = "marker-baseline-v2"  # v2: a stated confidence per gate

# Nearly every expert strategy has the QC chain; lineages depend on the panel's purpose;
# subsets on the study's question. Round numbers: a stated rule, not a fit to the truth.
QC_CONFIDENCE = 0.9
LINEAGE_CONFIDENCE = 0.6
SUBSET_CONFIDENCE = 0.3

_VIABILITY = ("viab", "live", "dead", "vivid", "zombie", "aqua", "7-aad", "7aad", "dapi",
              "fixable", "propidium", "cisplatin", "l/d", "fvs")
_DNA = ("dna", "iridium", "ir191", "ir193", "intercalator")
_CYTOKINES = ("ifng", "tnfa", "tnf", "il2", "il4", "il5", "il10", "il13", "il17", "il17a",
              "il21", "il22", "cd107a", "cd154", "gzmb", "granzymeb", "perforin", "mip1b")


class PanelLookup:
    """Find panel entries by marker key and return the panel's own spelling."""

    def __init__(self, entries: list[dict]):
        self.entries = entries
        self.keys = [(e["marker"], marker_keys(e["marker"])) for e in entries if e.get("marker")]

    def get(self, *candidates: str) -> str | None:
        wanted = {compact(c) for c in candidates}
        for marker, keys in self.keys:
            if keys & wanted:
                return marker
        return None

    def matching(self, words: tuple[str, ...]) -> str | None:
        for marker, _ in self.keys:
            low = fold(marker)
            if any(w in low for w in words):
                return marker
        return None


def _pos(marker: str) -> str:
    return f"{marker}+"


def _memory_subsets(p: PanelLookup, lineage: str) -> list[dict]:
    ra = p.get("cd45ra")
    homing = p.get("ccr7", "cd62l", "cd27")
    if not (ra and homing):
        return []
    used = [ra, homing]
    return [node(f"{label} {lineage} T cells", used) for label in
            ("Naive", "Central memory", "Effector memory", "TEMRA")]


def _cytokines(p: PanelLookup) -> list[dict]:
    seen: list[str] = []
    for key in _CYTOKINES:
        marker = p.get(key)
        if marker and marker not in seen:
            seen.append(marker)
    return [node(_pos(m), [m]) for m in seen]


def _t_cells(p: PanelLookup) -> dict | None:
    cd3 = p.get("cd3")
    if not cd3:
        return None
    t = node(f"{cd3}+ T cells", [cd3])
    cd4, cd8 = p.get("cd4"), p.get("cd8")
    if cd4:
        helper = node(f"{cd4}+ T cells", [cd4] + ([cd8] if cd8 else []))
        cd25 = p.get("cd25")
        treg_second = p.get("foxp3", "cd127")
        if cd25 and treg_second:
            helper["children"].append(node("Regulatory T cells", [cd25, treg_second]))
        helper["children"] += _memory_subsets(p, f"{cd4}+") + _cytokines(p)
        t["children"].append(helper)
    if cd8:
        killer = node(f"{cd8}+ T cells", [cd8] + ([cd4] if cd4 else []))
        killer["children"] += _memory_subsets(p, f"{cd8}+") + _cytokines(p)
        t["children"].append(killer)
    gd = p.get("tcrgd")
    if gd:
        t["children"].append(node("γδ T cells", [gd]))
    va72, cd161 = p.get("va72", "trav12"), p.get("cd161")
    if va72 and cd161:
        t["children"].append(node("MAIT cells", [va72, cd161]))
    cd56 = p.get("cd56")
    if cd56:
        t["children"].append(node("NKT-like cells", [cd3, cd56]))
    return t


def _b_cells(p: PanelLookup) -> dict | None:
    lineage = p.get("cd19") or p.get("cd20") or p.get("b220")
    if not lineage:
        return None
    b = node("B cells", [lineage])
    igd, cd27, cd38, cd24 = p.get("igd"), p.get("cd27"), p.get("cd38"), p.get("cd24")
    if igd and cd27:
        memory = node("Memory B cells", [cd27, igd])
        memory["children"] += [node("Switched memory B cells", [igd, cd27]),
                               node("Unswitched memory B cells", [igd, cd27])]
        b["children"] += [node("Naive B cells", [igd, cd27]), memory]
    elif cd27:
        b["children"].append(node("Memory B cells", [cd27]))
    if cd38 and cd27:
        b["children"].append(node("Plasmablasts", [cd27, cd38]))
    if cd24 and cd38:
        b["children"].append(node("Transitional B cells", [cd24, cd38]))
    return b


def _nk_cells(p: PanelLookup) -> dict | None:
    cd56, cd16 = p.get("cd56"), p.get("cd16")
    other = p.get("nk11", "nkp46", "cd335")
    if not (cd56 or cd16 or other):
        return None
    used = [m for m in (cd56, cd16) if m] or [other]
    nk = node("NK cells", used)
    if cd56 and cd16:
        nk["children"] += [node(f"{cd56}bright NK cells", [cd56, cd16]),
                           node(f"{cd56}dim NK cells", [cd56, cd16])]
    return nk


def _monocytes(p: PanelLookup) -> dict | None:
    cd14, cd16 = p.get("cd14"), p.get("cd16")
    ly6c, cd11b = p.get("ly6c"), p.get("cd11b")
    if cd14:
        mono = node("Monocytes", [cd14])
        if cd16:
            mono["children"] += [node(f"{label} Monocytes", [cd14, cd16]) for label in
                                 ("Classical", "Intermediate", "Non-classical")]
        return mono
    if ly6c and cd11b:
        return node("Monocytes", [cd11b, ly6c])
    return None


def _dendritic(p: PanelLookup) -> dict | None:
    mhc = p.get("hladr", "mhcii")
    cd11c, cd123 = p.get("cd11c"), p.get("cd123", "cd303")
    if not (mhc and (cd11c or cd123)):
        return None
    dc = node("Dendritic cells", [mhc])
    if cd11c:
        mdc = node("Myeloid dendritic cells", [cd11c])
        for key, label in (("cd141", "cDC1"), ("cd1c", "cDC2")):
            marker = p.get(key)
            if marker:
                mdc["children"].append(node(label, [marker]))
        dc["children"].append(mdc)
    if cd123:
        dc["children"].append(node("Plasmacytoid dendritic cells", [cd123]))
    return dc


def _granulocytes(p: PanelLookup) -> dict | None:
    gran = p.get("cd66b", "cd15")
    ly6g = p.get("ly6g")
    if not (gran or ly6g):
        return None
    g = node("Granulocytes", [gran or ly6g])
    cd16 = p.get("cd16")
    if gran and cd16:
        g["children"].append(node("Neutrophils", [gran, cd16]))
    elif ly6g:
        g["children"].append(node("Neutrophils", [ly6g]))
    eos = p.get("siglec8", "siglecf", "ccr3", "cd193")
    if eos:
        g["children"].append(node("Eosinophils", [eos]))
    baso = p.get("fcer1a", "cd203c")
    if baso:
        g["children"].append(node("Basophils", [baso]))
    return g


def predict_hierarchy(case: dict) -> dict:
    """The baseline tree for one case (depends only on its panel and parameters)."""
    entries = case["panel"]["entries"]
    p = PanelLookup(entries)
    cytof = is_cytof_panel(entries)
    root = node("All Events")
    chain = [root]

    def push(child: dict) -> None:
        chain[-1]["children"].append(child)
        chain.append(child)

    parameters = {compact(x) for x in (case.get("acquisition") or {}).get("parameters", [])}
    if "time" in parameters:
        push(node("Time", ["Time"]))
    if cytof:
        dna = p.matching(_DNA)
        if dna:
            push(node("DNA+ cells", [dna]))
        push(node("Singlets", [dna] if dna else []))
    else:
        push(node("Singlets", ["FSC-A", "FSC-H"]))
    viability = p.matching(_VIABILITY)
    if viability:
        push(node("Live cells", [viability]))
    cd45 = p.get("cd45")
    if cd45:
        push(node(f"{cd45}+ Leukocytes", [cd45]))
    anchor = chain[-1]

    lymphoid = [x for x in (_t_cells(p), _b_cells(p), _nk_cells(p)) if x]
    if lymphoid and not cytof:
        lymphocytes = node("Lymphocytes", ["FSC-A", "SSC-A"], lymphoid)
        anchor["children"].append(lymphocytes)
    else:
        anchor["children"] += lymphoid
    anchor["children"] += [x for x in (_monocytes(p), _dendritic(p), _granulocytes(p)) if x]
    _state_confidences(chain, anchor)
    return root


def _state_confidences(chain: list[dict], anchor: dict) -> None:
    for gate in chain[1:]:
        gate["confidence"] = QC_CONFIDENCE
    lineages = list(anchor["children"])  # the chain ends at the anchor
    lineages += [c for g in lineages if g["name"] == "Lymphocytes" for c in g["children"]]
    lineage_ids = {id(g) for g in lineages}
    stack = list(lineages)
    while stack:
        gate = stack.pop()
        gate["confidence"] = (LINEAGE_CONFIDENCE if id(gate) in lineage_ids
                              else SUBSET_CONFIDENCE)
        stack.extend(gate["children"])
