"""A big JSON log read in a stream (ijson, of the interop extra) instead of whole: a
1,000,000-sample inspect_ai ``.json`` log of 199 MB took 1.69 GB parsed at once.

:func:`head` builds every top-level member but the samples array (two passes over the
file, each in constant memory: the first builds the head, :func:`items` then yields one
sample at a time). ijson takes strict JSON only: a file with NaN, Infinity or a number
beyond a double (which Python's json reads) gives None, and the caller reads it whole
and says so (docs/importing-logs.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

STREAMED = "samples"  # the member left out of the head and read item by item
WHOLE_NOTE = ("read whole, not streamed ({why}): memory about 8x the file")


def _ijson():
    try:
        import ijson  # the interop extra
    except ModuleNotFoundError:
        return None
    return ijson


def head(path: Path) -> tuple[dict | None, str]:
    """(every top-level member of the object at ``path`` but STREAMED, "") or (None, why
    it cannot be streamed): ijson missing, not strict JSON, or not an object."""
    ijson = _ijson()
    if ijson is None:
        return None, "the ijson package of the interop extra is not installed"
    out: dict = {}
    key, builder, depth = None, None, 1
    try:
        with open(path, "rb") as handle:
            # basic_parse, not parse: parse's event prefixes grow with the nesting, so a
            # 200 kB file of nested brackets took 25 CPU-s (quadratic); the depth is ours.
            events = ijson.basic_parse(handle, use_float=True)
            first = next(events, None)
            if first is None or first[0] != "start_map":
                return None, "not a JSON object"
            for event, value in events:
                if depth == 1 and event in ("map_key", "end_map"):
                    if builder is not None:
                        out[key] = builder.value
                    key = value
                    builder = None if value == STREAMED else ijson.ObjectBuilder()
                    depth -= event == "end_map"
                    continue
                depth += (event in ("start_map", "start_array")) - (
                    event in ("end_map", "end_array"))
                if builder is not None:
                    builder.event(event, value)
    except (ijson.JSONError, ijson.IncompleteJSONError, ValueError, OverflowError):
        return None, "not strict JSON: NaN, Infinity, a number beyond a double, or damaged"
    return out, ""


def items(path: Path) -> Iterator:
    """The elements of the top-level STREAMED array, one at a time (after :func:`head`
    read the same file: strict JSON)."""
    ijson = _ijson()
    with open(path, "rb") as handle:
        yield from ijson.items(handle, f"{STREAMED}.item", use_float=True)
