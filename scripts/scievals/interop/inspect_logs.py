"""inspect_ai logs (log schema version 2): ``.eval`` zips and ``.json`` documents, read as the
documented JSON with the standard library (docs/importing-logs.md says why not ``read_eval_log``).

- ``.json``: one ``EvalLog`` (``version``, ``status``, ``eval``, ``results``, ``samples``).
- ``.eval``: a zip of ``header.json`` (the log without samples; absent while a run is going
  or after a crash: ``_journal/start.json`` then holds the ``eval`` spec) and one
  ``samples/<id>_epoch_<k>.json`` per ``EvalSample``. inspect_ai >= 0.3.1xx compresses the
  entries with zstd (zip method 93), which Python reads natively from 3.14; before that the
  ``zstandard`` package of the ``interop`` extra decompresses them (checked against the
  entry's CRC-32, so a damaged entry is said, not read).

Each sample's ``scores`` {scorer: Score} gives one metric per scorer (a dict-valued Score one
per key, ``scorer/key``); ``Score.value`` becomes a float as inspect's ``value_to_float``
makes it: "C" 1, "P" 0.5, "I" and "N" 0, bools and numbers as numbers, "yes"/"true" 1,
"no"/"false" 0, a numeric string its number. A value it cannot convert inspect counts as 0
with a warning: so does this reader, and the import says how many. An item is the sample
``id``; its ``epoch`` a repeated sample of it.
"""

from __future__ import annotations

import itertools
import json
import math
import struct
import zipfile
import zlib
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.interop.runs import ImportedRun, Usage, add_model_usage, finished
from scievals.interop.runs import number as json_float

LOG_VERSION = 2
ZSTD = 93  # the zip compression method number of Zstandard
LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
# Entries are read in pieces and never beyond MAX_ENTRY_BYTES (``import --max-entry-mb``):
# inspect_ai's samples are kilobytes to a few megabytes, a zip bomb's one entry gigabytes.
MAX_ENTRY_BYTES = 256 * 1000**2
HOLD_BYTES = 16 * 1000**2  # entries up to this are read once; larger ones measured first
READ_CHUNK = 1 << 20
EXTRA_FIX = ("pip install -e '.[interop]' (the zstandard package), or convert the log with "
             "`inspect log convert --to json`")


def looks_like_inspect(data) -> bool:
    return isinstance(data, dict) and isinstance(data.get("eval"), dict) and "version" in data


def read_json_log(path: Path, data: dict, streamed=None) -> ImportedRun:
    """An inspect_ai ``.json`` log already parsed; ``streamed``: its samples one at a time
    when ``data`` is the log without them (:mod:`scievals.interop.json_stream`)."""
    _check_version(path, data.get("version"))
    samples = _nonempty(streamed) if streamed is not None else data.get("samples")
    if not samples:
        raise ScievalsError(path, f"inspect_ai log (status {data.get('status')}) without "
                            "samples", "it was written without samples (--no-log-samples) "
                            "or before any finished: nothing per item to compare")
    return _run(path, "inspect_ai .json", data, samples)


