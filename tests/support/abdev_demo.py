"""Deterministic generator of the embedded GDPa1-demo data set (synthetic).

The real GDPa1 file cannot be redistributed here (no data licence is stated),
so offline runs use a synthetic stand-in with the same shape and the same
hazards: all 30 GDPa1 columns in file order, 246 antibodies, five
isotype-stratified folds of 54/49/48/46/49 rows, the real per-assay counts of
labelled values, heavy ties (58 exact zeros in PR_CHO, AC-SINS quantised to
1/8 nm, HIC rounded to 0.01 with a few float artifacts such as
``3.0300000000000002``) and labels that depend on sequence descriptors plus
noise, so a descriptor model beats a random one.

Sequences are invented: framework templates written for this generator are
mutated per family (15 % of positions) and per antibody (3 %), CDRs are drawn
from a CDR-like amino-acid composition, and constant domains are random
strings. No sequence or value is taken from GDPa1 or any real antibody.

It is a tool of this repository, not of the installed package (the workflow only reads the
committed files)::

    PYTHONPATH=scripts:tests python -m support.abdev_demo \
        --out data/demo/abdev/GDPa1_demo.csv --heldout-out data/demo/abdev/heldout_demo.csv

rewrites the committed files byte for byte (``tests/abdev/test_abdev_demo.py`` checks this).
"""

from __future__ import annotations

import argparse
import math
import os

import numpy as np
import pandas as pd

from scievals.abdev.constants import GDPA1_COLUMNS, HELDOUT_COLUMNS
from scievals.common.io import write_csv

DEMO_SEED = 20250814
N_ANTIBODIES = 246
N_HELDOUT = 80
FOLD_SIZES = [54, 49, 48, 46, 49]
# Isotype x fold counts: rows sum to the isotype totals, columns to FOLD_SIZES.
ISOTYPE_FOLD_COUNTS = {
    "IgG1": [37, 34, 33, 32, 33],
    "IgG4": [10, 9, 9, 9, 9],
    "IgG2": [7, 6, 6, 5, 7],
}
LIGHT_COUNTS = {"Kappa": 217, "Lambda": 29}
# Labelled values per assay (the rest are NaN), as in GDPa1 v1.2.
LABELLED = {
    "HIC": 242, "Tm2": 193, "Titer": 239, "PR_CHO": 197, "AC-SINS_pH7.4": 242,
    "Purity": 239, "SEC %Monomer": 239, "SMAC": 240, "HAC": 238, "PR_Ova": 197,
    "AC-SINS_pH6.0": 242, "Tonset": 193, "Tm1": 193,
}
PR_CHO_ZEROS = 58
HIC_BATCH = 20
HIC_OFFSET = 0.3

AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"
# Composition of CDR loops (Tyr/Ser/Gly rich) and of globular proteins (constant domains).
CDR_WEIGHTS = dict(zip(AMINO_ACIDS, [6, 0.5, 7, 3, 4, 12, 2, 3, 3, 4, 2, 6, 3, 2, 5, 14, 7, 5, 4, 15]))
PROTEIN_WEIGHTS = dict(zip(AMINO_ACIDS, [8, 2, 5, 6, 4, 7, 2, 5, 6, 9, 2, 4, 5, 4, 5, 8, 6, 7, 1.5, 3.5]))
SIMILAR = ["AVILM", "FYW", "STNQ", "KRH", "DE", "GP"]

# Framework templates (written for this generator; mutated before use).
HEAVY_FR = ["QVQLVESGAEVKKPGESLRLSCKAS", "IHWVRQAPGKGLEWVAV",
            "YYADSVKGRFTISRDNSKNTAYLQMNSLRAEDTAVYYC", "WGQGTLVTVSS"]
KAPPA_FR = ["DIQMTQSPSTLSASVGDRVTITCRAS", "LAWYQQKPGKAPKLLIY",
            "SLQSGVPSRFSGSGSGTEFTLTISSLQPDDFATYYC", "FGQGTKVEIK"]
