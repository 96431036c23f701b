"""The autogkb benchmark's experiment functions (common/experiments.py, DESIGN round 6):
:func:`units` (confidence and calibration), :func:`consensus` and :func:`sample_keys` (k
samples) and :func:`feedback` (refinement turns).

:func:`units`: every predicted annotation is one unit. It is correct when the benchmark's
one-to-one matching (:func:`scievals.autogkb.metrics.evaluate`, pairs whose weighted field
similarity reaches the threshold, 0.7 by default) pairs it with a curated annotation, so the
share of correct units is the benchmark's ``precision``. A copy of an annotation (the same ten
normalised fields) takes part in the matching once: the copy is a wrong unit, as precision
counts it. Its key is its ten normalised fields joined, the same across samples of an article.
Worked example: docs/autogkb.md, "Confidence and calibration".

:func:`feedback` writes the follow-up user turn of a refinement turn from the parsed
annotations (or the parser's message) and the article's *inputs* - its id, title and the text
the prompt showed - never its curated annotations: :func:`item_inputs` copies only those parts.
Checks:

- the reply did not parse: the parser's message;
- schema violations: each annotation against the reply schema the prompt's request carries
  (:data:`scievals.autogkb.prompts.REPLY_SCHEMA`, with jsonschema): unknown keys, values that
  are not text or null;
- values outside the vocabulary the prompt allows (:data:`scievals.autogkb.fields.ALLOWED_VALUES`);
- grounding: variant ids (rsIDs, star alleles such as ``CYP2C9*3`` or ``HLA-B*15:02``) and
  gene symbols that do not occur in the article text (case-insensitive, whole words; a star
  allele is also found when the text writes its ``*3`` part).

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

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator

from scievals.autogkb.fields import ALLOWED_VALUES
from scievals.autogkb.metrics import (
    DEFAULT_THRESHOLD,
    FIELDS,
    Evaluation,
    evaluate,
    normalise,
    normalised_rows,
)
from scievals.autogkb.prompts import REPLY_SCHEMA
from scievals.common.experiments import Unit, stated_confidence

KEY_SEPARATOR = " | "
MAX_LINES = 20  # a follow-up names at most this many problems (and says how many more)
VARIANT = "Variant/Haplotypes"
GENE = "Gene"
_ITEM = Draft202012Validator(REPLY_SCHEMA["schema"]["properties"]["annotations"]["items"])
_RSID = re.compile(r"\brs\d+\b", re.IGNORECASE)
# a star allele with its gene (CYP2D6*4, HLA-B*15:02, NUDT15*3) or alone (*4)
_STAR = re.compile(r"(?:\b[A-Z][A-Z0-9-]*)?\*\d+[A-Z0-9:]*", re.IGNORECASE)
_SPLIT = re.compile(r"[,;/]|\band\b")
KEY_FIELDS = ("Variant/Haplotypes", "Gene", "Drug(s)", "Phenotype Category",
              "Is/Is Not associated", "Direction of effect")


def _annotations(parsed: Any) -> list[dict]:
    """The annotations of a parser's answer: a ParseResult (its ``annotations``) or the list."""
    if parsed is None:
        return []
    if isinstance(parsed, list):
        return parsed
    return list(getattr(parsed, "annotations", None) or [])


def unit_key(annotation: dict) -> str:
    """An annotation's identity: its ten normalised fields (metrics.normalise) joined."""
    return KEY_SEPARATOR.join(normalised_rows([annotation])[0])


def units(parsed: Any, item: dict, threshold: float = DEFAULT_THRESHOLD) -> list[Unit]:
    """One :class:`Unit` per predicted annotation, in the reply's order; ``item`` is the
    article with its curated ``truth`` list."""
    annotations = _annotations(parsed)
    if not annotations:
        return []
    return matched_units(annotations, evaluate(annotations, item.get("truth") or [], threshold))


def matched_units(annotations: list[dict], evaluation: Evaluation) -> list[Unit]:
    """:func:`units` from the annotations' evaluation already computed (the score step's)."""
    matched = {i for i, _j, _s in evaluation.pairs}
    return [Unit(unit_key(a), i in matched, stated_confidence(a.get("confidence")))
            for i, a in enumerate(annotations)]


