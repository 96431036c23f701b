"""A ClinPGx zip whose table inflates to gigabytes (issue 19, item 4).

The probe: a 14 MB ``variantAnnotations.zip`` whose table unpacks to 3.2 GB ended in a bare
``MemoryError`` (the tables were read whole). The zip is built by hand here: 3,200 copies of
one deflate block of 1 MB of zeros (deflate restarts after a full flush, so the blocks are
byte-identical) make a 3.3 MB archive that inflates to 3.2 GB, without compressing 3.2 GB in
the test.
"""

from __future__ import annotations

import struct
import time
import zlib

import pytest
from scievals.autogkb import data
from scievals.autogkb.data import DownloadFailed

MB = 2**20
DEFAULT_CAP = 200 * MB  # max_download_mb's default (config/schemas/data_source.schema.yaml)
SMALL_TABLE = b"PMID\tDrug(s)\tSentence\n1\twarfarin\ts\n"


def _zeros_stream(mb: int) -> bytes:
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = deflate.compress(b"\0" * MB) + deflate.flush(zlib.Z_FULL_FLUSH)
    return block * mb + deflate.flush()


def _zip(path, members: list[tuple[str, int, int, int, bytes]]):
    """A zip64-sized archive from (name, method, declared size, crc, stored bytes) members."""
    local, central = b"", b""
    for name, method, size, crc, payload in members:
        raw = name.encode()
        extra = struct.pack("<HHQQ", 1, 16, size, len(payload))  # zip64: sizes, then offset
        offset = len(local)
        local += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, method, 0, 0x21, crc,
                             0xFFFFFFFF, 0xFFFFFFFF, len(raw), len(extra)) + raw + extra + payload
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, method, 0, 0x21, crc,
                               0xFFFFFFFF, 0xFFFFFFFF, len(raw), len(extra), 0, 0, 0, 0,
                               offset) + raw + extra
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central),
                      len(local), 0)
    path.write_bytes(local + central + end)
    return path


def _bomb(path, declared: int):
    stream = _zeros_stream(3200)  # 3,200 MB = 3.2 GB inflated
    # The crc is never reached: the unpacker stops at its cap (or zipfile at the declared size).
    members = [(t, 0, len(SMALL_TABLE), zlib.crc32(SMALL_TABLE), SMALL_TABLE)
               for t in data.CLINPGX_TABLES if t != "var_drug_ann.tsv"]
    members.append(("var_drug_ann.tsv", 8, declared, 0, stream))
    return _zip(path, members)


def test_the_hand_built_zip_is_a_real_zip(tmp_path):
    # The builder itself, on an honest small member: zipfile reads it back byte for byte.
    import zipfile

    stream = _zeros_stream(2)
    archive = _zip(tmp_path / "ok.zip", [("a.tsv", 8, 2 * MB, zlib.crc32(b"\0" * 2 * MB), stream)])
    with zipfile.ZipFile(archive) as zf:
        assert zf.read("a.tsv") == b"\0" * 2 * MB


@pytest.mark.parametrize("declared, message", [
    (3200 * MB, r"unpacks to more than the 200 MB limit"),  # honest size: refused before copying
    (1000, r"cannot be read"),  # a size that lies: the stream does not end where it says
])
def test_table_that_inflates_to_gigabytes_is_one_line(tmp_path, declared, message):
    archive = _bomb(tmp_path / "variantAnnotations.zip", declared)
    assert archive.stat().st_size < 4 * MB
    folder = tmp_path / "raw"
    folder.mkdir()
    started = time.monotonic()
    with pytest.raises(DownloadFailed, match=message) as caught:
        data.unpack_tables(archive, folder, DEFAULT_CAP)
    assert time.monotonic() - started < 20  # copying at most the 200 MB cap, never 3.2 GB
    assert "\n" not in str(caught.value) and "variantAnnotations.zip" in str(caught.value)
    assert list(folder.iterdir()) == []  # no table and no staging folder left behind


def test_tables_within_the_cap_unpack(tmp_path):
    members = [(t, 0, len(SMALL_TABLE), zlib.crc32(SMALL_TABLE), SMALL_TABLE)
               for t in data.CLINPGX_TABLES]
    archive = _zip(tmp_path / "variantAnnotations.zip", members)
    out = data.unpack_tables(archive, tmp_path / "raw", DEFAULT_CAP)
    assert sorted(out) == sorted(data.CLINPGX_TABLES)
    assert (tmp_path / "raw" / "var_pheno_ann.tsv").read_bytes() == SMALL_TABLE
    assert sorted(p.name for p in (tmp_path / "raw").iterdir()) == sorted(data.CLINPGX_TABLES)
