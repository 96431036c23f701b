"""Atomic file output and small readers.

Outputs are written to a temporary file in the same folder and then moved into
place with ``os.replace``, so a crash or a validation error never leaves a
half-written result behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from scievals.common.errors import ScievalsError


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def check_file_target(path: str | os.PathLike) -> Path:
    """``path`` as a Path, or one clear error if it names a directory (commands check before working)."""
    if Path(path).is_dir() or str(path).endswith(("/", os.sep)):
        # Checked before writing: the temporary file would otherwise land in the folder's parent.
        raise ScievalsError(str(path), "is a directory, not a file", "give the path of the file to write")
    return Path(path)


def check_output_file(path: str | os.PathLike, flag: str) -> Path:
    """``path`` as a file a command may write (atomically: a temporary file renamed over
    it), or one ScievalsError: a rename would turn a symlink, a device node, a pipe or a
    socket at ``path`` into a plain file, and a folder cannot be replaced by one."""
    target = Path(path)
    if target.is_symlink():
        raise ScievalsError(path, f"{flag} names a symbolic link (writing would replace the "
                            "link, not the file it points to)",
                            "give the path of a regular file or of a new one")
    if target.exists() and not target.is_file():
        what = "a folder" if target.is_dir() else "not a regular file (a device, pipe or socket)"
        raise ScievalsError(path, f"{flag} names {what}",
                            "give the path of a regular file or of a new one")
    return check_file_target(target)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; move it over ``path`` on success."""
    target = check_file_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    # mkstemp creates 0600; give the file the mode a plain open() would (shared clusters).
    os.chmod(tmp_path, 0o666 & ~_UMASK)
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    except OSError as exc:
        if exc.filename not in (None, str(tmp_path)) or exc.errno is None:
            raise
        # A full disk while writing the temporary file: name the output the user knows.
        raise OSError(exc.errno, exc.strerror, str(target)) from exc
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json(path: str | os.PathLike, data: Any) -> None:
    write_text(path, json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")


def write_jsonl(path: str | os.PathLike, records: Iterable[dict]) -> int:
    """Write one JSON object per line, atomically, as ``records`` yields them (a generator
    is never held in memory whole); the number written."""
    count = 0
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, sort_keys=True, default=str) + "\n")
            count += 1
    return count


def write_csv(path: str | os.PathLike, frame) -> None:
    """Write a pandas DataFrame without its index, atomically."""
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False)


# Python's JSON decoder recurses once per level: thousands of levels exhaust the stack.
TOO_DEEP = "JSON nested too deeply to read"


def user_file(path: str | os.PathLike) -> Path:
    """``path`` if it is a readable file; else one ScievalsError saying what it is instead.

    Every reader of a file the user names goes through here, so a folder, a
    missing path or an unreadable file is one clear line, never a traceback.
    """
    file = Path(path)
    if file.is_dir():
        raise ScievalsError(path, "is a folder, not a file", "give the path of a file in it")
    if not file.exists():
        raise ScievalsError(path, "file not found", "check the path")
    if not file.is_file():  # opening a named pipe blocks until someone writes to it
        raise ScievalsError(path, "not a regular file (a named pipe, socket or device)",
                            "give the path of a regular file")
    if not os.access(file, os.R_OK):
        raise ScievalsError(path, "file not readable (permission denied)", "check its permissions")
    return file


def read_user_text(path: str | os.PathLike, newline: str | None = None) -> str:
    """The UTF-8 text of a file the user names (see :func:`user_file`); ``newline`` as
    :func:`open`'s (``""``: line ends kept as they are, for a CSV reader)."""
    try:
        with open(user_file(path), encoding="utf-8", newline=newline) as handle:
            return handle.read()
    except UnicodeDecodeError as exc:
        raise ScievalsError(
            path, f"not UTF-8 text (byte {exc.start})", "give a text file saved as UTF-8"
        ) from None


