"""A deterministic extractor (no LLM): one annotation per sentence that names a variant.

From each sentence it takes
- variants: rsIDs, star alleles (``CYP2C9*3``, ``*1/*6`` after a gene), HLA alleles
  (``HLA-B*15:02``); the gene from the allele's prefix, else the first gene-like symbol;
- drugs: words of a drug vocabulary (built at curation from annotations of articles outside
  the test set, see :mod:`scievals.autogkb.curate`) plus common drug-name stems;
- alleles: genotypes (``CC + CT``, ``*1/*6``, ``*15:02``) before "compared/as compared to",
  the comparison group after it;
- association (``not associated`` -> "Not associated with"), direction (increased/
  decreased words), category (toxicity words -> Toxicity, response words -> Efficacy) and
  a phenotype from the words after "risk of"/"likelihood of"/"response to".

It stands in for "what surface patterns alone get", not for a curator.
"""

from __future__ import annotations

import re

BASELINE_VERSION = "autogkb-baseline-v1"

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z*(\[])|\n+")
_RSID = re.compile(r"\brs\d{3,}\b")
_HLA = re.compile(r"\b(HLA-[A-Z]{1,4}[0-9]?)\s?(\*\d{2,3}(?::\d{2,3})*)")
_STAR = re.compile(r"\b([A-Z][A-Z0-9]{2,9})\s?(\*\d+[A-Z]?(?:x\d)?)")
_GENE = re.compile(r"\b(?:HLA-[A-Z]{1,4}[0-9]?|[A-Z][A-Z0-9]{1,5}\d[A-Z0-9]{0,4})\b")
_DIPLOTYPE = r"\*\d+[A-Z]?(?::\d{2,3})*(?:/\*\d+[A-Z]?(?::\d{2,3})*)?"
_GENOTYPE = r"(?:[ACGT]{1,3}|del|ins|TA\d)(?:/[ACGT]{1,3})?"
_ALLELE_GROUP = re.compile(
    rf"(?<![\w*])((?:{_DIPLOTYPE}|{_GENOTYPE})(?:\s*\+\s*(?:{_DIPLOTYPE}|{_GENOTYPE}))*)(?![\w*])")
_COMPARED = re.compile(r"\b(?:as )?compared (?:to|with)\b|\bversus\b|\bvs\.?\s", re.IGNORECASE)
_NOT_ASSOCIATED = re.compile(r"\b(?:not|no)\b[^.]{0,40}\b(?:associat|significant|differ)",
                             re.IGNORECASE)
_INCREASED = re.compile(r"\b(?:increased|higher|greater|elevated|more)\b", re.IGNORECASE)
_DECREASED = re.compile(r"\b(?:decreased|lower|reduced|less|fewer)\b", re.IGNORECASE)
_TOXICITY = re.compile(r"\b(?:toxicit\w*|adverse|side effects?|reaction\w*|injury|syndrome|"
                       r"necrolysis|discontinuation|hypersensitivity|myopathy|rash|"
                       r"neutropenia|bleeding|exanthema)\b", re.IGNORECASE)
_EFFICACY = re.compile(r"\b(?:response|efficacy|survival|remission|rejection|clearance)\b",
                       re.IGNORECASE)
_PHENOTYPE = re.compile(r"\b(?:risk of|likelihood of|response to|severity of|odds of)\s+"
                        r"([a-z][a-z -]{2,60}?)(?=\s+(?:when|in|as|due|compared|with|for)\b|[.,;(]|$)",
                        re.IGNORECASE)
_TREATED = re.compile(r"\b(?:treated|exposed) with ([a-z0-9-]+(?:(?:,\s*|\s+and\s+|\s+or\s+)"
                      r"[a-z0-9-]+)*)")
_ASSOCIATION = re.compile(r"\bassociated with\b", re.IGNORECASE)
# Endings that mark most INN drug names (statins, azoles, platins, kinase inhibitors...).
DRUG_STEMS = re.compile(
    r"\b[a-z]{3,}(?:statin|azepine|azole|platin|tinib|mab|vir|cillin|mycin|floxacin|pril|"
    r"sartan|olol|dipine|prazole|oxetine|triptyline|apine|idone|barbital|zepam|azolam|"
    r"fluorouracil|taxel|rubicin|trexate|thioprine|purine|tacrolimus|sporine|olimus|"
    r"nacin|fenac|profen|coxib|gliptin|glitazone|formin|parin|farin|grel|xaban|gatran|"
    r"nitrate|amide|ridone|amine)\b")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def _unique(items) -> list[str]:
    return list(dict.fromkeys(items))