LAMBDA_FR = ["QSALTQPPSVSGAPGQRVTISCTGSS", "VSWYQQLPGTAPKLLIY",
             "QRPSGVPDRFSGSKSGTSASLAITGLQAEDEADYYC", "FGGGTKLTVL"]
# AHo-style slot widths (framework, CDR, framework, ...) summing to 149 columns.
HEAVY_SLOTS = [25, 12, 17, 14, 38, 32, 11]
LIGHT_SLOTS = [26, 18, 17, 18, 36, 24, 10]
CONSTANT_LENGTHS = {"IgG1": 330, "IgG2": 326, "IgG4": 327, "Kappa": 107, "Lambda": 106}
CODONS = {
    "A": ["GCC", "GCT", "GCA"], "C": ["TGC", "TGT"], "D": ["GAC", "GAT"], "E": ["GAG", "GAA"],
    "F": ["TTC", "TTT"], "G": ["GGC", "GGA", "GGT"], "H": ["CAC", "CAT"], "I": ["ATC", "ATT"],
    "K": ["AAG", "AAA"], "L": ["CTG", "CTC", "TTG"], "M": ["ATG"], "N": ["AAC", "AAT"],
    "P": ["CCC", "CCT", "CCA"], "Q": ["CAG", "CAA"], "R": ["CGG", "AGA", "CGC"],
    "S": ["AGC", "TCC", "TCT"], "T": ["ACC", "ACA"], "V": ["GTG", "GTC"], "W": ["TGG"],
    "Y": ["TAC", "TAT"],
}
# Kyte-Doolittle hydropathy.
KD = {"A": 1.8, "C": 2.5, "D": -3.5, "E": -3.5, "F": 2.8, "G": -0.4, "H": -3.2, "I": 4.5,
      "K": -3.9, "L": 3.8, "M": 1.9, "N": -3.5, "P": -1.6, "Q": -3.5, "R": -4.5, "S": -0.8,
      "T": -0.7, "V": 4.2, "W": -0.9, "Y": -1.3}
TRIALS = ["Approved", "Phase 3", "Phase 2", "Phase 1"]
TRIAL_P = [0.35, 0.2, 0.3, 0.15]


def _draw(rng: np.random.Generator, weights: dict[str, float], n: int) -> str:
    letters = list(weights)
    p = np.array([weights[a] for a in letters], dtype=float)
    return "".join(rng.choice(letters, size=n, p=p / p.sum()))


def _mutate(rng: np.random.Generator, seq: str, rate: float) -> str:
    """Substitute ``rate`` of the positions (mostly by a similar residue); C and W stay."""
    out = list(seq)
    for i, aa in enumerate(out):
        if aa in "CW" or rng.random() >= rate:
            continue
        group = next((g for g in SIMILAR if aa in g), AMINO_ACIDS)
        pool = group.replace(aa, "") if rng.random() < 0.7 and len(group) > 1 else AMINO_ACIDS.replace("C", "")
        out[i] = pool[rng.integers(len(pool))]
    return "".join(out)


def _heavy_cdrs(rng: np.random.Generator) -> list[str]:
    cdr1 = "G" + "FY"[rng.integers(2)] + "TS"[rng.integers(2)] + _draw(rng, CDR_WEIGHTS, int(rng.integers(5, 8)))
    cdr2 = _draw(rng, CDR_WEIGHTS, int(rng.integers(7, 11)))
    middle = _draw(rng, CDR_WEIGHTS, int(np.clip(rng.normal(10, 3.5), 3, 24)))
    cdr3 = ["AR", "AK", "AS", "TR"][rng.integers(4)] + middle + ["FDY", "MDV", "FDP", "LDY"][rng.integers(4)]
    return [cdr1, cdr2, cdr3]


def _light_cdrs(rng: np.random.Generator, kappa: bool) -> list[str]:
    cdr1 = ("Q" if kappa else "S") + _draw(rng, CDR_WEIGHTS, int(rng.integers(5, 12)))
    cdr2 = _draw(rng, CDR_WEIGHTS, 3)
    cdr3 = ("QQ" if kappa else "AA") + _draw(rng, CDR_WEIGHTS, int(rng.integers(5, 8))) + "T"
    return [cdr1, cdr2, cdr3]


