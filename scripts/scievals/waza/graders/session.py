"""Graders on what the agent did: ``behavior``, ``action_sequence``,
``skill_invocation``, ``tool_constraint`` and both forms of ``tool_calls``."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

import jsonschema

from scievals.waza.graders.base import (
    GraderConfigError,
    GraderContext,
    GraderOptions,
    GraderResult,
)
from scievals.waza.graders._common import Config, checks_result, go_list, go_quote
from scievals.waza.graders.sandbox.regex import RegexError, compile_re2


class BehaviorGrader:
    """Limits on tool calls, tokens and duration (0 = unset), required/forbidden tools."""

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config(
            "behavior",
            config,
            (
                "max_tool_calls",
                "max_tokens",
                "required_tools",
                "forbidden_tools",
                "max_duration_ms",
            ),
        )
        self.max_tool_calls = cfg.int("max_tool_calls")
        self.max_tokens = cfg.int("max_tokens")
        self.max_duration_ms = cfg.int("max_duration_ms")
        self.required = cfg.strs("required_tools")
        self.forbidden = cfg.strs("forbidden_tools")
        if not (
            self.max_tool_calls
            or self.max_tokens
            or self.max_duration_ms
            or self.required
            or self.forbidden
        ):
            raise GraderConfigError(
                "behavior grader config",
                "must have at least one rule configured",
                "set max_tool_calls, max_tokens, max_duration_ms, "
                "required_tools or forbidden_tools",
            )

    def grade(self, context: GraderContext) -> GraderResult:
        session = context.session
        if session is None:
            return GraderResult(0.0, False, "No session digest available for behavior grading")
        failures = []
        if self.max_tool_calls > 0 and session.tool_call_count > self.max_tool_calls:
            failures.append(
                f"Tool call count {session.tool_call_count} exceeds max allowed "
                f"{self.max_tool_calls}"
            )
        tokens = _tokens(session.usage)
        # With no usage recorded the token check counts and passes (as in Go).
        if self.max_tokens > 0 and tokens is not None and tokens > self.max_tokens:
            failures.append(f"Token usage {tokens} exceeds max allowed {self.max_tokens}")
        used = set(session.tools_used)
        failures += [f"Required tool not used: {t}" for t in self.required if t not in used]
        failures += [f"Forbidden tool was used: {t}" for t in self.forbidden if t in used]
        if self.max_duration_ms > 0 and context.duration_ms > self.max_duration_ms:
            failures.append(
                f"Duration {context.duration_ms}ms exceeds max allowed {self.max_duration_ms}ms"
            )
        total = (
            (self.max_tool_calls > 0)
            + (self.max_tokens > 0)
            + (self.max_duration_ms > 0)
            + len(self.required)
            + len(self.forbidden)
        )
        details = {
            "max_tool_calls": self.max_tool_calls,
            "max_tokens": self.max_tokens,
            "required_tools": self.required,
            "forbidden_tools": self.forbidden,
            "max_duration_ms": self.max_duration_ms,
            "tool_call_count": session.tool_call_count,
            "tools_used": list(session.tools_used),
            "actual_duration": context.duration_ms,
        }
        if tokens is not None:
            details["tokens_total"] = tokens
        return checks_result(failures, total, "All behavior checks passed", details)


def _tokens(usage: Mapping[str, Any] | None) -> int | None:
    if usage is None:
        return None
    return int(usage.get("input_tokens") or 0) + int(usage.get("output_tokens") or 0)


def multiset_f1(expected: list[str], actual: list[str]) -> tuple[float, float, float]:
    """Precision, recall, F1 with TP = Σ min(expected count, actual count)."""
    if not expected and not actual:
        return 1.0, 1.0, 1.0
    want, got = Counter(expected), Counter(actual)
    tp = sum(min(n, got[name]) for name, n in want.items())
    precision = tp / len(actual) if actual else 0.0
    recall = tp / len(expected) if expected else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def is_subsequence(expected: list[str], actual: list[str]) -> bool:
    i = 0
    for name in actual:
        if i < len(expected) and name == expected[i]:
            i += 1
    return i == len(expected)


def shortfalls(expected: list[str], actual: list[str]) -> list[str]:
    """``name (need N, got M)`` for each expected name seen too rarely, in first-seen order."""
    want, got = Counter(expected), Counter(actual)
    return [f"{name} (need {n}, got {got[name]})" for name, n in want.items() if got[name] < n]


def sequence_verdict(how: str, expected: list[str], actual: list[str], noun: str,
                     adjective: str) -> tuple[bool, str]:
    """Whether ``actual`` matches ``expected`` the way ``how`` (exact, in_order,
    any_order) asks, and waza's feedback when it does not."""
    if how == "exact":
        return actual == expected, (
            f"Exact match failed: expected {len(expected)} {noun} {go_list(expected)}, "
            f"got {len(actual)} {noun} {go_list(actual)}")
    if how == "in_order":
        return is_subsequence(expected, actual), (
            f"In-order match failed: not all {adjective} {noun} {go_list(expected)} "
            f"appeared in order within actual {go_list(actual)}")
    missing = shortfalls(expected, actual)
    return not missing, (f"Any-order match failed: missing or insufficient {noun}: "
                         + ", ".join(missing))


