"""Turn a model's reply into a gating tree.

Stages, first success wins (the reference's order, with its known failure modes
fixed):

1. ``json_fence``: a ```` ```json ```` (or bare ```` ``` ````) block; an unclosed fence
   runs to the end of the reply (truncated output). ``json.loads``, else
   ``json_repair`` (method suffix ``_repaired``).
2. ``json_raw``: the first ``{`` that opens a hierarchy-like object, cut at its
   matching brace (trailing prose ignored), else repaired from there to the end.
3. ``arrow_paths``: lines such as ``All Events > Singlets > Live`` merged into a tree.
4. ``markdown_list``: ``-``/``*``/``1.`` items nested by indentation.
5. ``indented_text``: indented lines, including box-drawing trees (``├──``).

If a JSON tree is found, it is the answer even when too small: the reference
then fell through to the text parsers and scored JSON syntax as gate names.
A tree needs at least 3 nodes (reference ``MIN_GATES``). Meta-commentary terms
("here", "this", "would", ...) reject a text line only as whole words, so
"Adherent cells" is a gate.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any

import json_repair

# Bump when a change here can turn a reply into another tree: it is the gating_import rule's
# code_version param (the registry's "import" role), so imported files are parsed again.
PARSER_VERSION = "gating-parser-v2"

from scievals.gating.reference import tables
from scievals.gating.tree import MAX_DEPTH, TooDeep, clean_tree, count_nodes, depth
from scievals.llm.parsing import ParseOutcome


@dataclass
class ParseResult(ParseOutcome):
    hierarchy: dict | None = None


_FENCE_JSON = re.compile(r"```json[^\n]*\n?([\s\S]*?)(?:```|$)", re.IGNORECASE)
_FENCE_ANY = re.compile(r"```[a-zA-Z]*[^\n]*\n?([\s\S]*?)(?:```|$)")
# Item text is taken greedily and right-stripped afterwards: a lazy ``(.+?)\s*$`` retries
# the trailing-space match at every character, quadratic on a long run of spaces.
_MD_ITEM = re.compile(r"^(\s*)(?:[-*+•]|\d+[.)])\s+(.+)$")
_TREE_PREFIX = re.compile(r"^[\s│├└╰╞┣┗┃─━\-|`'+>→•*]*")
# Split on the arrow only (the parts are stripped when cleaned): ``\s*`` around it would
# rescan a long run of spaces from every position, quadratic in the line's length.
_ARROW = re.compile(r"->|→|=>|⇒|(?<=\s)>(?=\s)")
_EMPHASIS = re.compile(r"(\*\*|__|`)")


@functools.lru_cache(maxsize=1)
def _meta_pattern() -> re.Pattern:
    terms = sorted(tables().meta_terms, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(re.escape(t) for t in terms) + r")\b", re.IGNORECASE)


def valid_name(name: str) -> bool:
    tab = tables()
    return (tab.min_name_length <= len(name) <= tab.max_name_length
            and not _meta_pattern().search(name))


def _as_hierarchy(obj: Any) -> dict | None:
    """A node dict from parsed JSON, or None when it does not look like a tree."""
    if isinstance(obj, list):
        nodes = [x for x in obj if isinstance(x, dict)]
        if len(nodes) == 1:
            obj = nodes[0]
        elif nodes and all("name" in x for x in nodes):
            obj = {"name": "All Events", "children": nodes}
        else:
            return None
    if not isinstance(obj, dict):
        return None
    for key in ("gating_hierarchy", "hierarchy", "gating_strategy", "tree"):
        if isinstance(obj.get(key), dict) and "name" not in obj:
            obj = obj[key]
    if "name" in obj or isinstance(obj.get("root"), dict) or "children" in obj:
        return clean_tree(obj)
    return None


# Bounds on the work one reply may cost, whatever its shape (a degenerate reply repeats one
# character up to max_tokens). json_repair recurses per level and gives up near 200 levels,
# after work that grows with the length: deeper text is not repaired (it would fail anyway,
# and a hierarchy within MAX_DEPTH nests at most 2 * MAX_DEPTH brackets). Repairs and brace
# scans share character budgets (several times the longest real reply), so trying up to 50
# starts stays linear in the reply's length.
MAX_NESTING = 2 * MAX_DEPTH + 2
REPAIR_BUDGET = 400_000
REPAIR_CALL_COST = 256  # a repair's fixed cost in characters (thousands of tiny fences)
SCAN_BUDGET = 2_000_000


@dataclass
class _Effort:
    repair_left: int = REPAIR_BUDGET
    scan_left: int = SCAN_BUDGET


def _nesting_exceeds(text: str, limit: int) -> bool:
    """Whether brackets outside strings nest deeper than ``limit`` (stops once they do)."""
    level = 0
    in_string = escape = False
    for ch in text:
        if escape:
            escape = False
        elif ch == "\\":
            escape = in_string
        elif ch == '"':
            in_string = not in_string
        elif not in_string:
            if ch in "{[":
                level += 1
                if level > limit:
                    return True
            elif ch in "}]":
                level -= 1
    return False


def _loads(text: str, effort: _Effort) -> tuple[Any, bool] | None:
    """(value, repaired) or None; JSON nested too deeply to read raises TooDeep."""
    try:
        return json.loads(text), False
    except RecursionError:
        raise TooDeep() from None
    except json.JSONDecodeError:
        pass
    cost = len(text) + REPAIR_CALL_COST
    if cost > effort.repair_left:
        return None
    effort.repair_left -= cost
    if _nesting_exceeds(text, MAX_NESTING):
        return None
    try:
        value = json_repair.loads(text)
    except Exception:  # noqa: BLE001 - json_repair raises assorted errors on hopeless input
        return None
    return (value, True) if isinstance(value, (dict, list)) and value else None


def _balanced_object(text: str, start: int, effort: _Effort) -> str | None | bool:
    """The object opening at ``start`` up to its matching brace; None when it never closes,
    False when the scan budget is spent. A closed object nesting deeper than MAX_NESTING
    raises TooDeep (no hierarchy within MAX_DEPTH nests that deep); one that never closes
    is a degenerate reply (a repetition loop), not a deep hierarchy."""
    level = 0
    deep = in_string = escape = False
    for i in range(start, len(text)):
        effort.scan_left -= 1
        if effort.scan_left < 0:
            return False
        ch = text[i]
        if escape:
            escape = False
        elif ch == "\\":
            escape = in_string
        elif ch == '"':
            in_string = not in_string
        elif not in_string:
            if ch == "{":
                level += 1
                deep = deep or level > MAX_NESTING
            elif ch == "}":
                level -= 1
                if level == 0:
                    if deep:
                        raise TooDeep()
                    return text[start:i + 1]
    return None


def _from_json_text(text: str, method: str, effort: _Effort) -> tuple[dict, str] | None:
    loaded = _loads(text.strip(), effort)
    if loaded is None:
        return None
    tree = _as_hierarchy(loaded[0])
    if tree is None:
        return None
    return tree, method + ("_repaired" if loaded[1] else "")


def _json_candidates(text: str):
    effort = _Effort()
    for pattern, label in ((_FENCE_JSON, "json_fence"), (_FENCE_ANY, "json_fence")):
        for m in pattern.finditer(text):
            if "{" in m.group(1) or "[" in m.group(1):
                found = _from_json_text(m.group(1), label, effort)
                if found:
                    yield found
    starts = [m.start() for m in re.finditer(r"\{", text)][:50]
    for start in starts:
        chunk = _balanced_object(text, start, effort)
        if chunk is False:  # out of scan budget: this reply has had its share of work
            return
        if chunk is not None:
            try:
                tree = _as_hierarchy(json.loads(chunk))
            except RecursionError:
                raise TooDeep() from None
            except json.JSONDecodeError:
                tree = None
            if tree is not None:
                yield tree, "json_raw"
                return
        found = _from_json_text(chunk if chunk is not None else text[start:], "json_raw", effort)
        if found:
            yield found
            return


def _clean_text_name(raw: str) -> str:
    name = _EMPHASIS.sub("", raw).strip()
    # "Singlets: FSC-A vs FSC-H" and "Singlets - doublet exclusion" carry a description.
    name = re.split(r":\s|\s[—–]\s|\s-\s", name, maxsplit=1)[0]
    return " ".join(name.strip(" .:;,").split())


def _items_to_tree(items: list[tuple[int, str]]) -> dict:
    base = min(indent for indent, _ in items)
    root = {"name": items[0][1], "markers": [], "children": []}
    stack = [(root, items[0][0] - base)]
    for indent, name in items[1:]:
        indent -= base
        new = {"name": name, "markers": [], "children": []}
        while len(stack) > 1 and stack[-1][1] >= indent:
            stack.pop()
        stack[-1][0]["children"].append(new)
        stack.append((new, indent))
    return root


def _markdown_list(text: str) -> dict | None:
    items = []
    for line in text.splitlines():
        m = _MD_ITEM.match(line.replace("\t", "    "))
        if m:
            name = _clean_text_name(m.group(2).rstrip())
            if valid_name(name):
                items.append((len(m.group(1)), name))
    return _items_to_tree(items) if len(items) >= tables().min_gates else None


def _indented_text(text: str) -> dict | None:
    items = []
    for line in text.splitlines():
        line = line.replace("\t", "    ").rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith(("{", "}", "[", "]", '"', "```", "#")):
            continue
        if _meta_pattern().search(stripped):
            continue
        prefix = _TREE_PREFIX.match(line).group(0)
        name = _clean_text_name(line[len(prefix):])
        if valid_name(name) and not name.endswith("?"):
            items.append((len(prefix), name))
    return _items_to_tree(items) if len(items) >= tables().min_gates else None


def _arrow_paths(text: str) -> dict | None:
    paths = []
    for line in text.splitlines():
        body = _TREE_PREFIX.sub("", line.strip()) if not line.strip().startswith(">") else line
        parts = [_clean_text_name(p) for p in _ARROW.split(body.strip())]
        if len(parts) >= 2 and all(valid_name(p) for p in parts):
            paths.append(parts)
    if not paths:
        return None
    root_name = paths[0][0]
    root = {"name": root_name, "markers": [], "children": []}
    for path in paths:
        if path[0] != root_name:
            path = [root_name] + path
        current = root
        for name in path[1:]:
            child = next((c for c in current["children"] if c["name"] == name), None)
            if child is None:
                child = {"name": name, "markers": [], "children": []}
                current["children"].append(child)
            current = child
    return root if count_nodes(root) >= tables().min_gates else None


def parse_reply(text: str | None) -> ParseResult:
    """Parse a raw reply; never raises."""
    if text is None or not str(text).strip():
        return ParseResult("failed", error="empty reply")
    text = str(text)
    try:
        return _parse_text(text)
    except TooDeep as exc:
        return ParseResult("failed", error=str(exc))


def _parse_text(text: str) -> ParseResult:
    min_gates = tables().min_gates
    for tree, method in _json_candidates(text):
        n = count_nodes(tree)
        if n < min_gates:
            return ParseResult("failed", method=method,
                               error=f"hierarchy has {n} node(s); at least {min_gates} needed")
        warnings = [f"gate name {n['name']!r} looks like commentary"
                    for n in _iter(tree) if not valid_name(n["name"])]
        return ParseResult("ok", method=method, hierarchy=tree, warnings=warnings)
    for method, func in (("arrow_paths", _arrow_paths), ("markdown_list", _markdown_list),
                         ("indented_text", _indented_text)):
        tree = func(text)
        if tree is not None:
            if depth(tree) > MAX_DEPTH:
                raise TooDeep()
            return ParseResult("ok", method=method, hierarchy=tree)
    return ParseResult("failed", error="no JSON, list or indented hierarchy found")


def parse_prediction(value: Any) -> ParseResult:
    """A prediction given as a tree object (dict/list) or as raw reply text."""
    if isinstance(value, (dict, list)):
        try:
            tree = _as_hierarchy(value)
        except TooDeep as exc:
            return ParseResult("failed", method="tree_object", error=str(exc))
        if tree is None:
            return ParseResult("failed", error="object is not a hierarchy (needs name/children)")
        n = count_nodes(tree)
        if n < tables().min_gates:
            return ParseResult("failed", method="tree_object",
                               error=f"hierarchy has {n} node(s); at least {tables().min_gates} needed")
        return ParseResult("ok", method="tree_object", hierarchy=tree)
    return parse_reply(value)


def _iter(tree: dict):
    stack = [tree]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current["children"])
