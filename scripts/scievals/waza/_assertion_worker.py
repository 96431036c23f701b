"""Assertion worker (run by safe_eval with ``python -I -S``; stdlib only).

Reads one JSON request per line, ``{"context": {...}, "assertions": [...]}``,
and writes one JSON line per assertion as soon as it is evaluated: ``""`` when
true, ``"fail"`` when false, else the exception text. The evaluation namespace
is waza's eval wrapper's. The parent has already refused unsafe syntax; this
process adds OS limits: no file writes and capped memory.
"""

import json
import re
import resource
import sys

MEMORY_LIMIT_BYTES = 512 << 20


def limit() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
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


def main() -> None:
    limit()
    out = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        names = namespace(request["context"])
        for assertion in request["assertions"]:
            try:
                result = "" if eval(assertion, {"__builtins__": {}}, names) else "fail"
            except Exception as exc:  # noqa: BLE001 - the text is the assertion's result
                # An empty message (MemoryError, ...) must not read as a pass.
                result = str(exc) or type(exc).__name__
            out.write(json.dumps(result) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
