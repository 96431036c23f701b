"""The `code` grader and its sandboxed evaluator (specs/waza.md §6.1).

waza runs ``eval(a, {"__builtins__": {}}, ctx)``; results and error texts here
must be the same for ordinary assertions, while escapes are refused.
"""

from __future__ import annotations

import pytest
from scievals.waza.graders.base import GraderConfigError, GraderContext
from scievals.waza.graders.registry import grade
from scievals.waza.graders.sandbox.safe_eval import AssertionEvaluator, refusal


def ctx(output: str = "Found 2 files", transcript=None, **kw) -> GraderContext:
    return GraderContext.from_dict({"output": output, "transcript": transcript or [], **kw})


def test_all_assertions_pass():
    r = grade("code", {"assertions": ["len(output) > 0", "'file' in output.lower()"]}, ctx())
    assert (r.score, r.passed, r.feedback) == (1.0, True, "All assertions passed")


def test_failure_and_exception_feedback():
    # §6.1: "Feedback `All assertions passed`, or `; `-joined `Failed: <a>` /
    # `Failed: <a>: <err>`". 1 of 3 pass.
    r = grade("code", {"assertions": ["len(output) > 100", "missing_name", "len(output) > 0"]},
              ctx())
    assert r.score == pytest.approx(1 / 3)
    assert r.feedback == ("Failed: len(output) > 100; "
                          "Failed: missing_name: name 'missing_name' is not defined")


def test_no_assertions_passes():
    r = grade("code", {}, ctx())
    assert (r.score, r.passed, r.feedback) == (1.0, True, "No assertions configured")


def test_errors_are_case_sensitive():
    # §6.1: "`errors` = events where `"error" in type` or `"error" in str(content)`
    # (**case-sensitive**)": only the first event counts.
    transcript = [{"type": "tool.error", "content": "x"}, {"type": "msg", "content": "Error!"},
                  {"type": "msg", "content": "no error here"}]
    r = grade("code", {"assertions": ["len(errors) == 2"]}, ctx(transcript=transcript))
    assert r.passed is True


def test_generator_expression_reading_context_names_raises_name_error():
    # §6.1: "Generator expressions that read context names raise NameError (documented)".
    a = "any(output in str(t) for t in transcript)"
    r = grade("code", {"assertions": [a]}, ctx(transcript=[{"type": "x"}]))
    assert r.feedback == f"Failed: {a}: name 'output' is not defined"


def test_list_comprehension_over_transcript_works():
    # An assertion from the legacy azure-deploy suite.
    a = "len([t for t in transcript if t.get('type') == 'tool_call']) >= 0"
    assert grade("code", {"assertions": [a]}, ctx()).passed is True


def test_null_output_reads_as_empty_string():
    r = grade("code", {"assertions": ["output == ''"]}, ctx(output=None))
    assert r.passed is True


def test_tool_calls_duration_and_outcome_are_visible():
    c = ctx(tool_calls=[{"name": "bash"}], duration_ms=1200, outcome={"status": "completed"})
    r = grade("code", {"assertions": ["len(tool_calls) > 0", "duration_ms < 30000",
                                      "outcome.get('status') == 'completed'",
                                      "re.search(r'\\d+ files', output) is not None"]}, c)
    assert (r.score, r.feedback) == (1.0, "All assertions passed")


def test_javascript_and_unknown_languages_are_config_errors():
    # §6.1: "anything else is a constructor error".
    with pytest.raises(GraderConfigError):
        grade("code", {"assertions": ["true"], "language": "ruby"}, ctx())
    with pytest.raises(GraderConfigError):
        grade("code", {"assertions": ["true"], "language": "javascript"}, ctx())


ESCAPES = [
    "().__class__.__mro__[1].__subclasses__()",
    "''.__class__.__base__.__subclasses__()",
    "__import__('os').system('id')",
    "open('/etc/passwd').read()",
    "output.__class__",
    "output.__len__()",
    "tool_calls.__getitem__(0)",
    "re.__dict__",
    "re.enum.sys.modules",
    "re.compile('a').__class__",
    "(lambda: 1)()",
    "[c for c in ().__class__.__bases__]",
    "'{0.__class__}'.format(output)",
    "output.format_map({})",
    "f'{output.__class__}'",
    "10**10**10",
    "2**(10**9)",
    "1 << 10**10",
    "getattr(output, 'upper')",
    "eval('1')",
    "exec('x = 1')",
    "compile('1', '', 'eval')",
    "globals()",
    "vars()",
    "type(output)",
    "object.__subclasses__()",
    "str.mro()",
    "(x := 1)",
    "len(*[output])",
    "dict(**{'a': 1})",
    "__builtins__",
    "breakpoint()",
    "f\"{output:{'>'}{10**9}}\"",
    "(x for x in output).gi_frame.f_back.f_globals",
    "[t for t in transcript].copy.__self__",
    "re.search.__globals__['sys']",
    "re.sre_compile",
    "output.split.__call__(' ')",
]