_ACTION_MODES = ("exact_match", "in_order_match", "any_order_match")


class ActionSequenceGrader:
    """Tool names used against an expected list; score is always the multiset F1."""

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("action_sequence", config, ("matching_mode", "expected_actions"))
        self.expected = cfg.strs("expected_actions")
        self.mode = cfg.str("matching_mode")
        self.name = options.grader_name if options else "action_sequence"
        if not self.expected:
            raise GraderConfigError(
                "action_sequence grader config: key expected_actions",
                "must have at least one expected_actions entry",
            )
        if self.mode not in _ACTION_MODES:
            raise GraderConfigError(
                "action_sequence grader config: key matching_mode",
                f"invalid matching_mode {json.dumps(self.mode)}",
                "must be exact_match, in_order_match, or any_order_match",
            )

    def grade(self, context: GraderContext) -> GraderResult:
        if context.session is None:
            why = f"action_sequence grader '{self.name}': no session digest available"
            return GraderResult(0.0, False, why)
        actual = list(context.session.tools_used)
        precision, recall, f1 = multiset_f1(self.expected, actual)
        passed, why = sequence_verdict(self.mode.removesuffix("_match"), self.expected, actual,
                                       "actions", "expected")
        return GraderResult(
            f1,
            passed,
            "Action sequence matched" if passed else why,
            {
                "matching_mode": self.mode,
                "expected_actions": self.expected,
                "actual_actions": actual,
                "precision": precision,
                "recall": recall,
                "f1": f1,
            },
        )


_SKILL_MODES = ("exact_match", "in_order", "any_order")


