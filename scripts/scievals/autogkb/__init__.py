"""autogkb: pharmacogenomic variant-phenotype annotation extraction (ClinPGx / AutoGKB)."""
