"""Replies and user lists -> annotations with the exact field names, or a failure with a reason."""

from __future__ import annotations

import json

from scievals.autogkb.metrics import FIELDS, evaluate
from scievals.autogkb.parser import parse_annotations, parse_reply

ROW = {"Variant/Haplotypes": "rs4149056", "Gene": "SLCO1B1", "Drug(s)": "simvastatin",
       "Phenotype Category": "Toxicity", "Alleles": "CC + CT",
       "Is/Is Not associated": "Associated with", "Direction of effect": "increased",
       "Phenotype": "Side Effect:Myopathy",
       "When treated with/exposed to/when assayed with": "when treated with",
       "Comparison Allele(s) or Genotype(s)": "TT"}


def test_fenced_list_with_prose():
    result = parse_reply("Here you go:\n```json\n" + json.dumps([ROW]) + "\n```\nDone.")
    assert result.ok and result.method == "json"
    assert [{f: a[f] for f in FIELDS} for a in result.annotations] == [ROW]


def test_truncated_reply_is_repaired():
    text = json.dumps([ROW, ROW])[:-30]
    result = parse_reply(text)
    assert result.ok and result.method == "json_repaired"
    assert result.annotations[0]["Gene"] == "SLCO1B1"


def test_snake_case_keys_are_mapped_and_noted():
    snake = {"variant_haplotypes": "rs4149056", "gene": "SLCO1B1", "drugs": "simvastatin",
             "phenotype_category": "Toxicity", "alleles": "CC + CT",
             "is_is_not_associated": "Associated with", "direction_of_effect": "increased",
             "phenotype": "Side Effect:Myopathy",
             "when_treated_with_exposed_to_when_assayed_with": "when treated with",
             "comparison_allele_s_or_genotype_s": "TT"}
    result = parse_annotations([snake])
    assert result.ok
    assert {f: result.annotations[0][f] for f in FIELDS} == ROW
    assert any("'variant_haplotypes' read as 'Variant/Haplotypes'" in w for w in result.warnings)
    # Mapped, it scores 100 against the same curated row (the reference would give 0).
    assert evaluate(result.annotations, [ROW]).score == 100.0


def test_missing_slashes_and_case_are_mapped():
    result = parse_annotations([{"VariantHaplotypes": "rs1", "Is/Is not associated": "x"}])
    assert result.ok
    assert result.annotations[0]["Variant/Haplotypes"] == "rs1"
    assert result.annotations[0]["Is/Is Not associated"] == "x"


def test_ambiguous_keys_are_a_failure():
    result = parse_annotations([{"Drug(s)": "a", "drugs": "b"}])
    assert not result.ok and "both mean 'Drug(s)'" in result.error


def test_not_a_list_is_a_failure_unless_unambiguous():
    assert parse_reply('{"annotations": ' + json.dumps([ROW]) + "}").ok
    single = parse_reply(json.dumps(ROW))
    assert single.ok and len(single.annotations) == 1 and single.warnings
    failed = parse_reply('"just a string"')
    assert not failed.ok and "not a list" in failed.error
    assert not parse_reply("I cannot find any annotation.").ok
    assert not parse_reply("").ok


def test_items_without_any_field_and_bad_types_fail():
    result = parse_annotations([{"foo": 1}])
    assert not result.ok and "none of the ten field names" in result.error
    result = parse_annotations([{"Gene": {"symbol": "X"}}])
    assert not result.ok and "'Gene'" in result.error


def test_lists_are_joined_and_empty_list_is_ok():
    result = parse_annotations([{"Drug(s)": ["a", "b"]}])
    assert result.annotations[0]["Drug(s)"] == "a, b" and result.warnings
    assert parse_reply("[]").ok and parse_reply("[]").annotations == []


def test_values_outside_clinpgx_vocabulary_are_noted_not_dropped():
    result = parse_annotations([dict(ROW, **{"Direction of effect": "up"})])
    assert result.ok and result.annotations[0]["Direction of effect"] == "up"
    assert any("not a ClinPGx value" in w for w in result.warnings)


def test_citations_and_trailing_prose_around_the_list():
    text = "As shown in [1] and [2], the findings are:\n" + json.dumps([ROW]) + "\nHope this helps."
    result = parse_reply(text)
    assert result.ok and result.method == "json" and len(result.annotations) == 1


def test_prompt_names_the_ten_exact_fields_and_allowed_values():
    from scievals.autogkb.fields import ALLOWED_VALUES
    from scievals.autogkb.prompts import EXAMPLE, build_prompt

    case = {"case_id": "PMC1", "title": "T", "text_mode": "evidence", "text": "rs1 is associated."}
    prompt = build_prompt(case)
    assert all(f'"{f}"' in prompt for f in FIELDS)
    assert all(f'"{v}"' in prompt for values in ALLOWED_VALUES.values() for v in values)
    assert "curated evidence sentences" in prompt and "rs1 is associated." in prompt
    # The example parses cleanly and scores 100 against itself.
    parsed = parse_annotations([EXAMPLE])
    assert parsed.ok and not parsed.warnings
    assert evaluate(parsed.annotations, [EXAMPLE]).score == 100.0
