"""Everything a suite reads must be inside its folder.

The suite's sha256 (``data.tree_sha256``) covers the files of its folder and nothing else,
and the workflow copies only that folder. A task glob, ``context_dir``, fixture, trigger
file or skill directory that leads out of it (an absolute path, ``..``, or a symlink whose
target is elsewhere) would be read from the host, escape the checksum and, for fixtures,
copy host files into the agent's workspace; so it is refused. Paths are compared after
resolving symlinks.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from scievals.common.errors import ScievalsError

FIX = "move it into the suite folder: the suite's checksum covers only that folder"


def is_inside(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    """Whether ``path``, symlinks resolved, is ``root`` or below it."""
    resolved, base = Path(path).resolve(), Path(root).resolve()
    return resolved == base or base in resolved.parents


def outside(path: str | os.PathLike, roots: list[Path], where: str, what: str) -> str | None:
    """A problem line when ``path`` resolves outside every one of ``roots``, else None."""
    if any(is_inside(path, root) for root in roots):
        return None
    shown = Path(path).resolve()
    target = "" if str(shown) == os.path.abspath(path) else f" (resolves to {shown})"
    return (f"{where}: {what} {str(path)!r}{target} is outside the suite folder "
            f"{Path(roots[0]).resolve()} ({FIX})")


def file_name_part(text: str) -> str:
    """``text`` as one safe file-name part, as waza's transcript writer makes it: lower
    case, spaces as ``-``, everything but ``[a-z0-9_-]`` dropped, ``unnamed`` if nothing
    is left. A task id such as ``../../x`` or ``/etc/x`` can then not leave the folder
    it is written to."""
    name = re.sub(r"[^a-z0-9_-]", "", text.strip().lower().replace(" ", "-"))
    return name or "unnamed"


def output_path(folder: str | os.PathLike, name: str, where: str) -> Path:
    """``folder/name`` for a file named from suite content, refused (one line) unless it
    stays inside ``folder``: what a downloaded suite names is written only where asked."""
    path = Path(folder) / name
    if Path(name).is_absolute() or not is_inside(path, folder) or Path(name).name != name:
        raise ScievalsError(where, f"file name {name!r} would be written outside {folder}",
                            "give the task an id without '/', '\\\\' or '..'")
    return path


def links_leaving(folder: str | os.PathLike) -> list[str]:
    """Every symlink under ``folder`` whose target is outside it (relative paths)."""
    root = Path(folder)
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            if path.is_symlink() and not is_inside(path, root):
                found.append(str(path.relative_to(root)))
    return sorted(found)


def suite_problems(spec: Path, tasks: list, raw: dict, fixtures: Path,
                   given_fixtures: bool) -> list[str]:
    """Problem lines for what a loaded suite would read outside its folder: ``eval.yaml``
    itself, each task's ``context_dir`` and fixture files, ``config.skill_directories``.
    A fixtures folder given on the command line (``--context-dir``) is the user's choice
    and may be elsewhere; fixtures must then be inside it."""
    root = [spec.parent]
    problems = [outside(spec, root, str(spec), "the file")]
    for task in tasks:
        if task.context_dir is not None:
            problems.append(outside(task.context_dir, root, f"{task.source}: context_dir",
                                    "the folder"))
            base, roots = task.context_dir, root
        else:
            base, roots = fixtures, [fixtures] if given_fixtures else root
        problems += [outside(base / item.path, roots, f"{task.source}: inputs.files",
                             "fixture") for item in task.files if item.content is None]
    config = raw.get("config") if isinstance(raw.get("config"), dict) else {}
    for index, folder in enumerate(config.get("skill_directories") or []):
        if isinstance(folder, str):
            problems.append(outside(spec.parent / folder, root,
                                    f"{spec}: config.skill_directories[{index}]",
                                    "skill directory"))
    return [p for p in problems if p]


def _path_like(token: str) -> bool:
    """A hook command word that names a file rather than a program or a plain argument."""
    return "/" in token or os.sep in token or token.startswith(".")


def v1_problems(spec: Path, raw: dict, tasks: list, graders: list) -> list[str]:
    """Problem lines for the schemaVersion 1.x keys that read files (beyond
    :func:`suite_problems`): each task's ``skill_directories`` (relative to eval.yaml), a
    prompt grader's ``rubric`` file, and the hooks: ``working_directory`` and every
    relative path-like word of a ``command`` (``hooks/check.py``, ``./run.sh``), resolved
    against the hook's working directory. An absolute program (``/usr/bin/python3``) is a
    host program, as one found on PATH is, and is not checked. ``tasks_from`` and
    ``prompt_file`` are checked where they are read (``format_v1.inside``)."""
    root = [spec.parent]
    problems: list[str] = []
    for task in tasks:
        for index, folder in enumerate(getattr(task, "skill_directories", None) or []):
            if isinstance(folder, str):
                problems.append(outside(spec.parent / folder, root,
                                        f"{task.source}: skill_directories[{index}]",
                                        "skill directory"))
        graders = [*graders, *getattr(task, "graders", [])]
    for grader in graders:
        rubric = (grader.config or {}).get("rubric") if grader.type == "prompt" else None
        if isinstance(rubric, str) and ("/" in rubric or rubric.endswith(".md")):
            problems.append(outside(Path(rubric).expanduser(), root,
                                    f"{grader.source}: config.rubric", "rubric file"))
    hooks = raw.get("hooks") if isinstance(raw.get("hooks"), dict) else {}
    for point, entries in sorted(hooks.items()):
        for index, hook in enumerate(entries if isinstance(entries, list) else []):
            if not isinstance(hook, dict):
                continue
            where = f"{spec}: hooks.{point}[{index}]"
            cwd = spec.parent
            if isinstance(hook.get("working_directory"), str) and hook["working_directory"]:
                cwd = spec.parent / hook["working_directory"]
                problem = outside(cwd, root, f"{where}.working_directory", "the folder")
                if problem:
                    problems.append(problem)
                    continue
            for word in str(hook.get("command") or "").split():
                if _path_like(word) and not os.path.isabs(word):
                    problems.append(outside(cwd / word, root, f"{where}.command", "path"))
    return list(dict.fromkeys(p for p in problems if p))
