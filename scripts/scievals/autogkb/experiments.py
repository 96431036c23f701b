"""autogkb's side of the experiment dimensions (:mod:`scievals.common.experiments`).

``consensus(parsed_list)``: k parsed annotation lists of one article -> one list, scored
like any reply.

- An annotation's identity (its *key*) is its variant, gene and drug(s) and its three
  controlled-vocabulary fields (phenotype category, association, direction of effect), each
  normalised as the scorer normalises values (:func:`scievals.autogkb.metrics.normalise`):
  the finding itself, whatever free words a sample chose for its phenotype, alleles and
  comparison group (two findings on one variant and drug, say efficacy and toxicity, stay
  two).
- An annotation is kept when more than half of the k samples hold its key (an unparsed
  sample counts in k and holds none; a key repeated within one sample counts once).
- Of the annotations sharing a kept key, the one whose ten normalised fields most samples
  wrote wins (the free-text fields are voted as one); ties go to the one met first reading
  the samples in order (sample 0 first), so the same samples always give the same list.
  Kept annotations come in the order their keys were first met.

``sample_keys(parsed)``: the annotation keys of one list, for the samples' agreement.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from scievals.autogkb.metrics import FIELDS, normalise

KEY_FIELDS = ("Variant/Haplotypes", "Gene", "Drug(s)", "Phenotype Category",
              "Is/Is Not associated", "Direction of effect")


def annotation_key(annotation: Mapping) -> tuple[str, ...]:
    return tuple(normalise(annotation.get(f)) for f in KEY_FIELDS)


def sample_keys(parsed: Sequence[Mapping] | None) -> frozenset[tuple[str, ...]]:
    """The keys of one parsed annotation list (empty for a reply that did not parse)."""
    return frozenset(annotation_key(a) for a in parsed or ())


def consensus(parsed_list: Sequence[Sequence[Mapping] | None]) -> list[dict]:
    """The majority annotation list of ``parsed_list`` (see the module docstring); empty when
    no key is held by more than half of the samples."""
    k = len(parsed_list)
    holders = Counter(key for parsed in parsed_list for key in sample_keys(parsed))
    # per kept key: full normalised row -> (samples writing it, first met, the annotation)
    rows: dict[tuple, dict[tuple, list]] = {}
    for parsed in parsed_list:
        written: set[tuple] = set()
        for annotation in parsed or ():
            key = annotation_key(annotation)
            if 2 * holders[key] <= k:
                continue
            row = tuple(normalise(annotation.get(f)) for f in FIELDS)
            entry = rows.setdefault(key, {}).setdefault(row, [0, annotation])
            if (key, row) not in written:  # one vote per sample
                written.add((key, row))
                entry[0] += 1
    # max() keeps the first of equal counts: dicts hold rows in the order first met
    return [dict(max(candidates.values(), key=lambda e: e[0])[1])
            for candidates in rows.values()]
