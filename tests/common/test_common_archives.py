"""Hostile and broken archives (issue 14, item 11, and the protections that already held)."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile

import pytest
from scievals.common.archives import ArchiveError, safe_member_path, unpack

WANTED = (".wsp", ".fcs")
MB = 2**20


def _zip(path, members: dict[str, bytes]):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _tar(path, members: list[tarfile.TarInfo | tuple[str, bytes]]):
    with tarfile.open(path, "w:gz") as tf:
        for item in members:
            if isinstance(item, tarfile.TarInfo):
                tf.addfile(item)
            else:
                name, data = item
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    return path


def _files(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_same_name_in_two_folders_keeps_both(tmp_path):
    # The reported case: 5 members, two called sample.fcs; 4 files were left on disk.
    archive = _zip(tmp_path / "a.zip", {
        "donor1/sample.fcs": b"one", "donor2/sample.fcs": b"two", "study.wsp": b"<ws/>",
        "donor1/other.fcs": b"three", "donor2/x.fcs": b"four", "readme.txt": b"ignored",
    })
    out = tmp_path / "out"
    result = unpack(archive, out, WANTED, None)
    assert _files(out) == ["donor1/other.fcs", "donor1/sample.fcs", "donor2/sample.fcs",
                           "donor2/x.fcs", "study.wsp"]
    assert len(result.files) == 5 and result.skipped == []
    assert (out / "donor1" / "sample.fcs").read_bytes() == b"one"
    assert (out / "donor2" / "sample.fcs").read_bytes() == b"two"


def test_members_landing_on_the_same_file_are_refused(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("d/s.fcs", b"first")
        with pytest.warns(UserWarning, match="Duplicate name"):
            zf.writestr("d/s.fcs", b"second")  # zip allows the same name twice
        zf.writestr("d/S.FCS", b"third")  # the same file on a case-insensitive file system
    archive = tmp_path / "dup.zip"
    archive.write_bytes(buffer.getvalue())
    result = unpack(archive, tmp_path / "out", WANTED, None)
    assert _files(tmp_path / "out") == ["d/s.fcs"]
    assert (tmp_path / "out" / "d" / "s.fcs").read_bytes() == b"first"
    assert [s["file"] for s in result.skipped] == ["d/s.fcs", "d/S.FCS"]
    assert all("same path as the earlier member 'd/s.fcs'" in s["reason"] for s in result.skipped)


def test_unpacked_size_is_capped_not_only_the_download(tmp_path):
    # 1 MB of zeros deflates to about 1 KB: the download passes any limit, the unpack must not.
    archive = _zip(tmp_path / "bomb.zip", {"a.fcs": b"\0" * MB, "b.fcs": b"\0" * MB})
    assert archive.stat().st_size < 10_000
    out = tmp_path / "out"
    with pytest.raises(ArchiveError, match=r"unpacks to more than the 1\.5 MB limit"):
        unpack(archive, out, WANTED, int(1.5 * MB))
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bomb.zip"]  # no staging folder left
    assert len(unpack(archive, out, WANTED, 2 * MB).files) == 2  # exactly at the cap: fine


def test_size_cap_counts_the_bytes_written():
    from scievals.common import archives

    with pytest.raises(archives._OverCap):
        archives._copy_capped(io.BytesIO(b"\0" * (MB + 1)), io.BytesIO(), MB)
    assert archives._copy_capped(io.BytesIO(b"\0" * MB), io.BytesIO(), MB) == MB


def test_a_member_whose_header_lies_about_its_size_is_refused(tmp_path):
    # A zip whose headers claim 10 bytes for a 1 MB member passes the declared-size check;
    # its data then fail the zip's own check, and nothing is unpacked.
    archive = _zip(tmp_path / "liar.zip", {"a.fcs": b"\0" * MB})
    data = bytearray(archive.read_bytes())
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo("a.fcs")
    for offset in (info.header_offset + 22, data.rfind(b"PK\x01\x02") + 24):
        data[offset:offset + 4] = (10).to_bytes(4, "little")  # uncompressed size fields
    archive.write_bytes(bytes(data))
    with pytest.raises(ArchiveError, match=r"member 'a\.fcs' cannot be read \(BadZipFile\)"):
        unpack(archive, tmp_path / "out", WANTED, MB // 2)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["../escape.fcs", "a/../../escape.fcs", "/tmp/escape.fcs",
                                  "C:/escape.fcs", "..\\escape.fcs"])
def test_members_leaving_the_folder_are_refused(tmp_path, name):
    archive = _zip(tmp_path / "evil.zip", {name: b"x", "ok/good.fcs": b"y"})
    out = tmp_path / "deep" / "out"
    result = unpack(archive, out, WANTED, None)
    assert _files(out) == ["ok/good.fcs"]
    assert result.skipped == [{"file": name, "reason":
                               "path leaves the target folder (absolute or '..'); not unpacked"}]
    assert sorted(p.name for p in tmp_path.rglob("escape.fcs")) == []


def test_tar_links_and_traversal_never_leave_the_folder(tmp_path):
    outside = tmp_path / "outside.fcs"
    outside.write_bytes(b"secret")
    link = tarfile.TarInfo("link.fcs")
    link.type, link.linkname = tarfile.SYMTYPE, str(outside)
    hard = tarfile.TarInfo("hard.fcs")
    hard.type, hard.linkname = tarfile.LNKTYPE, "../outside.fcs"
    archive = _tar(tmp_path / "evil.tar.gz",
                   [link, hard, ("../up.fcs", b"u"), ("/abs.fcs", b"a"), ("in/ok.wsp", b"w")])
    out = tmp_path / "out"
    result = unpack(archive, out, WANTED, None)
    assert _files(out) == ["in/ok.wsp"]
    assert not any(p.is_symlink() for p in out.rglob("*"))
    reasons = {s["file"]: s["reason"] for s in result.skipped}
    assert reasons["link.fcs"].startswith("a link") and reasons["hard.fcs"].startswith("a link")
    assert set(reasons) == {"link.fcs", "hard.fcs", "../up.fcs", "/abs.fcs"}
    assert outside.read_bytes() == b"secret" and not (tmp_path / "up.fcs").exists()


def test_zip_symlink_member_is_refused(tmp_path):
    info = zipfile.ZipInfo("s.fcs")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive = tmp_path / "l.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(info, "/etc/passwd")
    result = unpack(archive, tmp_path / "out", WANTED, None)
    assert result.files == [] and result.skipped[0]["reason"].startswith("a link")


def test_truncated_archive_is_one_error_and_keeps_the_previous_unpack(tmp_path):
    archive = _tar(tmp_path / "a.tar.gz", [("x.fcs", bytes(range(256)) * 4000)])
    out = tmp_path / "out"
    unpack(archive, out, WANTED, None)
    before = (out / "x.fcs").read_bytes()
    archive.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    with pytest.raises(ArchiveError) as info:
        unpack(archive, out, WANTED, None)
    assert str(archive) in info.value.one_line() and "\n" not in info.value.one_line()
    assert (out / "x.fcs").read_bytes() == before


def test_not_an_archive(tmp_path):
    junk = tmp_path / "page.html"
    junk.write_text("<html>gone</html>")
    with pytest.raises(ArchiveError, match="not a zip or tar archive"):
        unpack(junk, tmp_path / "out", WANTED, None)


def test_safe_member_path():
    assert str(safe_member_path("./a//b/c.fcs")) == "a/b/c.fcs"
    assert str(safe_member_path("a\\b.fcs")) == "a/b.fcs"
    assert [safe_member_path(n) for n in ("", "..", "a/..", "\\x.fcs", "d:x.fcs")] == [None] * 5