def _assemble(frameworks: list[str], cdrs: list[str]) -> list[str]:
    return [frameworks[0], cdrs[0], frameworks[1], cdrs[1], frameworks[2], cdrs[2], frameworks[3]]


def _aligned(segments: list[str], slots: list[int]) -> str:
    """Pad each CDR to its slot with central gaps, as AHo numbering does."""
    out = []
    for i, (segment, width) in enumerate(zip(segments, slots)):
        if i % 2 == 0:
            out.append(segment)
        else:
            left = math.ceil(len(segment) / 2)
            out.append(segment[:left] + "-" * (width - len(segment)) + segment[left:])
    return "".join(out)


def _back_translate(rng: np.random.Generator, protein: str) -> str:
    return "".join(CODONS[a][rng.integers(len(CODONS[a]))] for a in protein) + "TGA"


def _constant_domains(seed: int) -> dict[str, str]:
    rng = np.random.default_rng([seed, 7])
    return {name: _draw(rng, PROTEIN_WEIGHTS, length) for name, length in CONSTANT_LENGTHS.items()}


def _family_sizes(rng: np.random.Generator, n: int) -> list[int]:
    sizes = []
    while sum(sizes) < n:
        sizes.append(int(min(1 + rng.geometric(0.3), n - sum(sizes))))
    return sizes


def _light_types(rng: np.random.Generator, sizes: list[int], n_lambda: int) -> np.ndarray:
    """Exactly ``n_lambda`` Lambda chains, given to whole families where they fit."""
    families = np.repeat(np.arange(len(sizes)), sizes)
    lam = np.zeros(len(families), dtype=bool)
    remaining = n_lambda
    for fam in rng.permutation(len(sizes)):
        take = min(sizes[fam], remaining)
        lam[np.flatnonzero(families == fam)[:take]] = True
        remaining -= take
        if remaining == 0:
            break
    return lam


def _antibodies(rng: np.random.Generator, n: int, n_lambda: int) -> pd.DataFrame:
    """Sequences, families and light-chain types for ``n`` invented antibodies."""
    sizes = _family_sizes(rng, n)
    lam = _light_types(rng, sizes, n_lambda)
    rows = []
    index = 0
    for fam, size in enumerate(sizes):
        heavy_fr = [_mutate(rng, fr, 0.15) for fr in HEAVY_FR]
        heavy_cdr_parent = _heavy_cdrs(rng)
        light_parent = {
            kappa: ([_mutate(rng, fr, 0.15) for fr in (KAPPA_FR if kappa else LAMBDA_FR)],
                    _light_cdrs(rng, kappa))
            for kappa in (True, False)
        }
        for _ in range(size):
            kappa = not lam[index]
            index += 1
            light_fr, light_cdr_parent = light_parent[kappa]
            hf = [_mutate(rng, fr, 0.03) for fr in heavy_fr]
            lf = [_mutate(rng, fr, 0.03) for fr in light_fr]
            # CDR1/2 are family traits (mutated), CDR3 is new for every antibody.
            hc = [_mutate(rng, c, 0.2) for c in heavy_cdr_parent[:2]] + [_heavy_cdrs(rng)[2]]
            lc = [_mutate(rng, c, 0.2) for c in light_cdr_parent[:2]] + [_light_cdrs(rng, kappa)[2]]
            heavy, light = _assemble(hf, hc), _assemble(lf, lc)
            rows.append({
                "family": fam,
                "lc_subtype": "Kappa" if kappa else "Lambda",
                "vh_protein_sequence": "".join(heavy),
                "vl_protein_sequence": "".join(light),
                "heavy_aligned_aho": _aligned(heavy, HEAVY_SLOTS),
                "light_aligned_aho": _aligned(light, LIGHT_SLOTS),
                "cdrs": "".join(hc + lc),
                "cdr3_len": len(hc[2]),
            })
    return pd.DataFrame(rows)