class SkillInvocationGrader:
    """The same algorithm on invoked skill names; extras may be penalised."""

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("skill_invocation", config,
                     ("required_skills", "mode", "allow_extra", "forbidden_skills"))
        self.required = cfg.strs("required_skills")
        self.forbidden = cfg.strs("forbidden_skills")  # current waza (v0.34)
        self.mode = cfg.str("mode")
        self.allow_extra = cfg.bool("allow_extra", True)
        if not self.required and not self.forbidden:
            raise GraderConfigError(
                "skill_invocation grader config: key required_skills",
                "must have at least one required_skills entry",
                "or forbidden_skills",
            )
        if not self.required:  # forbidden-only: mode is not needed
            self.mode = self.mode or "any_order"
        if self.mode not in _SKILL_MODES:
            raise GraderConfigError(
                "skill_invocation grader config: key mode",
                f"invalid mode {json.dumps(self.mode)}",
                "must be exact_match, in_order, or any_order",
            )

    def grade(self, context: GraderContext) -> GraderResult:
        actual = [inv.name for inv in context.skill_invocations]
        invoked = [s for s in dict.fromkeys(actual) if s in self.forbidden]
        if invoked:  # any forbidden invocation: score 0, failed
            return GraderResult(0.0, False, f"Forbidden skills invoked: {', '.join(invoked)}",
                                {"forbidden_skills": self.forbidden, "actual_skills": actual})
        if not self.required:
            return GraderResult(1.0, True, "Forbidden skills were not invoked",
                                {"forbidden_skills": self.forbidden, "actual_skills": actual})
        precision, recall, f1 = multiset_f1(self.required, actual)
        extra = not self.allow_extra and len(actual) > len(self.required)
        score = f1 * (1.0 - 0.6 * (len(actual) - len(self.required)) / len(actual)) if extra else f1
        passed, why = sequence_verdict(self.mode.removesuffix("_match"), self.required, actual,
                                       "skills", "required")
        counts = f"(got {len(actual)}, expected {len(self.required)})"
        if not passed:
            feedback = why + (f"; Extra invocations not allowed {counts}" if extra else "")
        elif extra:
            feedback = f"Skill invocation sequence matched but had extra invocations {counts}"
        else:
            feedback = "Skill invocation sequence matched"
        return GraderResult(
            score,
            passed,
            feedback,
            {
                "mode": self.mode,
                "required_skills": self.required,
                "actual_skills": actual,
                "allow_extra": self.allow_extra,
                "precision": precision,
                "recall": recall,
                "f1": f1,
            },
        )


_SPEC_PATTERNS = (
    ("command_pattern", "command"),
    ("skill_pattern", "skill"),
    ("path_pattern", "path"),
)


class ToolConstraintGrader:
    """Expected/rejected tool calls, matched by case-insensitive unanchored regexes."""

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("tool_constraint", config, ("expect_tools", "reject_tools", "allow_only"))
        self.expect = _tool_specs(cfg, "expect_tools")
        self.reject = _tool_specs(cfg, "reject_tools")
        # current waza: exact tool names, case-insensitive; [] denies every tool
        self.allow_only = ([t.lower() for t in cfg.strs("allow_only")]
                           if "allow_only" in config else None)
        if not self.expect and not self.reject and self.allow_only is None:
            raise GraderConfigError(
                "tool_constraint grader config",
                "must have at least one constraint configured",
                "add expect_tools, reject_tools or allow_only",
            )

    def grade(self, context: GraderContext) -> GraderResult:
        session = context.session
        if session is None:
            return GraderResult(
                0.0, False, "No session digest available for tool constraint grading"
            )
        calls = session.tool_calls
        failures = [
            f"Expected tool not used: {_describe(s)}"
            for s in self.expect
            if not any(_spec_matches(s, c.name, c.arguments) for c in calls)
        ]
        failures += [
            f"Rejected tool was used: {_describe(s)}"
            for s in self.reject
            if any(_spec_matches(s, c.name, c.arguments) for c in calls)
        ]
        total = len(self.expect) + len(self.reject)
        if self.allow_only is not None:  # one check: no call outside the list
            total += 1
            outside = [n for n in dict.fromkeys(c.name for c in calls)
                       if n.lower() not in self.allow_only]
            if outside:
                failures.append(f"Tool not in allow_only: {', '.join(outside)}")
        details: dict[str, Any] = {
            "expect_tools": [_describe(s) for s in self.expect],
            "reject_tools": [_describe(s) for s in self.reject],
            "tools_used": list(session.tools_used),
        }
        if session.usage is not None:
            details["tokens_total"] = _tokens(session.usage)
            details["total_turns"] = session.usage.get("turns", 0)
        return checks_result(failures, total, "All tool constraint checks passed", details)


