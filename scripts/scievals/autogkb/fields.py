"""The annotation schema models answer in: the ten scored ClinPGx fields and their values.

Weights live with the scorer (:mod:`scievals.autogkb.metrics`); this module only names the
fields, the allowed values of the categorical ones and the key spellings a reply may use.
"""

from __future__ import annotations

import re

from scievals.autogkb.metrics import FIELDS

# ClinPGx's controlled values (var_pheno_ann.tsv); null is allowed everywhere.
ALLOWED_VALUES: dict[str, tuple[str, ...]] = {
    "Phenotype Category": ("Efficacy", "Toxicity", "Dosage", "Metabolism/PK", "PD", "Other"),
    "Is/Is Not associated": ("Associated with", "Not associated with"),
    "Direction of effect": ("increased", "decreased"),
    "When treated with/exposed to/when assayed with": (
        "when treated with", "when exposed to", "when assayed with", "due to"),
}

FIELD_HELP: dict[str, str] = {
    "Variant/Haplotypes": "rsID, star alleles or HLA allele as named in ClinPGx, e.g. "
                          "\"rs4149056\", \"CYP2C9*1, CYP2C9*2, CYP2C9*3\", \"HLA-B*15:02\"",
    "Gene": "HGNC gene symbol, e.g. \"SLCO1B1\"",
    "Drug(s)": "drug name(s) in lower case, comma-separated, e.g. \"simvastatin\"",
    "Phenotype Category": "one of the allowed values",
    "Alleles": "the allele(s) or genotype(s) the finding is about, e.g. \"CC + CT\", \"*15:02\"",
    "Is/Is Not associated": "one of the allowed values",
    "Direction of effect": "\"increased\", \"decreased\" or null when no direction is stated",
    "Phenotype": "prefix and term, e.g. \"Side Effect:Myopathy\", \"Efficacy:Overall survival\", "
                 "\"Disease:Maculopapular Exanthema\"",
    "When treated with/exposed to/when assayed with": "one of the allowed values",
    "Comparison Allele(s) or Genotype(s)": "the comparison group, e.g. \"TT\", \"*1/*1\", or null",
}


def squash(key: str) -> str:
    """A key reduced to its letters and digits, lower case: the form spellings are matched in."""
    return re.sub(r"[^a-z0-9]", "", key.lower())


# Squashed spelling -> field. Every field's own squashed name, plus short forms that name
# exactly one field; anything else is left unmapped (and reported).
KEY_ALIASES: dict[str, str] = {squash(f): f for f in FIELDS}
KEY_ALIASES.update({
    "variant": "Variant/Haplotypes", "variants": "Variant/Haplotypes",
    "haplotype": "Variant/Haplotypes", "haplotypes": "Variant/Haplotypes",
    "varianthaplotype": "Variant/Haplotypes", "genes": "Gene",
    "drug": "Drug(s)", "drugs": "Drug(s)",
    "phenotypecategory": "Phenotype Category", "category": "Phenotype Category",
    "allele": "Alleles", "isisnotassociated": "Is/Is Not associated",
    "isnotassociated": "Is/Is Not associated", "association": "Is/Is Not associated",
    "associated": "Is/Is Not associated", "direction": "Direction of effect",
    "directionofeffect": "Direction of effect",
    "whentreatedwith": "When treated with/exposed to/when assayed with",
    "whentreatedwithexposedtowhenassayedwith": "When treated with/exposed to/when assayed with",
    "comparisonalleles": "Comparison Allele(s) or Genotype(s)",
    "comparisonallelesorgenotypes": "Comparison Allele(s) or Genotype(s)",
    "comparisonallele": "Comparison Allele(s) or Genotype(s)",
    "comparisongenotype": "Comparison Allele(s) or Genotype(s)",
})