def _variants(sentence: str) -> tuple[list[str], str | None]:
    hla = [gene + allele for gene, allele in _HLA.findall(sentence)]
    stars = [(g, a) for g, a in _STAR.findall(sentence) if not g.startswith("HLA")]
    rsids = _RSID.findall(sentence)
    variants = _unique(hla + [f"{g}{a}" for g, a in stars] + rsids)
    gene = None
    if hla:
        gene = hla[0].split("*")[0]
    elif stars:
        gene = stars[0][0]
    else:
        symbols = [g for g in _GENE.findall(sentence) if not g.startswith("RS")]
        gene = symbols[0] if symbols else None
    return variants, gene


def _drugs(sentence: str, vocabulary: set[str]) -> list[str]:
    low = sentence.lower()
    words = re.findall(r"[a-z][a-z0-9-]+", low)
    found = [" ".join(words[i:i + n]) for n in (3, 2, 1) for i in range(len(words) - n + 1)
             if " ".join(words[i:i + n]) in vocabulary]
    treated = _TREATED.search(low)
    if treated:
        found += [d.strip() for d in re.split(r",|\band\b|\bor\b", treated.group(1)) if d.strip()]
    found += DRUG_STEMS.findall(low)
    return _unique(found)


def _alleles(sentence: str) -> tuple[str | None, str | None]:
    parts = _COMPARED.split(sentence, maxsplit=1)
    before = _ALLELE_GROUP.findall(parts[0])
    after = _ALLELE_GROUP.findall(parts[1]) if len(parts) > 1 else []
    return (before[-1] if before else None), (after[0] if after else None)


def annotate_sentence(sentence: str, vocabulary: set[str],
                      context: tuple[list[str], str | None] = ([], None)) -> dict | None:
    """One annotation from a sentence; an association sentence that names no variant
    ("Genotype TT is associated with ...") borrows the nearest one (``context``)."""
    variants, gene = _variants(sentence)
    if not variants and _ASSOCIATION.search(sentence):
        variants, gene = context
    if not variants:
        return None
    drugs = _drugs(sentence, vocabulary)
    alleles, comparison = _alleles(sentence)
    increased, decreased = _INCREASED.search(sentence), _DECREASED.search(sentence)
    direction = None
    if increased and not decreased:
        direction = "increased"
    elif decreased and not increased:
        direction = "decreased"
    toxicity = _TOXICITY.search(sentence)
    category = "Toxicity" if toxicity else "Efficacy" if _EFFICACY.search(sentence) else None
    term = _PHENOTYPE.search(sentence)
    prefix = "Side Effect" if category == "Toxicity" else "Efficacy"
    phenotype = f"{prefix}:{term.group(1).strip()}" if term else (
        f"Side Effect:{toxicity.group(0)}" if toxicity else None)
    return {
        "Variant/Haplotypes": ", ".join(variants),
        "Gene": gene,
        "Drug(s)": ", ".join(drugs) or None,
        "Phenotype Category": category,
        "Alleles": alleles,
        "Is/Is Not associated": ("Not associated with" if _NOT_ASSOCIATED.search(sentence)
                                 else "Associated with"),
        "Direction of effect": direction,
        "Phenotype": phenotype,
        "When treated with/exposed to/when assayed with": "when treated with" if drugs else None,
        "Comparison Allele(s) or Genotype(s)": comparison,
    }


def extract(text: str, vocabulary: set[str]) -> list[dict]:
    """Annotations of every variant-naming sentence, identical ones once."""
    seen, out = set(), []
    parts = sentences(text)
    found = [_variants(s) for s in parts]
    for k, sentence in enumerate(parts):
        # Nearest variant: the next two sentences (ClinPGx notes follow their sentence),
        # then the previous ones.
        near = [found[i] for i in (k + 1, k + 2, *range(k - 1, -1, -1))
                if 0 <= i < len(parts) and found[i][0]]
        annotation = annotate_sentence(sentence, vocabulary, near[0] if near else ([], None))
        if annotation is None:
            continue
        key = tuple(annotation.values())
        if key not in seen:
            seen.add(key)
            out.append(annotation)
    return out