def _tool_specs(cfg: Config, key: str) -> list[dict[str, Any]]:
    specs = []
    for i, entry in enumerate(cfg.list(key)):
        where = f"tool_constraint grader config: key config.{key}[{i}]"
        if not isinstance(entry, Mapping):
            raise GraderConfigError(
                where,
                "must be a mapping with tool and optional "
                "command_pattern, skill_pattern, path_pattern",
            )
        sub = Config(
            f"tool_constraint {key}[{i}]",
            entry,
            ("tool", "command_pattern", "skill_pattern", "path_pattern", "args"),
        )
        spec = {"tool": sub.str("tool").strip(), **{k: sub.str(k) for k, _ in _SPEC_PATTERNS}}
        args = _arg_matchers(sub.mapping("args") or {}, f"{where}.args")
        if not spec["tool"]:
            raise GraderConfigError(f"{where}.tool", "required non-empty string")
        compiled = []  # (argument or None for the tool name, regex); empty patterns match all
        for field, pattern in spec.items():
            if pattern:
                try:
                    regex = compile_re2("(?i)" + pattern)
                except RegexError as exc:
                    raise GraderConfigError(
                        f"config.{key}[{i}].{field}", f"invalid regex: {exc}"
                    ) from None
                compiled.append((dict(_SPEC_PATTERNS).get(field), regex))
        specs.append({**spec, "compiled": compiled, "args": args})
    return specs


def _spec_matches(spec: dict[str, Any], name: str, arguments: Mapping[str, Any]) -> bool:
    return all(
        regex.search(name if arg is None else _arg_text(arguments.get(arg))) is not None
        for arg, regex in spec["compiled"]
    ) and not _args_reason(spec, arguments)


def _arg_text(value: Any) -> str:
    # Go decodes these arguments into string fields; anything else reads as empty.
    return value if isinstance(value, str) else ""


def _describe(spec: dict[str, str]) -> str:
    qualifiers = [f"{k}: {spec[k]}" for k, _ in _SPEC_PATTERNS if spec[k]]
    return f"{spec['tool']} ({', '.join(qualifiers)})" if qualifiers else spec["tool"]


_LEGACY_TOOL_KEYS = ("required", "forbidden")
_NEW_TOOL_KEYS = ("required_tools", "forbidden_tools", "min_calls", "expect")


def tool_calls_grader(config: Mapping[str, Any], options: GraderOptions | None = None):
    """Pick the form by its keys: ``required``/``forbidden`` are the Python era's,
    ``required_tools``/``forbidden_tools``/``min_calls``/``expect`` the later Go
    tool's; ``max_calls`` alone reads as the later form."""
    legacy = [k for k in _LEGACY_TOOL_KEYS if k in config]
    new = [k for k in _NEW_TOOL_KEYS if k in config]
    if legacy and new:
        raise GraderConfigError(
            f"tool_calls grader config: key {new[0]}",
            f"mixes the Python-era form ({', '.join(legacy)}) with the "
            f"newer form ({', '.join(new)})",
            "use one form",
        )
    return LegacyToolCallsGrader(config) if legacy else ToolCallsGrader(config)


class LegacyToolCallsGrader:
    """Python era: regexes over ``"<tool> <str(args)>"`` lines of ``type: tool_call`` entries."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        cfg = Config("tool_calls", config, ("required", "forbidden", "max_calls"))
        self.required = [_legacy_pattern(cfg, "required", p) for p in cfg.list("required")]
        self.forbidden = [_legacy_pattern(cfg, "forbidden", p) for p in cfg.list("forbidden")]
        self.max_calls = cfg.opt_int("max_calls")

    def grade(self, context: GraderContext) -> GraderResult:
        lines = [
            f"{e.get('tool', '')} {_py_str(e.get('args', ''))}"
            for e in context.transcript
            if isinstance(e, Mapping) and e.get("type") == "tool_call"
        ]
        text = "\n".join(lines)
        failures = []
        for pattern in self.required:
            if not _legacy_search(pattern, text):
                failures.append(f"Missing required tool call pattern: {pattern}")
        for pattern in self.forbidden:
            if _legacy_search(pattern, text):
                failures.append(f"Found forbidden tool call pattern: {pattern}")
        if self.max_calls is not None and len(lines) > self.max_calls:
            failures.append(f"Too many tool calls: {len(lines)} > {self.max_calls}")
        # max_calls: 0 is not counted as a check, yet can fail (Python era, §6.14). The
        # Python era's score then went below 0 when another check failed too; floor it at 0.
        total = len(self.required) + len(self.forbidden) + (1 if self.max_calls else 0)
        score = max(0.0, (total - len(failures)) / total) if total > 0 else 1.0
        return GraderResult(
            score,
            not failures,
            "; ".join(failures) or "Tool calls valid",
            {
                "total_tool_calls": len(lines),
                "required_patterns": self.required,
                "forbidden_patterns": self.forbidden,
                "failures": failures,
            },
        )


def _legacy_pattern(cfg: Config, key: str, entry: Any) -> str:
    if isinstance(entry, Mapping):
        entry = entry.get("pattern", "")
    if not isinstance(entry, str):
        raise GraderConfigError(
            f"tool_calls grader config: key {key}",
            "entries must be regex strings or {pattern: regex}",
        )
    try:
        compile_re2("(?i)" + entry)
    except RegexError as exc:
        raise GraderConfigError(
            f"tool_calls grader config: key {key}", f"invalid regex {entry!r}: {exc}"
        ) from None
    return entry


def _legacy_search(pattern: str, text: str) -> bool:
    return compile_re2("(?i)" + pattern).search(text) is not None


def _py_str(value: Any) -> str:
    """Python's ``str()`` of a decoded JSON value (as the Python-era grader built lines)."""
    return value if isinstance(value, str) else repr(value)