def read_eval_zip(path: Path) -> ImportedRun:
    """An inspect_ai ``.eval`` log."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ScievalsError(path, f"not a readable zip ({exc}): the .eval log is cut or "
                            "damaged", "copy it again from where inspect_ai wrote it") from None
    with archive:
        names = archive.namelist()
        if "header.json" in names:
            header = _entry(path, archive, "header.json")
        elif "_journal/start.json" in names:
            header = _entry(path, archive, "_journal/start.json")
        else:
            raise ScievalsError(path, "a zip without header.json or _journal/start.json: not "
                                "an inspect_ai .eval log", "give an inspect_ai log")
        if not looks_like_inspect(header):
            raise ScievalsError(path, "its header is not an inspect_ai log (no eval spec)",
                                "give an inspect_ai log")
        _check_version(path, header.get("version"))
        sample_names = sorted(n for n in names if n.startswith("samples/")
                              and n.endswith(".json"))
        if not sample_names:
            raise ScievalsError(path, f"inspect_ai .eval log (status "
                                f"{header.get('status', 'started')}) without samples",
                                "it was written without samples or before any finished")
        if "header.json" not in names:
            header.setdefault("status", "started (no header.json: the run did not finish)")
        # one sample entry read at a time, kept only as its scores
        return _run(path, "inspect_ai .eval", header,
                    (_entry(path, archive, name) for name in sample_names))


def _nonempty(iterator):
    """``iterator`` again, or None when it yields nothing."""
    iterator = iter(iterator)
    first = next(iterator, _END)
    if first is _END:
        return None
    return itertools.chain([first], iterator)


_END = object()


def _check_version(path: Path, version) -> None:
    if version != LOG_VERSION:
        raise ScievalsError(path, f"inspect_ai log schema version {version!r}; this reader "
                            f"knows version {LOG_VERSION}",
                            "convert it with a current inspect_ai (`inspect log convert`)")


def _entry(path: Path, archive: zipfile.ZipFile, name: str):
    """One zip entry parsed as JSON, read through :func:`_entry_bytes` (size-capped)."""
    try:
        raw = _entry_bytes(path, archive, archive.getinfo(name))
        return json.loads(raw)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
        raise ScievalsError(f"{path}:{name}", f"damaged entry ({exc})",
                            "copy the log again from where inspect_ai wrote it") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ScievalsError(f"{path}:{name}", f"not JSON ({exc})",
                            "the entry is damaged: copy the log again") from None


def _entry_bytes(path: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The entry's bytes, never more than MAX_ENTRY_BYTES of them: refused before reading
    when its header declares more, and while reading when it expands beyond (a header can
    lie). Decompression is streamed in READ_CHUNK pieces; the first HOLD_BYTES are kept as
    they come, and an entry that grows past them is first measured to its end without
    being kept (so a bomb costs a chunk of memory, not the cap) and only then read again."""
    cap = MAX_ENTRY_BYTES
    if info.file_size > cap:
        raise EntryTooLarge(path, info.filename, f"declares {info.file_size:,} bytes")
    parts, size, crc = [], 0, 0
    for chunk in _chunks(path, archive, info):
        size += len(chunk)
        if size > cap:
            raise EntryTooLarge(path, info.filename, f"expands past {cap:,} bytes")
        crc = zlib.crc32(chunk, crc)
        if parts is not None:
            parts.append(chunk)
            if size > HOLD_BYTES:
                parts = None  # measured to the end first, then read again
    if crc != info.CRC or size != info.file_size:
        raise zipfile.BadZipFile(f"bad CRC-32 or size of {info.filename}")
    if parts is None:
        parts = list(_chunks(path, archive, info))
    return b"".join(parts)


class EntryTooLarge(ScievalsError):
    """An entry beyond the cap: one line naming the log, the entry and the way out."""

    def __init__(self, path: Path, name: str, what: str):
        super().__init__(f"{path}:{name}", f"entry {what}, more than the "
                         f"{MAX_ENTRY_BYTES / 1e6:g} MB an entry may hold (a zip bomb, or a "
                         "sample far larger than inspect_ai writes)",
                         "check where the log came from; to read it anyway, raise the cap "
                         "with --max-entry-mb")


def _chunks(path: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo):
    """The entry's decompressed bytes in pieces of at most READ_CHUNK."""
    if info.compress_type == ZSTD and not _stdlib_reads_zstd():
        yield from _zstd_chunks(path, archive, info)
        return
    with archive.open(info) as handle:  # stored, deflate (and zstd from Python 3.14)
        while chunk := handle.read(READ_CHUNK):
            yield chunk


def _stdlib_reads_zstd() -> bool:
    return ZSTD in getattr(zipfile, "compressor_names", {}) and hasattr(zipfile, "ZIP_ZSTANDARD")


def _zstd_chunks(path: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo):
    try:
        import zstandard  # the interop extra: only for zstd-compressed .eval logs
    except ModuleNotFoundError:
        raise ScievalsError(path, "its entries are zstd-compressed (as inspect_ai writes "
                            ".eval logs) and the zstandard package is not installed",
                            EXTRA_FIX) from None
    handle = archive.fp
    handle.seek(info.header_offset)
    local = handle.read(30)
    if len(local) != 30 or local[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"bad local header of {info.filename}")
    name_length, extra_length = struct.unpack("<HH", local[26:30])
    handle.seek(info.header_offset + 30 + name_length + extra_length)
    compressed = handle.read(info.compress_size)  # at most the file's size: no expansion
    if len(compressed) != info.compress_size:
        raise zipfile.BadZipFile(f"{info.filename} is cut short")
    try:  # stream_reader's read(n) returns at most n bytes, whatever the frame header says
        reader = zstandard.ZstdDecompressor().stream_reader(compressed, read_across_frames=True)
        while chunk := reader.read(READ_CHUNK):
            yield chunk
    except zstandard.ZstdError as exc:
        raise zipfile.BadZipFile(f"zstd: {exc}") from None