def read_json(path: str | os.PathLike, parse_constant=None) -> Any:
    """A JSON file; ``parse_constant`` is json's hook for NaN/Infinity (not JSON, but read as
    floats by default)."""
    try:
        with open(user_file(path), encoding="utf-8") as handle:
            return json.load(handle, parse_constant=parse_constant)
    except UnicodeDecodeError as exc:
        raise ScievalsError(
            path, f"not UTF-8 text (byte {exc.start})", "give a JSON file saved as UTF-8"
        ) from None
    except json.JSONDecodeError as exc:
        raise ScievalsError(
            f"{path}:{exc.lineno}", f"not valid JSON ({exc.msg})", "fix the JSON syntax"
        ) from None
    except RecursionError:
        raise ScievalsError(path, TOO_DEEP, "flatten the JSON") from None


# A lone surrogate cannot be encoded as UTF-8, so it would fail the first write of it
# (a score table, a review); NUL ends strings in C libraries and terminals.
_UNWRITABLE = re.compile("[\ud800-\udfff\x00]")


def refuse_unwritable_text(value: Any, where: str) -> None:
    """One ScievalsError at the first key or string of a JSON value that holds a lone
    surrogate (JSON allows ``"\\ud800"``) or a NUL character, naming its place
    (``where`` + ``[key][index]...``). Readers of users' files call it right after loading,
    so such text is refused at import instead of failing a later step."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        place, item = stack.pop()
        if isinstance(item, dict):
            for key, child in reversed(item.items()):
                _check_string(key, where, f"{place}[{key!r}]", "key")
                stack.append((f"{place}[{key!r}]", child))
        elif isinstance(item, list):
            stack.extend((f"{place}[{i}]", child) for i, child in reversed(list(enumerate(item))))
        elif isinstance(item, str):
            _check_string(item, where, place, "text")


def _check_string(text: str, where: str, place: str, what: str) -> None:
    match = _UNWRITABLE.search(text)
    if match is None:
        return
    char = match.group()
    problem = ("a NUL character (\\u0000)" if char == "\x00"
               else f"a lone surrogate ({char.encode('unicode_escape').decode()}), not valid Unicode")
    raise ScievalsError(f"{where}{place}", f"{what} holds {problem}",
                        "remove it or write the intended character instead")


def iter_jsonl(path: str | os.PathLike) -> Iterator[Any]:
    """The records of a JSONL file one at a time (a big file is never held whole), with the
    errors of :func:`read_jsonl`; lines split at ``\n`` only, as there."""
    with open(user_file(path), "rb") as handle:
        for lineno, raw in enumerate(handle, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ScievalsError(f"{path}:{lineno}", f"not UTF-8 text (byte {exc.start} of "
                                    "the line)", "give a text file saved as UTF-8") from None
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise ScievalsError(f"{path}:{lineno}", f"not valid JSON ({exc.msg})",
                                    "one JSON object per line") from None
            except RecursionError:
                raise ScievalsError(f"{path}:{lineno}", TOO_DEEP, "flatten the JSON") from None


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    records = []
    # split("\n"), not splitlines(): JSON strings may hold U+2028, which splitlines breaks on.
    for lineno, line in enumerate(read_user_text(path).split("\n"), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ScievalsError(
                f"{path}:{lineno}", f"not valid JSON ({exc.msg})", "one JSON object per line"
            ) from None
        except RecursionError:
            raise ScievalsError(f"{path}:{lineno}", TOO_DEEP, "flatten the JSON") from None
    return records


# YAML aliases share one node, which stays small until something walks the data; nested
# anchors ("billion laughs") then expand a 1 KB file to gigabytes. A few aliases are a fair
# convenience, so the budget is on the nodes that expanding them adds.
YAML_ALIAS_BUDGET = 10_000


class _YamlRefused(Exception):
    def __init__(self, problem: str, fix: str, mark=None) -> None:
        super().__init__(problem)
        self.problem, self.fix, self.mark = problem, fix, mark


def _yaml_children(node) -> list:
    if node.id == "mapping":
        return [part for pair in node.value for part in pair]
    return list(node.value) if node.id == "sequence" else []


def _check_yaml_nodes(root) -> None:
    """Refuse recursive aliases, alias expansion beyond the budget and unwritable text,
    walking the composed node graph once (iteratively: the graph may be deep)."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _yaml_children(node))
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise _YamlRefused("a recursive alias (an anchor used inside itself)",
                               "write the value out instead of referring to itself",
                               node.start_mark)
        if node.id == "scalar":
            found = _UNWRITABLE.search(node.value)
            if found:
                raise _YamlRefused(f"a NUL or lone surrogate character "
                                   f"(U+{ord(found.group()):04X}) in {node.value[:40]!r}",
                                   "remove it", node.start_mark)
            sizes[key] = 1
            continue
        if node.id == "mapping":
            _refuse_duplicate_keys(node)
        on_path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _yaml_children(node))
    written = len(sizes)
    if sizes[id(root)] - written > YAML_ALIAS_BUDGET:
        raise _YamlRefused(f"aliases expand to more than {YAML_ALIAS_BUDGET:,} extra nodes "
                           "(nested anchors, a YAML bomb?)",
                           "write the repeated parts out, or use fewer nested aliases")