class ToolCallsGrader:
    """Later Go form: exact tool names, call-count bounds and argument expectations."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        cfg = Config(
            "tool_calls",
            config,
            ("required_tools", "forbidden_tools", "min_calls", "max_calls", "expect"),
        )
        self.required = cfg.strs("required_tools")
        self.forbidden = cfg.strs("forbidden_tools")
        self.min_calls = cfg.opt_int("min_calls")
        self.max_calls = cfg.opt_int("max_calls")
        if (
            self.min_calls is not None
            and self.max_calls is not None
            and self.min_calls > self.max_calls
        ):
            raise GraderConfigError(
                "tool_calls grader config: key min_calls",
                f"min_calls {self.min_calls} is greater than max_calls {self.max_calls}",
            )
        self.expect = [_expectation(i, e) for i, e in enumerate(cfg.list("expect"))]

    def grade(self, context: GraderContext) -> GraderResult:
        """Current waza's checks and feedback (specs/waza-current.md §4.2)."""
        session = context.session
        if session is None:
            return GraderResult(0.0, False, "no session data available for tool_calls grading")
        calls = session.tool_calls
        names = {c.name for c in calls}
        failures = [f"required tool {go_quote(t)} was not called" for t in self.required
                    if t not in names]
        failures += [f"forbidden tool {go_quote(t)} was called" for t in self.forbidden
                     if t in names]
        n = len(calls)
        if self.min_calls is not None and n < self.min_calls:
            failures.append(f"expected at least {self.min_calls} tool calls, got {n}")
        if self.max_calls is not None and n > self.max_calls:
            failures.append(f"expected at most {self.max_calls} tool calls, got {n}")
        for spec in self.expect:
            reason = _expect_reason(spec, calls)
            if reason:
                failures.append(f"expectation tool={go_quote(spec['tool'])} not satisfied: "
                                f"{reason}")
        total = (
            len(self.required)
            + len(self.forbidden)
            + len(self.expect)
            + (self.min_calls is not None)
            + (self.max_calls is not None)
        )
        return checks_result(
            failures,
            total,
            "all tool_calls checks passed",
            {
                "required_tools": self.required,
                "forbidden_tools": self.forbidden,
                "min_calls": self.min_calls,
                "max_calls": self.max_calls,
                "expect": [s["label"] for s in self.expect],
                "tool_call_count": n,
            },
        )


def _expect_reason(spec: dict[str, Any], calls: list) -> str:
    """"" when some call matches the name and every argument matcher, else why not (the
    first name-matching call's first failing argument)."""
    reasons = []
    for call in calls:
        if spec["compiled"].search(call.name) is None:
            continue
        reason = _args_reason(spec, call.arguments)
        if not reason:
            return ""
        reasons.append(reason)
    return reasons[0] if reasons else "no call to a matching tool"


