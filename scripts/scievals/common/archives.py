"""Unpack the wanted members of a downloaded zip or tar archive, safely.

An archive from the internet is untrusted input. ``unpack``:

- keeps each member's folder path (two ``sample.fcs`` in different folders stay
  two files) but refuses a member whose path is absolute, has a drive letter or
  a ``..`` part, and never follows or creates links: nothing lands outside the
  target folder;
- refuses two members that would land on the same file (the same path, also
  when they differ only in letter case, as on macOS and Windows file systems);
- caps the bytes it writes, counted while copying (a declared size can lie), so
  a small archive cannot unpack to fill the disk;
- unpacks into a fresh folder that replaces the old one only when everything
  went well: a failure leaves the previous unpack as it was.

Refused members are listed with their reason; a broken archive or the size cap
raises :class:`ArchiveError`.
"""

from __future__ import annotations

import gzip
import lzma
import re
import shutil
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO

from scievals.common.errors import ScievalsError

CHUNK = 1 << 20
# What zipfile/tarfile and their decompressors raise on a damaged (or truncated) archive.
# Not OSError in general: a full disk is not a damaged archive.
_DAMAGED = (zipfile.BadZipFile, tarfile.TarError, zlib.error, EOFError, gzip.BadGzipFile,
            lzma.LZMAError)
# Reading one member can also fail with these (bz2 data errors, encrypted or unsupported zip).
_UNREADABLE = (*_DAMAGED, OSError, NotImplementedError, RuntimeError)
_DRIVE = re.compile(r"^[A-Za-z]:")


class ArchiveError(ScievalsError):
    """The archive cannot be used at all (damaged, or over the size cap)."""


@dataclass
class Unpacked:
    files: list[Path] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)  # {"file": member name, "reason": ...}


@dataclass
class _Member:
    name: str
    kind: str  # file, dir, link or other
    size: int
    open: Callable[[], IO[bytes]]


def safe_member_path(name: str) -> PurePosixPath | None:
    """The member's path relative to the target folder, or None if it could leave it."""
    text = name.replace("\\", "/")
    if text.startswith("/") or _DRIVE.match(text):
        return None
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return PurePosixPath(*parts)


def _zip_members(zf: zipfile.ZipFile) -> Iterator[_Member]:
    for info in zf.infolist():
        mode = info.external_attr >> 16
        if info.is_dir():
            kind = "dir"
        elif stat.S_ISLNK(mode):
            kind = "link"
        else:
            kind = "file"
        yield _Member(info.filename, kind, info.file_size, lambda info=info: zf.open(info))


def _tar_members(tf: tarfile.TarFile) -> Iterator[_Member]:
    for member in tf:
        if member.isfile():
            kind = "file"
        elif member.isdir():
            kind = "dir"
        elif member.issym() or member.islnk():
            kind = "link"
        else:
            kind = "other"
        yield _Member(member.name, kind, member.size,
                      lambda member=member: tf.extractfile(member))


class _OverCap(Exception):
    pass


class _Unreadable(Exception):
    pass


def _open_member(member: _Member) -> IO[bytes]:
    try:
        return member.open()
    except _UNREADABLE as exc:  # an encrypted or unsupported zip member
        raise _Unreadable(type(exc).__name__) from None


def _copy_capped(src: IO[bytes], dst: IO[bytes], budget: int | None) -> int:
    written = 0
    while True:
        try:
            block = src.read(CHUNK)
        except _UNREADABLE as exc:
            raise _Unreadable(type(exc).__name__) from None
        if not block:
            return written
        written += len(block)
        if budget is not None and written > budget:
            raise _OverCap
        dst.write(block)


def _members(archive: Path, stack) -> Iterator[_Member]:
    if zipfile.is_zipfile(archive):
        return _zip_members(stack(zipfile.ZipFile(archive)))
    if tarfile.is_tarfile(archive):
        return _tar_members(stack(tarfile.open(archive)))
    raise ArchiveError(archive, "not a zip or tar archive", "check the source's url")


def unpack(
    archive: str | Path,
    folder: str | Path,
    suffixes: tuple[str, ...],
    max_bytes: int | None,
) -> Unpacked:
    """Unpack the members of ``archive`` whose names end with ``suffixes`` into ``folder``.

    ``max_bytes`` caps the total bytes written (None: no cap). See the module doc.
    """
    archive, folder = Path(archive), Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".unpacking",
                                    dir=folder.parent))
    result = Unpacked()
    seen: dict[str, str] = {}
    total = 0
    try:
        with ExitStack() as stack:
            for member in _members(archive, stack.enter_context):
                if member.kind == "dir" or not member.name.lower().endswith(suffixes):
                    continue
                rel = safe_member_path(member.name)
                reason = None
                if rel is None:
                    reason = "path leaves the target folder (absolute or '..'); not unpacked"
                elif member.kind != "file":
                    reason = f"a {member.kind}, not a regular file; not unpacked"
                elif str(rel).lower() in seen:
                    reason = f"same path as the earlier member {seen[str(rel).lower()]!r}"
                if reason:
                    result.skipped.append({"file": member.name, "reason": reason})
                    continue
                seen[str(rel).lower()] = member.name
                budget = None if max_bytes is None else max_bytes - total
                if budget is not None and member.size > budget:
                    raise _OverCap
                target = staging / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    with _open_member(member) as src, open(target, "wb") as dst:
                        total += _copy_capped(src, dst, budget)
                except _Unreadable as exc:
                    raise ArchiveError(
                        archive, f"member {member.name!r} cannot be read ({exc})",
                        "the download is damaged: check the source's url and sha256",
                    ) from None
                result.files.append(folder / rel)
        if folder.exists():
            shutil.rmtree(folder)
        staging.rename(folder)
    except _OverCap:
        raise ArchiveError(
            archive, f"unpacks to more than the {max_bytes / 2**20:g} MB limit",
            "raise the download size limit if this archive is expected to be this large",
        ) from None
    except _DAMAGED as exc:
        raise ArchiveError(
            archive, f"damaged archive ({type(exc).__name__}: {exc})",
            "check the source's url and sha256",
        ) from None
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    result.files.sort()
    return result
