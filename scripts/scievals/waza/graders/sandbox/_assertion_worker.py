"""Assertion worker (run by safe_eval with ``python -I -S``; stdlib only).

Reads one JSON request per line, ``{"items": [{"context": {...}, "assertions":
[...]}, ...], "timeout_s": t}``, and answers with one JSON line: per item a list
with, per assertion, ``""`` when true, ``"fail"`` when false, else the exception
text. An alarm stops
an assertion after ``timeout_s``; one stuck where signals are not checked is
the parent's to kill. The evaluation namespace
is waza's eval wrapper's. The parent has already refused unsafe syntax; this
process adds OS limits: no file writes and capped memory.
"""

import json
import re
import resource
import signal
import sys

MEMORY_LIMIT_BYTES = 512 << 20


def limit() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    try:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    except (ValueError, OSError):  # macOS cannot cap the address space; the time limit holds
        pass
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def namespace(ctx):
    return {
        "output": ctx.get("output") or "",
        "outcome": ctx.get("outcome"),
        "transcript": ctx.get("transcript"),
        "tool_calls": ctx.get("tool_calls"),
        "errors": ctx.get("errors"),
        "duration_ms": ctx.get("duration_ms"),
        "len": len,
        "any": any,
        "all": all,
        "re": re,
        "str": str,
        "int": int,
        "float": float,
        "bool": bool,
        "list": list,
        "dict": dict,
        "True": True,
        "False": False,
    }


class Overran(BaseException):
    """Raised by the alarm; a BaseException so no assertion-level handler sees it."""


def on_alarm(signum, frame):
    raise Overran


def evaluate(assertion, names, timeout_s):
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        return "" if eval(assertion, {"__builtins__": {}}, names) else "fail"
    except Overran:
        return f"timed out after {timeout_s:g} s"
    except Exception as exc:  # noqa: BLE001 - the text is the assertion's result
        # An empty message (MemoryError, ...) must not read as a pass.
        return str(exc) or type(exc).__name__
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def main() -> None:
    limit()
    signal.signal(signal.SIGALRM, on_alarm)
    out = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        timeout_s = request["timeout_s"]
        results = []
        for item in request["items"]:
            names = namespace(item["context"])
            results.append([evaluate(a, names, timeout_s) for a in item["assertions"]])
        out.write(json.dumps(results) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