def _args_reason(spec: dict[str, Any], arguments: Mapping[str, Any]) -> str:
    for arg, matcher in spec["args"].items():
        if arg not in arguments:
            return f"argument {go_quote(arg)}: not present on tool call"
        kind, want = next(iter(matcher.items()))
        if not _arg_matches((kind, want), arguments[arg]):
            return f"argument {go_quote(arg)}: {kind} did not match"
    return ""


_MATCHERS = ("equals", "regex", "contains", "range", "json_schema")


def _arg_matchers(args: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``args: {name: matcher}``, each exactly one of equals, regex, contains, range,
    json_schema (checked here, as waza's constructor does)."""
    for arg, matcher in args.items():
        at = f"{where}.{arg}"
        if (
            not isinstance(matcher, Mapping)
            or len(matcher) != 1
            or next(iter(matcher)) not in _MATCHERS
        ):
            raise GraderConfigError(at, "must be one matcher", f"one of {', '.join(_MATCHERS)}")
        kind, value = next(iter(matcher.items()))
        if kind == "regex":
            try:
                compile_re2(str(value))
            except RegexError as exc:
                raise GraderConfigError(f"{at}.regex", f"invalid regex: {exc}") from None
        if kind == "range" and not _valid_range(value):
            raise GraderConfigError(f"{at}.range", "must be {gte, lte, gt, lt} numbers "
                                    "or [min, max]")
        if kind == "json_schema":
            try:
                jsonschema.validators.validator_for(value).check_schema(value)
            except (jsonschema.SchemaError, TypeError) as exc:
                raise GraderConfigError(f"{at}.json_schema", f"invalid schema: {exc}") from None
    return dict(args)


def _expectation(i: int, entry: Any) -> dict[str, Any]:
    where = f"tool_calls grader config: key expect[{i}]"
    if not isinstance(entry, Mapping):
        raise GraderConfigError(where, "must be a mapping with tool and optional args")
    sub = Config(f"tool_calls expect[{i}]", entry, ("tool", "args"))
    tool = sub.str("tool")
    if not tool:
        raise GraderConfigError(f"{where}.tool", "required non-empty string")
    try:
        compiled = compile_re2("(?i)" + tool)
    except RegexError as exc:
        raise GraderConfigError(f"{where}.tool", f"invalid regex: {exc}") from None
    args = _arg_matchers(sub.mapping("args") or {}, f"{where}.args")
    label = tool + (f" {json.dumps(args, sort_keys=True)}" if args else "")
    return {"tool": tool, "args": args, "label": label, "compiled": compiled}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _valid_range(value: Any) -> bool:
    """``{gte, lte, gt, lt}`` (current waza's argmatcher), or ``[min, max]`` (inclusive)."""
    if isinstance(value, Mapping):
        return bool(value) and set(value) <= {"gte", "lte", "gt", "lt"} and all(
            _number(v) for v in value.values())
    return isinstance(value, list) and len(value) == 2 and all(_number(v) for v in value)


def _in_range(want: Any, value: float) -> bool:
    if isinstance(want, Mapping):
        return (value >= want.get("gte", -math.inf) and value <= want.get("lte", math.inf)
                and value > want.get("gt", -math.inf) and value < want.get("lt", math.inf))
    return want[0] <= value <= want[1]


def _arg_matches(matcher: tuple[str, Any], value: Any) -> bool:
    kind, want = matcher
    if kind == "equals":
        return value == want
    text = value if isinstance(value, str) else json.dumps(value)
    if kind == "regex":
        return compile_re2(str(want)).search(text) is not None
    if kind == "contains":
        return str(want) in text
    if kind == "range":
        return _number(value) and _in_range(want, value)
    return jsonschema.validators.validator_for(want)(want).is_valid(value)


# The grader types of this family (read by graders.registry).
GRADERS = {
    "behavior": BehaviorGrader,
    "action_sequence": ActionSequenceGrader,
    "skill_invocation": SkillInvocationGrader,
    "tool_constraint": ToolConstraintGrader,
    "tool_calls": tool_calls_grader,
}