def to_float(value) -> float | None:
    """inspect's ``value_to_float`` (module docstring); None for a value it cannot convert."""
    if isinstance(value, str) and value in LETTERS:
        return LETTERS[value]
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return json_float(value)  # NaN, inf and huge values: counted and left out by finished
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("yes", "true"):
            return 1.0
        if lowered in ("no", "false"):
            return 0.0
        try:
            number = float(lowered)
        except ValueError:
            return None
        return number if number == number and abs(number) != float("inf") else None
    return None


def _run(path: Path, fmt: str, log: dict, samples: list) -> ImportedRun:
    spec = log["eval"]
    task, model = str(spec.get("task", "")), str(spec.get("model", ""))
    if not task or not model:
        raise ScievalsError(path, "inspect_ai log without eval.task or eval.model",
                            "give a log inspect_ai wrote")
    records, notes = [], []
    unconverted, lists, errored, failed = 0, set(), 0, set()
    spent = Usage()  # tokens and cost, errored samples' too: summed in this one pass
    for k, sample in enumerate(samples):
        if not isinstance(sample, dict) or "id" not in sample:
            raise ScievalsError(f"{path}: sample {k}", "not an EvalSample (no id)",
                                "give a log inspect_ai wrote")
        add_model_usage(spent, sample)
        scores = sample.get("scores") or {}
        if not scores:
            errored += 1
            failed.add((task, str(sample["id"])))
            continue
        item, epoch = str(sample["id"]), sample.get("epoch", 1)
        if not isinstance(epoch, int) or isinstance(epoch, bool) or not isinstance(scores,
                                                                                   dict):
            raise ScievalsError(f"{path}: sample {item}", "not an EvalSample (epoch "
                                f"{epoch!r}, scores of type {type(scores).__name__})",
                                "give a log inspect_ai wrote")
        for scorer, score in scores.items():
            if not isinstance(score, dict) or "value" not in score:
                raise ScievalsError(f"{path}: sample {item} epoch {epoch}",
                                    f"score {scorer!r} is not a Score (no value)",
                                    "give a log inspect_ai wrote")
            value = score["value"]
            parts = (value.items() if isinstance(value, dict) else [(None, value)])
            for key, part in parts:
                metric = scorer if key is None else f"{scorer}/{key}"
                if isinstance(part, list):
                    lists.add(metric)
                    continue
                number = to_float(part)
                if number is None:
                    unconverted += 1
                    number = 0.0
                records.append((task, metric, item, epoch, number))
    status = str(log.get("status", ""))
    if status and status != "success":
        notes.append(f"status {status}: the scored samples are imported")
    if errored:
        notes.append(f"{errored} sample(s) without a score (errors or unscored) left out")
    if unconverted:
        notes.append(f"{unconverted} score value(s) inspect's value_to_float cannot convert "
                     "counted 0, as inspect counts them")
    if lists:
        notes.append(f"list-valued scores of {sorted(lists)} left out (no per-item number)")
    reported = {}
    for score in (log.get("results") or {}).get("scores") or []:
        for name, metric in (score.get("metrics") or {}).items():
            value = metric.get("value") if isinstance(metric, dict) else None
            if isinstance(value, (int, float)) and math.isfinite(json_float(value)):
                reported[f"{score.get('name')}/{name}"] = json_float(value)
    version = spec.get("packages", {}).get("inspect_ai") if isinstance(
        spec.get("packages"), dict) else None
    label = f"{fmt} (log schema {LOG_VERSION}" + (f", inspect_ai {version})" if version else ")")
    declared = {(task, m): (None, False) for m in {r[1] for r in records}}
    run = finished(path, label, model, records, declared, reported, notes, failed)
    run.usage = {task: spent}
    return run