# --- refinement feedback ---------------------------------------------------------------------

@dataclass(frozen=True)
class Inputs:
    """What the model saw of one article: its id, title and text."""

    case_id: str
    title: str
    text: str


def item_inputs(case: dict) -> Inputs:
    """The model-facing part of an article case (what :mod:`scievals.autogkb.prompts` shows)."""
    return Inputs(str(case.get("case_id", "")), str(case.get("title") or ""),
                  str(case.get("text") or ""))


def _occurs(token: str, text: str) -> bool:
    """``token`` as a whole word of ``text``, ignoring case."""
    return re.search(r"(?<![A-Za-z0-9])" + re.escape(token) + r"(?![A-Za-z0-9])", text,
                     re.IGNORECASE) is not None


def variant_ids(value: str) -> list[str]:
    """The rsIDs and star alleles named in a variant field."""
    return list(dict.fromkeys([*_RSID.findall(value), *_STAR.findall(value)]))


def _grounded_variant(token: str, text: str) -> bool:
    if _occurs(token, text):
        return True
    star = token[token.index("*"):] if "*" in token else None
    return star is not None and re.search(re.escape(star) + r"(?![0-9])", text) is not None


def _schema_problems(i: int, item: dict) -> list[str]:
    return [f"annotation {i}: {error.message}" if not error.absolute_path else
            f"annotation {i} field {'.'.join(map(str, error.absolute_path))!r}: {error.message}"
            for error in sorted(_ITEM.iter_errors(item), key=lambda e: list(e.absolute_path))]


def _vocabulary_problems(i: int, item: dict) -> list[str]:
    return [f"annotation {i} field {field!r}: {item[field]!r} is not one of the allowed values "
            f"({', '.join(allowed)}, or null)"
            for field, allowed in ALLOWED_VALUES.items()
            if isinstance(item.get(field), str) and item[field] not in allowed]


def _grounding_problems(i: int, item: dict, text: str) -> list[str]:
    lines = []
    variant = item.get(VARIANT)
    if isinstance(variant, str):
        lines += [f"annotation {i}: variant {v!r} does not occur in the article text"
                  for v in variant_ids(variant) if not _grounded_variant(v, text)]
    gene = item.get(GENE)
    if isinstance(gene, str):
        symbols = [g.strip() for g in _SPLIT.split(gene) if g.strip()]
        lines += [f"annotation {i}: gene {g!r} does not occur in the article text"
                  for g in symbols if not _occurs(g, text)]
    return lines


def feedback(parsed_or_error: list[dict] | str, inputs: Inputs) -> str | None:
    """The follow-up to one reply: ``parsed_or_error`` is the parsed annotation list, or the
    parser's message when the reply did not parse; None when the checks find nothing."""
    if isinstance(parsed_or_error, str):
        return ("Your reply could not be read as a list of annotations: "
                f"{parsed_or_error}. Give the whole answer as the JSON list asked for.")
    text = f"{inputs.title}\n{inputs.text}"
    lines: list[str] = []
    for i, item in enumerate(parsed_or_error, 1):
        if not isinstance(item, dict):
            lines.append(f"annotation {i} is not a JSON object")
            continue
        lines += (_schema_problems(i, item) + _vocabulary_problems(i, item)
                  + _grounding_problems(i, item, text))
    if not lines:
        return None
    shown = [f"- {line}" for line in lines[:MAX_LINES]]
    if len(lines) > MAX_LINES:
        shown.append(f"- ... and {len(lines) - MAX_LINES} more")
    # grounding is a hint, not a verdict: a curated text may not name a variant the article
    # reports (docs/experiment-dimensions.md), so the model is asked to check, not to delete
    return ("Checked against the article text and the answer format, your annotations have "
            "these problems:\n" + "\n".join(shown)
            + "\n\nKeep only what the article supports and give the whole corrected list as "
            "JSON in the same format.")


# --- k samples: consensus and agreement -------------------------------------------------------

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
