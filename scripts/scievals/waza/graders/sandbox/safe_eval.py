"""Evaluate untrusted ``code``-grader assertions safely.

waza's Go tool runs each assertion with ``eval(a, {"__builtins__": {}}, ctx)``,
which is no sandbox (``().__class__.__mro__[1].__subclasses__()`` reaches any
class). Here an assertion must first pass an allow-list of expression syntax
(:func:`refusal`): no dunder names or attributes, only listed attribute names
(string, dict, list, ``re`` and match methods; never ``format``), no lambdas,
walrus, star-arguments or huge literal exponents. Accepted assertions are then
evaluated, with the same ``eval`` call as waza so results and error texts
match, in one long-lived worker process (``_assertion_worker.py``: isolated
interpreter, no file writes, capped memory) with a time limit per assertion,
one round trip per graded run. A worker that overruns is killed and replaced.
"""

from __future__ import annotations

import ast
import atexit
import json
import os
import select
import subprocess
import sys
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

ASSERTION_TIMEOUT_S = 5.0
BATCH_ITEMS = 256  # graded runs per worker request in evaluate_many
_WORKER = Path(__file__).with_name("_assertion_worker.py")

_STR_METHODS = (
    "capitalize casefold center count endswith expandtabs find index isalnum isalpha isascii "
    "isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle isupper join "
    "ljust lower lstrip partition removeprefix removesuffix replace rfind rindex rjust rpartition "
    "rsplit rstrip split splitlines startswith strip swapcase title upper zfill"
)
_CONTAINER_METHODS = "get keys values items copy"
_RE_NAMES = (
    "search match fullmatch findall finditer sub subn escape compile IGNORECASE I "
    "MULTILINE M DOTALL S VERBOSE X ASCII A UNICODE U"
)
_MATCH_METHODS = "group groups groupdict start end span pattern flags"
ALLOWED_ATTRIBUTES = frozenset(
    f"{_STR_METHODS} {_CONTAINER_METHODS} {_RE_NAMES} {_MATCH_METHODS}".split()
)

_ALLOWED_NODES = (
    ast.Expression,
    ast.BoolOp,
    ast.And,
    ast.Or,
    ast.BinOp,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.FloorDiv,
    ast.Mod,
    ast.Pow,
    ast.LShift,
    ast.RShift,
    ast.BitOr,
    ast.BitXor,
    ast.BitAnd,
    ast.UnaryOp,
    ast.Not,
    ast.USub,
    ast.UAdd,
    ast.Invert,
    ast.Compare,
    ast.Eq,
    ast.NotEq,
    ast.Lt,
    ast.LtE,
    ast.Gt,
    ast.GtE,
    ast.In,
    ast.NotIn,
    ast.Is,
    ast.IsNot,
    ast.IfExp,
    ast.Call,
    ast.keyword,
    ast.Attribute,
    ast.Subscript,
    ast.Slice,
    ast.Name,
    ast.Load,
    ast.Store,
    ast.Constant,
    ast.List,
    ast.Tuple,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.comprehension,
    ast.JoinedStr,
    ast.FormattedValue,
)
# Builtins waza's namespace does not offer anyway; named so the refusal is explicit.
_BLOCKED_NAMES = frozenset(
    [
        "open",
        "eval",
        "exec",
        "compile",
        "getattr",
        "setattr",
        "delattr",
        "globals",
        "locals",
        "vars",
        "type",
        "object",
        "input",
        "breakpoint",
        "help",
        "memoryview",
        "super",
        "classmethod",
        "staticmethod",
        "property",
        "exit",
        "quit",
    ]
)
_MAX_SHIFT_OR_EXPONENT = 1000
_MAX_LENGTH = 10_000


class Refused(Exception):
    """The assertion uses syntax outside the allow-list."""


def _parse(assertion: str) -> ast.Expression:
    """``ast.parse`` in eval mode, asked again on a spurious SystemError: Python 3.11 keeps
    the AST constructor's recursion count in state all threads share (CPython gh-106905,
    fixed in later releases), so a parse in another thread (a grading thread of a parallel
    suite, or any thread formatting a traceback, which 3.11 does with ast.parse) can make
    this one fail with "AST constructor recursion depth mismatch"."""
    for attempt in range(_PARSE_ATTEMPTS):
        try:
            return ast.parse(assertion, filename="<string>", mode="eval")
        except SystemError:
            if attempt == _PARSE_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


_PARSE_ATTEMPTS = 3


@lru_cache(maxsize=8192)
def refusal(assertion: str) -> str | None:
    """Why ``assertion`` may not run (a feedback string), or None when it may.

    A syntax error is reported with Python's own message, as waza's wrapper
    would report it.
    """
    if len(assertion) > _MAX_LENGTH:
        return f"refused: assertion longer than {_MAX_LENGTH} characters"
    try:
        tree = _parse(assertion)
    except SyntaxError as exc:
        return str(exc)
    except ValueError as exc:  # e.g. a NUL byte
        return f"refused: {exc}"
    except (RecursionError, MemoryError):
        return "refused: the expression is nested too deeply"
    try:
        for node in ast.walk(tree):
            _check_node(node)
    except Refused as exc:
        return f"refused: {exc}"
    return None


