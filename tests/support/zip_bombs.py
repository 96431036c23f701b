"""Zip bombs shaped like inspect_ai ``.eval`` logs (a real header.json, one sample entry that
expands to ``size`` bytes of JSON), for the entry cap's tests and benchmarks/import_memory.py.

- ``zstd-honest``: a zstd entry (zip method 93, as inspect_ai writes) whose zip headers and
  zstd frame both declare the expanded size;
- ``zstd-lying``: the same, but the zip headers declare 1,000 bytes and the frame no size;
- ``deflate``: a deflate entry with an honest size (the stdlib's decompressor).

The sample is ``{"id": "q01", "epoch": 1, "scores": {}, "input": "aaaa..."}``: valid JSON, so
only its size is wrong with it."""

from __future__ import annotations

import json
import struct
import zipfile
import zlib
from pathlib import Path

KINDS = ("zstd-honest", "zstd-lying", "deflate")
HEADER = Path(__file__).resolve().parents[1] / "interop" / "data" / "inspect" / "b.json"


def _payload_chunks(size: int, chunk: int = 1 << 20):
    head, tail = b'{"id": "q01", "epoch": 1, "scores": {}, "input": "', b'"}'
    yield head
    left = size - len(head) - len(tail)
    while left > 0:
        yield b"a" * min(chunk, left)
        left -= chunk
    yield tail


def _header() -> bytes:
    log = json.loads(HEADER.read_text())
    log.pop("samples")
    return json.dumps(log).encode()


def write_bomb(path: Path, kind: str, size: int) -> Path:
    """A ``.eval`` whose sample entry expands to ``size`` bytes (compressed in a stream, so
    writing a 600 MB bomb does not hold 600 MB)."""
    crc, total = 0, 0
    for chunk in _payload_chunks(size):
        crc, total = zlib.crc32(chunk, crc), total + len(chunk)
    if kind == "deflate":
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("header.json", _header())
            with archive.open("samples/q01_epoch_1.json", "w", force_zip64=True) as handle:
                for chunk in _payload_chunks(size):
                    handle.write(chunk)
        return path
    import zstandard

    lying = kind == "zstd-lying"
    compressor = zstandard.ZstdCompressor(level=3, write_content_size=not lying)
    packer = compressor.compressobj(size=-1 if lying else total)
    packed = b"".join(packer.compress(c) for c in _payload_chunks(size)) + packer.flush()
    declared = 1000 if lying else total
    entries = [("header.json", _header(), None), ("samples/q01_epoch_1.json", packed,
                                                   (crc, declared))]
    out, central, offset = bytearray(), bytearray(), 0
    for name, data, sample in entries:
        if sample is None:  # the header: stored, its own size and CRC
            method, crc_, packed_size, raw_size = 0, zlib.crc32(data), len(data), len(data)
        else:
            method, (crc_, raw_size), packed_size = 93, sample, len(data)
        encoded = name.encode()
        local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 63, 0, method, 0, 0, crc_,
                            packed_size, raw_size, len(encoded), 0)
        central += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 63, 63, 0, method, 0, 0, crc_,
                               packed_size, raw_size, len(encoded), 0, 0, 0, 0, 0,
                               offset) + encoded
        out += local + encoded + data
        offset += len(local) + len(encoded) + len(data)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(entries), len(entries),
                      len(central), offset, 0)
    path.write_bytes(bytes(out + central + end))
    return path
