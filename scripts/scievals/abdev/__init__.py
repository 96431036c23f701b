"""abdev: the Ginkgo antibody developability benchmark (GDPa1).

Models predict five assays (HIC, Tm2, Titer, PR_CHO, AC-SINS_pH7.4) from VH/VL
sequences; predictions are scored with Spearman correlation and top-10 % recall
per cross-validation fold, exactly as the reference ``abdev_core`` does
(``metrics.reference_rows``), plus bootstrap CIs and a tie-robust recall
(``metrics.extended_table``). ``score`` is the score step (tables + provenance).
"""