def _check_node(node: ast.AST) -> None:
    if not isinstance(node, _ALLOWED_NODES):
        raise Refused(f"{_describe(node)} is not allowed in an assertion")
    if isinstance(node, ast.Name) and node.id.startswith("__"):
        raise Refused(f"name {node.id!r} is not allowed (dunder names are blocked)")
    if isinstance(node, ast.Name) and node.id in _BLOCKED_NAMES:
        raise Refused(f"name {node.id!r} is not available in assertions")
    if isinstance(node, ast.Attribute):
        if node.attr.startswith("_"):
            raise Refused(
                f"attribute {node.attr!r} is not allowed (private and dunder "
                "attributes are blocked)"
            )
        if node.attr not in ALLOWED_ATTRIBUTES:
            raise Refused(
                f"attribute {node.attr!r} is not allowed (allowed: string, dict, "
                "list, re and match methods)"
            )
    if isinstance(node, ast.Call):
        if not isinstance(node.func, (ast.Name, ast.Attribute)):
            raise Refused("only named functions and methods may be called")
        if any(k.arg is None for k in node.keywords):
            raise Refused("**keyword unpacking is not allowed")
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Pow, ast.LShift)):
        bound = _literal_number(node.right)
        if bound is None or abs(bound) > _MAX_SHIFT_OR_EXPONENT:
            op = "**" if isinstance(node.op, ast.Pow) else "<<"
            raise Refused(
                f"the right side of {op} must be a number literal of at most "
                f"{_MAX_SHIFT_OR_EXPONENT} (huge powers can exhaust the machine)"
            )
    if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
        for part in ast.walk(node.format_spec):
            if isinstance(part, ast.FormattedValue):
                raise Refused("nested f-string format specs are not allowed")


def _literal_number(node: ast.AST) -> float | None:
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return sign * node.value
    return None


def _describe(node: ast.AST) -> str:
    names = {
        ast.Lambda: "lambda",
        ast.NamedExpr: "':=' (walrus)",
        ast.Starred: "'*' unpacking",
        ast.Await: "await",
        ast.Yield: "yield",
        ast.YieldFrom: "yield from",
        ast.MatMult: "'@'",
    }
    return names.get(type(node), type(node).__name__)


class AssertionEvaluator:
    """One reusable worker process that evaluates assertions against a context.

    Thread-safe (one request at a time). ``evaluate`` returns one string per
    assertion: ``""`` passed, ``"fail"`` false, anything else an error text.
    """

    def __init__(self, timeout_s: float = ASSERTION_TIMEOUT_S) -> None:
        self.timeout_s = timeout_s
        self._proc: subprocess.Popen | None = None
        self._buffer = b""
        self._lock = threading.Lock()

    def evaluate(self, context: dict[str, Any], assertions: list[str]) -> list[str]:
        """One string per assertion: ``""`` passed, ``"fail"`` false, else an error text."""
        return self.evaluate_many([(context, assertions)])[0]

    def evaluate_many(self, items: list[tuple[dict[str, Any], list[str]]]) -> list[list[str]]:
        """:meth:`evaluate` for many (context, assertions) pairs, in few round trips."""
        results: list[list[str | None]] = [[refusal(a) for a in asserts] for _, asserts in items]
        pending = [(k, [i for i, r in enumerate(res) if r is None])
                   for k, res in enumerate(results)]
        pending = [(k, todo) for k, todo in pending if todo]
        for start in range(0, len(pending), BATCH_ITEMS):
            chunk = pending[start:start + BATCH_ITEMS]
            requests = [(items[k][0], [items[k][1][i] for i in todo]) for k, todo in chunk]
            with self._lock:
                answers = self._run(requests)
            for (k, todo), answer in zip(chunk, answers, strict=True):
                for i, result in zip(todo, answer, strict=True):
                    results[k][i] = result
        return [[r if r is not None else "" for r in res] for res in results]

    def _run(self, requests: list[tuple[dict[str, Any], list[str]]]) -> list[list[str]]:
        """One round trip; the worker's alarm enforces each assertion's time limit.

        An assertion stuck where Python checks no signals (inside C code), or one
        that kills the worker, spoils its whole request: the worker is replaced
        and the request split until only the culprit fails.
        """
        count = sum(len(assertions) for _, assertions in requests)
        reply = self._request(requests, self.timeout_s * count + 1.0)
        if not isinstance(reply, str):
            return reply
        if count == 1:
            return [[reply]]
        if len(requests) > 1:
            return [self._run([one])[0] for one in requests]
        context, assertions = requests[0]
        return [[self._run([(context, [a])])[0][0] for a in assertions]]

    def _request(self, requests: list[tuple[dict[str, Any], list[str]]],
                 deadline_s: float) -> list[list[str]] | str:
        """The worker's answers, or why there are none."""
        proc = self._worker()
        payload = {"items": [{"context": c, "assertions": a} for c, a in requests],
                   "timeout_s": self.timeout_s}
        try:
            proc.stdin.write(json.dumps(payload, default=str).encode() + b"\n")
            proc.stdin.flush()
            line = self._read_line(proc, deadline_s)
        except OSError:
            line = None
        if line is None:
            alive = proc.poll() is None
            self.close()
            return (f"timed out after {self.timeout_s:g} s" if alive
                    else "assertion worker stopped (memory limit exceeded?)")
        return json.loads(line)

    def _read_line(self, proc: subprocess.Popen, within_s: float) -> bytes | None:
        deadline = time.monotonic() + within_s
        fd = proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def _worker(self) -> subprocess.Popen:
        if self._proc is None or self._proc.poll() is not None:
            self._buffer = b""
            # -I: isolated (no user site, no cwd or PYTHONPATH on sys.path); -S: no site.
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", str(_WORKER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={"PYTHONHASHSEED": "0"},
                cwd="/",
                close_fds=True,
            )
        return self._proc

    def close(self) -> None:
        proc, self._proc = self._proc, None
        self._buffer = b""
        if proc is not None:
            proc.kill()
            proc.wait()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()


_shared: AssertionEvaluator | None = None
_shared_lock = threading.Lock()


def shared_evaluator() -> AssertionEvaluator:
    """The process-wide evaluator (its worker starts on first use, stops at exit)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = AssertionEvaluator()
            atexit.register(_shared.close)
        return _shared
