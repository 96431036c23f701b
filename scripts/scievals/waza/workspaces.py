"""A run's workspace: made fresh for the executor, recorded after it, rebuilt for graders.

The predict stage records a workspace's final files in the run's record (bounded:
:data:`MAX_FILE_BYTES` per file, :data:`MAX_TOTAL_BYTES` per run; larger files are named
in ``workspace_omitted``), so the score stage can grade file and program graders on a
copy rebuilt in a temporary directory without running the agent again.
"""

from __future__ import annotations

import base64
import binascii
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scievals.common.errors import ScievalsError
from scievals.waza.suites import Suite, Task

MAX_FILE_BYTES = 1 << 20  # 1 MiB: sources, reports and small data files fit
MAX_TOTAL_BYTES = 8 << 20
EXECUTABLE = 0o111


def make(suite: Suite, task: Task) -> Path:
    """A fresh temporary directory holding only the task's files."""
    root = Path(tempfile.mkdtemp(prefix="waza-ws-"))
    base = suite.task_fixtures_dir(task)
    for item in task.files:
        target = root / item.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if item.content is not None:
            target.write_text(item.content, encoding="utf-8")
        else:
            source = base / item.path
            if not source.is_file():
                shutil.rmtree(root, ignore_errors=True)
                raise ScievalsError(f"{task.source}: inputs.files", f"fixture {item.path!r} "
                                    f"not found in {base}", "add it or give content:")
            shutil.copyfile(source, target)
    return root


def snapshot(root: Path) -> tuple[dict[str, dict], list[dict]]:
    """(files, omitted): every regular file under ``root`` by relative POSIX path, as
    ``{"text": ...}`` (UTF-8) or ``{"base64": ...}``, plus ``"executable": true`` where set;
    files past the size bounds are listed in ``omitted`` with their size. Symlinks are
    skipped (a link could point outside the workspace)."""
    files: dict[str, dict] = {}
    omitted: list[dict] = []
    total = 0
    for path in sorted(root.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        relative = path.relative_to(root).as_posix()
        size = path.stat().st_size
        if size > MAX_FILE_BYTES or total + size > MAX_TOTAL_BYTES:
            omitted.append({"path": relative, "bytes": size})
            continue
        total += size
        data = path.read_bytes()
        try:
            entry: dict[str, Any] = {"text": data.decode("utf-8")}
        except UnicodeDecodeError:
            entry = {"base64": base64.b64encode(data).decode("ascii")}
        if path.stat().st_mode & EXECUTABLE:
            entry["executable"] = True
        files[relative] = entry
    return files, omitted


def rebuild(files: Mapping[str, Mapping], root: Path, where: str) -> Path:
    """Write recorded ``files`` under ``root`` (an empty directory); a path that is absolute
    or climbs out with ``..`` is refused (a results file is untrusted input)."""
    if not isinstance(files, Mapping):
        raise ScievalsError(f"{where}: workspace_files", "must be an object (path -> file)",
                            'write {"out.txt": {"text": "..."}}')
    for relative, entry in files.items():
        parts = Path(relative).parts
        if Path(relative).is_absolute() or ".." in parts or not parts:
            raise ScievalsError(f"{where}: workspace_files", f"path {relative!r} is not "
                                "inside the workspace", "record paths relative to it")
        if not isinstance(entry, Mapping) or not ({"text", "base64"} & set(entry)):
            raise ScievalsError(f"{where}: workspace_files[{relative!r}]", "needs text or "
                                "base64", 'write {"text": "..."} or {"base64": "..."}')
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if "text" in entry:
            target.write_bytes(str(entry["text"]).encode("utf-8"))
        else:
            try:
                target.write_bytes(base64.b64decode(str(entry["base64"]), validate=True))
            except binascii.Error as exc:
                raise ScievalsError(f"{where}: workspace_files[{relative!r}].base64",
                                    f"not base64 ({exc})", "record the file's bytes base64-"
                                    "encoded, or its text as text") from None
        if entry.get("executable"):
            os.chmod(target, target.stat().st_mode | EXECUTABLE)
    return root