_MERGE_TAG = "tag:yaml.org,2002:merge"


def _refuse_duplicate_keys(mapping) -> None:
    """A key written twice in one mapping is refused, as Go's YAML reader (waza) does: PyYAML
    would keep the last value without a word, and which one the writer meant is a guess."""
    seen: dict[tuple[str, str], int] = {}
    for key_node, _ in mapping.value:
        if key_node.id != "scalar" or key_node.tag == _MERGE_TAG:
            continue
        ident = (key_node.tag, key_node.value)
        if ident in seen:
            raise _YamlRefused(f"key {key_node.value!r} appears twice in one mapping (first on "
                               f"line {seen[ident] + 1})",
                               "keep one of the two (the last would silently win)",
                               key_node.start_mark)
        seen[ident] = key_node.start_mark.line


@contextlib.contextmanager
def _composed_yaml(text: str, where: str | os.PathLike) -> Iterator[tuple[Any, Any]]:
    """(loader, root node or None) of one YAML document after the checks of
    :func:`_check_yaml_nodes`; any problem, in composing or in what the caller does with the
    loader, becomes one ScievalsError naming ``where`` and the line."""
    import yaml  # here, not at the top: most jobs that import this module never read YAML

    loader = None
    try:
        # the pure-Python loader on purpose: libyaml accepts nesting deep enough to crash
        # whoever walks the data, and words a lone surrogate less clearly (read_own_yaml is
        # the fast path for the project's own files); its reader refuses control characters
        loader = yaml.SafeLoader(text)
        node = loader.get_single_node()
        if node is not None:
            _check_yaml_nodes(node)
        yield loader, node
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f"{where}:{mark.line + 1}" if mark else str(where)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]  # one line
        raise ScievalsError(at, f"not valid YAML ({problem})") from None
    except _YamlRefused as exc:
        at = f"{where}:{exc.mark.line + 1}" if exc.mark else str(where)
        raise ScievalsError(at, f"refused YAML: {exc.problem}", exc.fix) from None
    except RecursionError:
        raise ScievalsError(where, "YAML nested too deeply to read", "flatten it") from None
    finally:
        if loader is not None:
            loader.dispose()


def parse_yaml(text: str, where: str | os.PathLike) -> Any:
    """The data of one YAML document the user wrote; every problem is one ScievalsError.

    The one YAML reader for user input (config, suites, task files, front matter): safe
    tags only, a budget on alias expansion, no recursive aliases, no NUL or lone
    surrogates, and a document nested too deeply for the parser is refused, not a crash.
    """
    with _composed_yaml(text, where) as (loader, node):
        return None if node is None else loader.construct_document(node)


def parse_yaml_node(text: str, where: str | os.PathLike) -> Any:
    """The composed root node (``yaml.Node`` or None) of one YAML document, with the same
    refusals as :func:`parse_yaml` (for readers of the raw scalar text, e.g. waza's
    ``schemaVersion``: ``1.10`` is not ``1.1``)."""
    with _composed_yaml(text, where) as (_, node):
        return node


def read_yaml(path: str | os.PathLike) -> Any:
    """The YAML file the user names, read through :func:`parse_yaml`."""
    return parse_yaml(read_user_text(path), path)


def read_own_yaml(path: str | os.PathLike) -> Any:
    """A YAML file the project ships (config schemas): libyaml's safe loader when PyYAML has
    it, several times faster than :func:`parse_yaml` (the Snakefile reads the schemas at every
    start); never for files a user wrote."""
    import yaml  # here, not at the top: most jobs that import this module never read YAML

    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def canonical_json(data: Any) -> str:
    """JSON with sorted keys and fixed separators: the input to every hash we take."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