@pytest.mark.parametrize("assertion", ESCAPES)
def test_escape_is_refused_with_clear_feedback(assertion):
    reason = refusal(assertion)
    assert reason is not None and reason.startswith("refused: ")
    r = grade("code", {"assertions": [assertion]}, ctx())
    assert (r.score, r.passed) == (0.0, False)
    assert r.feedback == f"Failed: {assertion}: {reason}"


@pytest.mark.parametrize("assertion", ["-" * 9000 + "1", "output" + "[0]" * 3000])
def test_deeply_nested_expression_is_refused_not_a_crash(assertion):
    assert refusal(assertion) == "refused: the expression is nested too deeply"


def test_a_spurious_ast_systemerror_is_parsed_again(monkeypatch):
    # CPython 3.11's AST race (gh-106905) raises SystemError from a parse that another
    # thread disturbed: the assertion is parsed again, and judged on its own merits
    import ast

    from scievals.waza.graders.sandbox import safe_eval

    real, calls = ast.parse, []

    def flaky(*args, **kwargs):
        calls.append(args[0])
        if len(calls) == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=144, after=37)")
        return real(*args, **kwargs)

    monkeypatch.setattr(safe_eval.ast, "parse", flaky)
    refusal.cache_clear()
    try:
        assert refusal("len(output) > 0 and 'x' in output") is None
        assert calls == ["len(output) > 0 and 'x' in output"] * 2
        calls.clear()
        assert refusal("__import__('os')").startswith("refused")  # still checked after it
    finally:
        refusal.cache_clear()


def test_memory_bomb_fails_instead_of_exhausting_the_machine():
    # 'a' * 10**9 is a 1 GB string; the worker's memory cap turns it into MemoryError.
    r = grade("code", {"assertions": ["len('a' * 10**9) > 0", "len(output) > 0"]}, ctx())
    assert r.score == 0.5
    assert r.feedback == "Failed: len('a' * 10**9) > 0: MemoryError"


def test_runaway_assertion_times_out_and_the_worker_recovers():
    evaluator = AssertionEvaluator(timeout_s=0.5)
    try:
        slow = "re.search('(a+)+$', 'a' * 40 + 'b')"
        results = evaluator.evaluate({"output": "x"}, [slow, "len(output) == 1"])
        assert results == ["timed out after 0.5 s", ""]
        assert evaluator.evaluate({"output": "yy"}, ["len(output) == 2"]) == [""]
    finally:
        evaluator.close()


def test_worker_is_reused_across_gradings():
    evaluator = AssertionEvaluator()
    try:
        evaluator.evaluate({"output": "a"}, ["True"])
        first = evaluator._proc.pid
        for i in range(20):
            assert evaluator.evaluate({"output": "a" * i}, [f"len(output) == {i}"]) == [""]
        assert evaluator._proc.pid == first
    finally:
        evaluator.close()


def test_syntax_error_text_is_pythons():
    r = grade("code", {"assertions": ["len(output) >"]}, ctx())
    assert r.feedback == "Failed: len(output) >: invalid syntax (<string>, line 1)"


def test_batched_grading_equals_one_by_one_and_isolates_a_runaway():
    from scievals.waza.graders.registry import build, grade_all

    grader = build("code", {"assertions": ["len(output) > 2", "'b' in output"]})
    contexts = [ctx(output=o) for o in ["abc", "a", "bbbb", ""]]
    batched = grade_all(grader, contexts)
    assert [r.to_dict() for r in batched] == [grader.grade(c).to_dict() for c in contexts]
    # Hand-checked: "abc" 2/2, "a" 0/2, "bbbb" 2/2, "" 0/2.
    assert [r.score for r in batched] == [1.0, 0.0, 1.0, 0.0]

    evaluator = AssertionEvaluator(timeout_s=0.5)
    try:
        slow = "re.search('(a+)+$', 'a' * 40 + 'b')"
        got = evaluator.evaluate_many([({"output": "x"}, ["len(output) == 1"]),
                                       ({"output": "y"}, [slow, "output == 'y'"]),
                                       ({"output": "zz"}, ["len(output) == 3"])])
        assert got == [[""], ["timed out after 0.5 s", ""], ["fail"]]
    finally:
        evaluator.close()
