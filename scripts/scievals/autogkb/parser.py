"""A model's reply (or a user's prediction list) -> annotations with the ten exact field names.

Steps: find the JSON (a fenced block, else the first ``[`` or ``{``), load it (``json``,
else ``json_repair``), take the list (a bare object, or an object holding exactly one list,
is unwrapped and noted), map key spellings to the exact ClinPGx names where exactly one
field fits (``variant_haplotypes``, ``Drugs``, ``Is/Is not associated``...), and validate
each annotation against the schema (values are strings or null; lists of strings are
joined with ", "). Anything else is a parse failure with a reason: the reference would
silently score wrong key spellings as 0, here the record says why.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import json_repair
from jsonschema import Draft202012Validator

from scievals.autogkb.fields import ALLOWED_VALUES, KEY_ALIASES, squash
from scievals.autogkb.metrics import FIELDS
from scievals.llm.parsing import ParseOutcome

ITEM_SCHEMA = {
    "type": "object",
    "properties": {f: {"type": ["string", "null"]} for f in FIELDS},
}
_VALIDATOR = Draft202012Validator(ITEM_SCHEMA)
_FENCE = re.compile(r"```(?:json)?[^\n]*\n([\s\S]*?)(?:```|$)", re.IGNORECASE)
LIST_KEYS = ("annotations", "var_pheno_ann", "results", "variant_annotations")


@dataclass
class ParseResult(ParseOutcome):
    annotations: list[dict] = field(default_factory=list)

    def as_record(self) -> dict:
        return {**super().as_record(), "annotations": self.annotations}


class _Unusable(Exception):
    """One reason why a reply yields no annotation list."""


def _load(text: str) -> tuple[Any, str]:
    """The reply's JSON: a fenced block, else the first ``[``/``{`` that opens a list of
    objects or an object (prose before and after ignored), else the repaired text."""
    decoder = json.JSONDecoder()
    fenced = [m.group(1).strip() for m in _FENCE.finditer(text)]
    for chunk in [*fenced, text.strip()]:
        try:
            return json.loads(chunk), "json"
        except (json.JSONDecodeError, RecursionError):
            continue
    starts = [m.start() for m in re.finditer(r"[\[{]", text)][:50]
    broken_list = None  # a "[" that opens no complete JSON value (a truncated list?)
    for start in starts:
        try:
            value, _end = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            if text[start] == "[" and broken_list is None:
                broken_list = start
            continue
        if isinstance(value, dict) and broken_list is not None:
            break  # an object inside a truncated list: repair the list instead
        if isinstance(value, dict) or (isinstance(value, list) and (
                not value or any(isinstance(v, dict) for v in value))):
            return value, "json"
    tail = broken_list if broken_list is not None else (starts[0] if starts else None)
    for chunk in fenced + ([text[tail:]] if tail is not None else []):
        try:
            value = json_repair.loads(chunk)
        except Exception:  # noqa: BLE001 - json_repair raises assorted errors
            value = None
        if isinstance(value, (list, dict)) and value != {}:
            return value, "json_repaired"
    raise _Unusable("no JSON list found in the reply")


def _as_list(value: Any, warnings: list[str]) -> list:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        lists = [k for k, v in value.items() if isinstance(v, list)]
        named = [k for k in lists if squash(k) in {squash(n) for n in LIST_KEYS}]
        if len(named) == 1 or (len(lists) == 1 and not _field_keys(value)):
            key = named[0] if len(named) == 1 else lists[0]
            warnings.append(f"reply was an object; used its list {key!r}")
            return value[key]
        if _field_keys(value):
            warnings.append("reply was one annotation object, not a list; wrapped it")
            return [value]
    raise _Unusable(f"reply is a JSON {type(value).__name__}, not a list of annotations")


def _field_keys(obj: dict) -> list[str]:
    return [k for k in obj if squash(str(k)) in KEY_ALIASES]


def _value(raw: Any, where: str, warnings: list[str]) -> Any:
    if isinstance(raw, list) and all(isinstance(v, str) for v in raw):
        warnings.append(f"{where}: list joined with ', '")
        return ", ".join(raw)
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        warnings.append(f"{where}: number turned into text")
        return str(raw)
    return raw


def normalise_annotation(item: Any, index: int, warnings: list[str]) -> dict:
    """One annotation with exact field names, or :class:`_Unusable` naming the problem."""
    if not isinstance(item, dict):
        raise _Unusable(f"item {index} is a JSON {type(item).__name__}, not an object")
    out: dict[str, Any] = {}
    source: dict[str, str] = {}
    ignored = []
    for key, raw in item.items():
        target = KEY_ALIASES.get(squash(str(key)))
        if target is None:
            ignored.append(str(key))
            continue
        if target in out:
            raise _Unusable(f"item {index}: keys {source[target]!r} and {key!r} both mean "
                            f"{target!r}")
        if key != target:
            warnings.append(f"item {index}: key {key!r} read as {target!r}")
        out[target] = _value(raw, f"item {index} {target!r}", warnings)
        source[target] = str(key)
    if not out:
        raise _Unusable(f"item {index} has none of the ten field names (keys: {sorted(ignored)})")
    errors = sorted(_VALIDATOR.iter_errors(out), key=lambda e: list(e.absolute_path))
    if errors:
        where = ".".join(str(p) for p in errors[0].absolute_path)
        raise _Unusable(f"item {index} {where!r}: {errors[0].message}")
    for f, allowed in ALLOWED_VALUES.items():
        value = out.get(f)
        if value is not None and value not in allowed:
            warnings.append(f"item {index} {f!r}: {value!r} is not a ClinPGx value")
    full = {f: out.get(f) for f in FIELDS}
    full.update({k: item[k] for k in ignored})  # kept for the review; the scorer ignores them
    return full


def parse_annotations(value: Any, method: str = "object") -> ParseResult:
    """Annotations from already-loaded JSON (a user's file, or a loaded reply)."""
    warnings: list[str] = []
    try:
        items = _as_list(value, warnings)
        annotations = [normalise_annotation(item, i, warnings) for i, item in enumerate(items)]
    except _Unusable as exc:
        return ParseResult("failed", method=method, error=str(exc), warnings=warnings)
    return ParseResult("ok", method=method, annotations=annotations, warnings=warnings)


def parse_reply(text: str | None) -> ParseResult:
    """Annotations from a raw model reply."""
    if text is None or not text.strip():
        return ParseResult("failed", error="empty reply")
    try:
        value, method = _load(text)
    except _Unusable as exc:
        return ParseResult("failed", error=str(exc))
    return parse_annotations(value, method)
