"""`text`, `keyword` and Python-era `regex` graders (specs/waza.md §6.2).

Expected scores are check counts done by hand: "score = passed/total (1.0 with
no checks) and passed = no failures" (§6 preamble).
"""

from __future__ import annotations

import pytest
from scievals.waza.graders.base import GraderConfigError, GraderContext
from scievals.waza.graders.registry import grade


def ctx(output: str) -> GraderContext:
    return GraderContext(output=output)


def test_text_contains_is_case_insensitive_and_cs_variants_are_not():
    # §6.2: "`contains`/`not_contains` lowercase both sides; `contains_cs`/`not_contains_cs` are
    # case-sensitive". Output "Hello World": contains HELLO ok, contains_cs "hello" fails,
    # not_contains_cs "hello" passes (absent in exact case) -> 2 of 3 checks.
    r = grade("text", {"contains": ["HELLO"], "contains_cs": ["hello"],
                       "not_contains_cs": ["hello"]}, ctx("Hello World"))
    assert r.score == pytest.approx(2 / 3)
    assert r.passed is False
    assert r.feedback == "Missing expected substring (case-sensitive): hello"


def test_text_all_pass_feedback():
    r = grade("text", {"contains": ["world"], "not_contains": ["error"]}, ctx("Hello World"))
    assert (r.score, r.passed, r.feedback) == (1.0, True, "All text checks passed")


def test_text_no_checks_scores_one():
    # §6: "score = passed/total (1.0 with no checks)".
    r = grade("text", {}, ctx("anything"))
    assert (r.score, r.passed) == (1.0, True)


def test_text_failures_joined_with_semicolon_space():
    # §6.2: "`; `-joined `Missing expected substring: x`, `Found forbidden pattern: p`".
    r = grade("text", {"contains": ["x"], "regex_not_match": ["W.rld"]}, ctx("Hello World"))
    assert r.feedback == "Missing expected substring: x; Found forbidden pattern: W.rld"
    assert r.score == 0.0


def test_text_regex_is_case_sensitive_unless_inline_flag():
    # §6.2: "regex_match ... case-sensitive unless `(?i)`".
    assert grade("text", {"regex_match": ["hello"]}, ctx("HELLO")).passed is False
    assert grade("text", {"regex_match": ["(?i)hello"]}, ctx("HELLO")).passed is True


def test_text_regex_is_unanchored():
    assert grade("text", {"regex_match": ["orl"]}, ctx("Hello World")).score == 1.0


def test_text_re2_accepts_inline_flag_mid_pattern():
    # §6.2: "RE2 ... accepts `(?i)` anywhere; Python 3.11 `re` rejects a global `(?i)` that is
    # not at the start". "abc" then case-insensitive "DEF" matches "abcdef".
    assert grade("text", {"regex_match": ["abc(?i)DEF"]}, ctx("xx abcdef")).passed is True


def test_text_invalid_regex_is_a_failed_check_not_an_error():
    # §6.2: "An invalid regex is a *failed check* (`Invalid regex_match pattern "<p>": <err>`)".
    # RE2 has no lookarounds: (?=x) is invalid. 1 of 2 checks passes.
    r = grade("text", {"regex_match": ["(?=x)"], "contains": ["a"]}, ctx("a"))
    assert r.score == 0.5
    assert r.feedback.startswith('Invalid regex_match pattern "(?=x)": ')


def test_text_backreference_is_invalid_in_re2():
    r = grade("text", {"regex_not_match": [r"(a)\1"]}, ctx("aa"))
    assert r.passed is False
    assert r.feedback.startswith(r'Invalid regex_not_match pattern "(a)\\1": ')


def test_text_unknown_key_is_a_config_error():
    with pytest.raises(GraderConfigError, match="key regex"):
        grade("text", {"regex": ["x"]}, ctx(""))


def test_keyword_case_insensitive_with_alias():
    # §6.2: "Removed Go `keyword`: `must_contain` (alias `keywords`)/`must_not_contain`,
    # case-insensitive". 3 checks: AZURE ok, bicep missing, Error forbidden but present.
    r = grade("keyword", {"must_contain": ["AZURE"], "keywords": ["bicep"],
                          "must_not_contain": ["Error"]}, ctx("azure deploy error"))
    assert r.score == pytest.approx(1 / 3)
    assert r.feedback == "Missing expected keyword: bicep; Found forbidden keyword: Error"


def test_keyword_all_pass():
    r = grade("keyword", {"keywords": ["deploy"]}, ctx("Deploy now"))
    assert (r.score, r.passed, r.feedback) == (1.0, True, "All keyword checks passed")


def test_legacy_regex_is_case_insensitive():
    # §6.2: "Python-era `regex`: `re.search(..., re.IGNORECASE)`, i.e. case-insensitive".
    r = grade("regex", {"must_match": ["RECURSION"], "must_not_match": ["todo"]},
              ctx("uses recursion. TODO"))
    assert r.score == 0.5
    assert r.feedback == "Found forbidden pattern: todo"


def test_legacy_regex_all_matched_feedback():
    r = grade("regex", {"must_match": [r"o\(log n\)"]}, ctx("runs in O(log n)"))
    assert (r.score, r.passed, r.feedback) == (1.0, True, "All patterns matched")


def test_invalid_must_match_feedback_reads_as_waza():
    # waza's regex grader test "invalid must_match pattern reports failure": feedback has
    # `Invalid must_match pattern "[invalid"`, and Go's regexp error text
    # (error parsing regexp: missing closing ]: `[invalid`)
    r = grade("regex", {"must_match": ["[invalid"]}, GraderContext(output="anything"))
    assert r.passed is False
    assert r.feedback == ('Invalid must_match pattern "[invalid": error parsing regexp: '
                          "missing closing ]: `[invalid`")
    # the pattern as written, not with the case-insensitive prefix: Go's whole-expression
    # text for a missing paren
    r = grade("regex", {"must_match": ["(abc"]}, GraderContext(output="anything"))
    assert r.feedback.endswith("missing closing ): `(abc`")