def _zscore(x: np.ndarray) -> np.ndarray:
    return (x - x.mean()) / x.std()


def _descriptors(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    def charge(seq: str) -> float:
        return seq.count("K") + seq.count("R") + 0.1 * seq.count("H") - seq.count("D") - seq.count("E")

    fv = frame["vh_protein_sequence"] + frame["vl_protein_sequence"]
    return {
        "kd_fv": _zscore(np.array([np.mean([KD[a] for a in s]) for s in fv])),
        "kd_cdr": _zscore(np.array([np.mean([KD[a] for a in s]) for s in frame["cdrs"]])),
        "arom_cdr": _zscore(np.array([sum(s.count(a) for a in "FWY") / len(s) for s in frame["cdrs"]])),
        "charge_fv": _zscore(np.array([charge(s) for s in fv])),
        "charge_cdr": _zscore(np.array([charge(s) for s in frame["cdrs"]])),
        "cdr3_len": _zscore(frame["cdr3_len"].to_numpy(dtype=float)),
    }


def _labelled_mask(rng: np.random.Generator, n: int, labelled: int) -> np.ndarray:
    mask = np.zeros(n, dtype=bool)
    mask[rng.choice(n, size=labelled, replace=False)] = True
    return mask


def _round8(x: np.ndarray) -> np.ndarray:
    return np.round(x * 8) / 8


def _assays(rng: np.random.Generator, frame: pd.DataFrame, isotypes: np.ndarray) -> dict[str, np.ndarray]:
    """Assay values driven by sequence descriptors, family effects and noise."""
    n = len(frame)
    d = _descriptors(frame)
    fam = frame["family"].to_numpy()
    family_effect = rng.normal(size=fam.max() + 1)[fam]
    stability = rng.normal(size=fam.max() + 1)[fam]

    def noise(scale: float) -> np.ndarray:
        return rng.normal(scale=scale, size=n)

    lam = (frame["lc_subtype"] == "Lambda").to_numpy(dtype=float)
    igg1 = (isotypes == "IgG1").astype(float)

    hic = 0.55 * d["kd_cdr"] + 0.35 * d["arom_cdr"] + 0.25 * d["kd_fv"] + 0.25 * family_effect + noise(0.6)
    sins = 0.5 * d["charge_fv"] + 0.35 * d["kd_cdr"] + 0.2 * d["arom_cdr"] + 0.2 * family_effect + noise(0.7)
    prcho = (0.5 * d["charge_cdr"] + 0.25 * d["charge_fv"] + 0.3 * d["arom_cdr"] + 0.2 * d["cdr3_len"]
             + noise(0.7))
    tm2 = 0.45 * stability - 0.35 * d["cdr3_len"] + 0.3 * d["kd_fv"] - 0.4 * lam + noise(0.6)
    titer = -0.35 * np.abs(d["charge_fv"]) + 0.3 * igg1 - 0.25 * d["kd_cdr"] + 0.3 * family_effect + noise(0.8)

    values = {
        "HIC": np.round(2.25 + 0.45 * np.exp(0.55 * hic), 2),
        "AC-SINS_pH7.4": _round8(-1.9 + 2.1 * np.exp(0.95 * sins)),
        "Tm2": np.round(76.0 + 3.0 * tm2, 2),
        "Titer": np.round(170.0 * np.exp(0.4 * titer), 2),
        "AC-SINS_pH6.0": _round8(-1.0 + 1.6 * np.exp(0.8 * (0.8 * sins + noise(0.5)))),
        "PR_Ova": np.round(np.clip(0.12 * (0.8 * prcho + noise(0.5)) + 0.05, 0, None), 3),
        "SMAC": np.round(9.0 + 1.1 * (0.6 * hic + noise(0.7)), 2),
        "HAC": np.round(10.5 + 1.4 * (0.6 * d["charge_fv"] + noise(0.7)), 2),
        "Purity": np.round(np.clip(96.5 - 1.8 * np.exp(0.5 * (0.3 * hic + noise(0.9))), 80, 100), 1),
        "SEC %Monomer": np.round(np.clip(99.0 - 1.2 * np.exp(0.5 * (0.4 * sins + noise(0.9))), 85, 100), 2),
        "Tonset": np.round(60.0 + 2.5 * (0.7 * tm2 + noise(0.6)), 2),
        "Tm1": np.round(67.0 + 2.5 * (0.6 * tm2 + noise(0.7)), 2),
    }
    for assay, labelled in LABELLED.items():
        if assay == "PR_CHO":
            continue
        values[assay] = np.where(_labelled_mask(rng, n, labelled), values[assay], np.nan)

    # PR_CHO: the lowest labelled latent values are exact zeros, as in the real assay.
    labelled = _labelled_mask(rng, n, LABELLED["PR_CHO"])
    threshold = np.sort(prcho[labelled])[PR_CHO_ZEROS - 1]
    pr = np.round(0.01 + 0.16 * (prcho - threshold) * np.exp(0.25 * prcho), 3)
    pr = np.where(prcho <= threshold, 0.0, np.maximum(pr, 0.002))
    values["PR_CHO"] = np.where(labelled, pr, np.nan)

    # One HIC batch was offset-corrected in floating point (x - 0.3 rounded, + 0.3), which
    # leaves float artifacts such as 3.0300000000000002 next to plain 3.03, as in GDPa1.
    hic_values = values["HIC"]
    batch = rng.choice(np.flatnonzero(~np.isnan(hic_values)), size=HIC_BATCH, replace=False)
    hic_values[batch] = np.round(hic_values[batch] - HIC_OFFSET, 2) + HIC_OFFSET
    return values


def _stratified_folds(rng: np.random.Generator, families: np.ndarray, isotypes: np.ndarray) -> np.ndarray:
    """Fold per isotype: family-ordered rows cut into the ISOTYPE_FOLD_COUNTS blocks."""
    folds = np.full(len(families), -1)
    family_order = rng.permutation(families.max() + 1)
    rank = np.argsort(family_order)[families]
    for isotype, counts in ISOTYPE_FOLD_COUNTS.items():
        rows = np.flatnonzero(isotypes == isotype)
        rows = rows[np.argsort(rank[rows], kind="stable")]
        folds[rows] = np.repeat(np.arange(len(counts)), counts)
    return folds


def _cluster_folds(rng: np.random.Generator, families: np.ndarray) -> np.ndarray:
    """Whole families to the currently smallest fold, largest family first."""
    sizes = np.bincount(families)
    fold_of_family = np.zeros(len(sizes), dtype=int)
    totals = np.zeros(5, dtype=int)
    for fam in sorted(rng.permutation(len(sizes)), key=lambda f: -sizes[f]):
        fold_of_family[fam] = int(np.argmin(totals))
        totals[fold_of_family[fam]] += sizes[fam]
    return fold_of_family[families]


def _full_chains(rng: np.random.Generator, frame: pd.DataFrame, isotypes: np.ndarray, seed: int) -> dict:
    constants = _constant_domains(seed)
    hc = [vh + constants[iso] for vh, iso in zip(frame["vh_protein_sequence"], isotypes)]
    lc = [vl + constants[lt] for vl, lt in zip(frame["vl_protein_sequence"], frame["lc_subtype"])]
    return {
        "hc_protein_sequence": hc,
        "lc_protein_sequence": lc,
        "hc_dna_sequence": [_back_translate(rng, s) for s in hc],
        "lc_dna_sequence": [_back_translate(rng, s) for s in lc],
    }


def _isotypes(rng: np.random.Generator, n: int) -> np.ndarray:
    counts = {iso: sum(c) for iso, c in ISOTYPE_FOLD_COUNTS.items()}
    labels = np.concatenate([[iso] * round(c * n / N_ANTIBODIES) for iso, c in counts.items()])
    labels = np.concatenate([labels, ["IgG1"] * (n - len(labels))])[:n]
    return rng.permutation(labels)


def make_demo(seed: int = DEMO_SEED) -> pd.DataFrame:
    """The synthetic GDPa1-demo truth table (246 rows, the 30 GDPa1 columns)."""
    rng = np.random.default_rng(seed)
    frame = _antibodies(rng, N_ANTIBODIES, LIGHT_COUNTS["Lambda"])
    isotypes = _isotypes(rng, N_ANTIBODIES)
    families = frame["family"].to_numpy()
    assays = _assays(rng, frame, isotypes)
    chains = _full_chains(rng, frame, isotypes, seed)
    out = pd.DataFrame({
        "antibody_id": [f"DEMO-{i:03d}" for i in range(1, N_ANTIBODIES + 1)],
        "antibody_name": [f"demomab-{i:03d}" for i in range(1, N_ANTIBODIES + 1)],
        **assays,
        "hc_subtype": isotypes,
        "lc_subtype": frame["lc_subtype"].to_numpy(),
        "highest_clinical_trial_asof_feb2025": rng.choice(TRIALS, size=N_ANTIBODIES, p=TRIAL_P),
        "est_status_asof_feb2025": rng.choice(["Active", "Discontinued"], size=N_ANTIBODIES, p=[0.7, 0.3]),
        "vh_protein_sequence": frame["vh_protein_sequence"],
        "vl_protein_sequence": frame["vl_protein_sequence"],
        **chains,
        "hierarchical_cluster_fold": _cluster_folds(rng, families),
        "random_fold": rng.permutation(np.arange(N_ANTIBODIES) % 5),
        "hierarchical_cluster_IgG_isotype_stratified_fold": _stratified_folds(rng, families, isotypes),
        "light_aligned_aho": frame["light_aligned_aho"],
        "heavy_aligned_aho": frame["heavy_aligned_aho"],
    })
    return out[GDPA1_COLUMNS]


def make_demo_heldout(seed: int = DEMO_SEED) -> pd.DataFrame:
    """80 synthetic unlabelled antibodies in the heldout-set-sequences.csv layout."""
    rng = np.random.default_rng([seed, 1])
    frame = _antibodies(rng, N_HELDOUT, round(N_HELDOUT * LIGHT_COUNTS["Lambda"] / N_ANTIBODIES))
    isotypes = _isotypes(rng, N_HELDOUT)
    out = pd.DataFrame({
        "antibody_name": [f"demo-heldout-{i:03d}" for i in range(1, N_HELDOUT + 1)],
        "vh_protein_sequence": frame["vh_protein_sequence"],
        "vl_protein_sequence": frame["vl_protein_sequence"],
        "heavy_aligned_aho": frame["heavy_aligned_aho"],
        "light_aligned_aho": frame["light_aligned_aho"],
        "hc_subtype": isotypes,
        "lc_subtype": frame["lc_subtype"],
    })
    return out[HELDOUT_COLUMNS]


def write_demo(out: str | os.PathLike, heldout_out: str | os.PathLike | None = None, seed: int = DEMO_SEED) -> None:
    """Write the demo truth (and optionally the heldout sequences) atomically."""
    write_csv(out, make_demo(seed))
    if heldout_out:
        write_csv(heldout_out, make_demo_heldout(seed))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Regenerate the embedded synthetic GDPa1-demo data (same bytes for the same "
        "seed). It is NOT GDPa1: sequences and labels are invented.")
    parser.add_argument("--out", required=True, help="truth CSV, e.g. data/demo/abdev/GDPa1_demo.csv")
    parser.add_argument("--heldout-out", help="also write 80 synthetic heldout sequences here")
    parser.add_argument("--seed", type=int, default=DEMO_SEED, help="default: %(default)s")
    args = parser.parse_args(argv)
    write_demo(args.out, args.heldout_out, args.seed)
    print(f"wrote synthetic GDPa1-demo to {args.out}"
          + (f" and {args.heldout_out}" if args.heldout_out else ""))


if __name__ == "__main__":
    main()
