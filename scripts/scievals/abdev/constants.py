"""Names fixed by the GDPa1 benchmark (reference ``abdev_core/constants.py``)."""

from __future__ import annotations

# The five scored assays; column names are exact and case-sensitive.
PROPERTY_LIST = ["HIC", "Tm2", "Titer", "PR_CHO", "AC-SINS_pH7.4"]

# Direction of "good": lower-is-better assays are negated before top-10 % recall.
ASSAY_HIGHER_IS_BETTER = {
    "HIC": False,
    "Tm2": True,
    "Titer": True,
    "PR_CHO": False,
    "AC-SINS_pH7.4": False,
}

DATASETS = ["GDPa1", "GDPa1_cross_validation", "heldout_test"]
CV_DATASET = "GDPa1_cross_validation"

DEFAULT_FOLD_COL = "hierarchical_cluster_IgG_isotype_stratified_fold"

# Columns of GDPa1_v1.2_20250814.csv, in file order (spec abdev.md section 8).
GDPA1_COLUMNS = [
    "antibody_id",
    "antibody_name",
    "Titer",
    "Purity",
    "SEC %Monomer",
    "SMAC",
    "HIC",
    "HAC",
    "PR_CHO",
    "PR_Ova",
    "AC-SINS_pH6.0",
    "AC-SINS_pH7.4",
    "Tonset",
    "Tm1",
    "Tm2",
    "hc_subtype",
    "lc_subtype",
    "highest_clinical_trial_asof_feb2025",
    "est_status_asof_feb2025",
    "vh_protein_sequence",
    "hc_protein_sequence",
    "hc_dna_sequence",
    "vl_protein_sequence",
    "lc_protein_sequence",
    "lc_dna_sequence",
    "hierarchical_cluster_fold",
    "random_fold",
    "hierarchical_cluster_IgG_isotype_stratified_fold",
    "light_aligned_aho",
    "heavy_aligned_aho",
]

# Columns of heldout-set-sequences.csv, in file order.
HELDOUT_COLUMNS = [
    "antibody_name",
    "vh_protein_sequence",
    "vl_protein_sequence",
    "heavy_aligned_aho",
    "light_aligned_aho",
    "hc_subtype",
    "lc_subtype",
]

# Dataset names written to source.json and every result table.
REAL_DATASET_NAME = "GDPa1"
DEMO_DATASET_NAME = "GDPa1-demo"

# Column order of the reference's cross-validation result CSV.
REFERENCE_CV_COLUMNS = ["spearman", "top_10_recall", "fold", "dataset", "assay", "model", "split"]
REFERENCE_PLAIN_COLUMNS = ["spearman", "top_10_recall", "dataset", "assay", "model", "fold", "split"]
