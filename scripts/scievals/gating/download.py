"""Best-effort download of workspaces and FCS files.

Two kinds of source, both optional:

- FlowRepository experiments (``gating.flowrepository``: ``FR-FCM-xxxx`` ids).
  ``GET https://flowrepository.org/list/<id>?client=<id>`` lists the experiment's
  FCS files and attachments (where ``.wsp`` files live) with URLs and md5 sums;
  each ``.wsp``/``.fcs`` file is fetched and its md5 checked. The API needs a client
  id from the FlowRepository admins (environment variable named by
  ``flowrepository_client_env``) and has been reported disabled since 2023, so
  every failure is one line in the report and the log, and the workflow goes on.
- Plain URL sources (``gating.sources``: ``{name, url, sha256}``), e.g. Zenodo,
  ImmPort or Cytobank exports: ``http(s)://``, ``file://`` or a local path, checked
  against its sha256. ``.zip``/``.tar.gz`` archives are unpacked by
  :func:`scievals.common.archives.unpack` (member folders kept, unsafe members
  refused, the unpacked size capped by ``max_download_mb`` too); their
  ``.wsp``/``.fcs`` members are used.

A file already present with the right checksum is not fetched again. The report
(written atomically) lists every source's status and the workspaces obtained.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse
from xml.etree import ElementTree

from scievals.common.archives import ArchiveError, unpack
from scievals.common.io import atomic_path, write_json

log = logging.getLogger(__name__)

FLOWREPOSITORY_API = "https://flowrepository.org/list/{id}"
WANTED_SUFFIXES = (".wsp", ".fcs")


class SourceFailed(Exception):
    """A one-line, user-facing reason why one source gave nothing."""


def _digest(path: Path, algorithm: str) -> str:
    h = hashlib.new(algorithm)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]


def _http_get(url: str, dest: Path, timeout_s: float, max_bytes: int | None,
              params: dict | None = None) -> None:
    import httpx

    with (atomic_path(dest) as tmp,
          httpx.stream("GET", url, params=params, timeout=timeout_s, follow_redirects=True) as resp):
        resp.raise_for_status()
        size = 0
        with open(tmp, "wb") as handle:
            for chunk in resp.iter_bytes():
                size += len(chunk)
                if max_bytes is not None and size > max_bytes:
                    raise SourceFailed(f"larger than the {max_bytes // 2**20} MB limit")
                handle.write(chunk)


def _fetch_checked(url: str, dest: Path, algorithm: str, expected: str | None, timeout_s: float,
                   max_bytes: int | None) -> str:
    """Fetch ``url`` to ``dest`` unless a checked copy is there; "cached" or "downloaded"."""
    if dest.exists() and expected and _digest(dest, algorithm) == expected.lower():
        return "cached"
    parsed = urlparse(url)
    if parsed.scheme in ("http", "https"):
        _http_get(url, dest, timeout_s, max_bytes)
    else:
        local = Path(unquote(parsed.path)) if parsed.scheme == "file" else Path(url)
        if not local.is_file():
            raise SourceFailed(f"local file {local} not found")
        with atomic_path(dest) as tmp:
            shutil.copyfile(local, tmp)
    if expected:
        actual = _digest(dest, algorithm)
        if actual != expected.lower():
            dest.unlink()
            raise SourceFailed(f"{algorithm} mismatch (expected {expected}, got {actual})")
    return "downloaded"


def _text(element, tag: str) -> str | None:
    child = element.find(tag)
    return child.text.strip() if child is not None and child.text else None


def parse_experiment_listing(xml_text: str) -> list[dict]:
    """Files of one FlowRepository experiment: name, url, md5, size, kind."""
    try:
        root = ElementTree.fromstring(xml_text)
    except ElementTree.ParseError as exc:
        raise SourceFailed(f"FlowRepository answered with invalid XML ({exc})") from None
    error = root.find(".//error")
    if error is not None and (error.text or "").strip():
        raise SourceFailed(f"FlowRepository API error: {error.text.strip()}")
    files = []
    for kind, tag in (("fcs", ".//fcs-files/fcs-file"), ("attachment", ".//attachments/attachment")):
        for item in root.findall(tag):
            name, url = _text(item, "file-name"), _text(item, "url")
            if not name or not url:
                continue
            size = _text(item, "file-size")
            files.append({"kind": kind, "file_name": name, "url": url, "md5": _text(item, "md5sum"),
                          "size": int(size) if size and size.isdigit() else None})
    return files


def _flowrepository(exp_id: str, out_dir: Path, cfg: dict) -> dict:
    import httpx

    timeout = float(cfg.get("download_timeout_s", 30))
    max_mb = cfg.get("max_download_mb", 200)
    max_bytes = int(max_mb * 2**20) if max_mb else None
    client_env = cfg.get("flowrepository_client_env", "FLOWREPOSITORY_CLIENT_ID")
    client = os.environ.get(client_env) if client_env else None
    entry = {"source": exp_id, "kind": "flowrepository", "files": [], "skipped": []}
    try:
        resp = httpx.get(FLOWREPOSITORY_API.format(id=exp_id),
                         params={"client": client} if client else None,
                         timeout=timeout, follow_redirects=True)
        resp.raise_for_status()
    except httpx.HTTPError as exc:
        hint = "" if client else f"; no API client id in ${client_env}"
        raise SourceFailed(f"FlowRepository API unreachable ({_one_line(exc)}){hint}") from None
    listing = parse_experiment_listing(resp.text)
    wanted = [f for f in listing if f["file_name"].lower().endswith(WANTED_SUFFIXES)]
    if not wanted:
        raise SourceFailed("the experiment lists no .wsp or .fcs files")
    folder = out_dir / "flowrepository" / exp_id
    for item in wanted:
        name = Path(item["file_name"]).name
        if max_bytes and item["size"] and item["size"] > max_bytes:
            entry["skipped"].append({"file": name, "reason": f"{item['size']} bytes > {max_mb} MB limit"})
            continue
        try:
            status = _fetch_checked(item["url"], folder / name, "md5", item["md5"], timeout, max_bytes)
            entry["files"].append({"file": str(folder / name), "status": status, "md5": item["md5"]})
        except (SourceFailed, httpx.HTTPError, OSError) as exc:
            entry["skipped"].append({"file": name, "reason": _one_line(exc)})
    if not entry["files"]:
        raise SourceFailed("no file could be fetched: " + "; ".join(
            f"{s['file']}: {s['reason']}" for s in entry["skipped"][:3]))
    return entry


def _url_source(source: dict, out_dir: Path, cfg: dict) -> dict:
    import httpx

    timeout = float(cfg.get("download_timeout_s", 30))
    max_mb = cfg.get("max_download_mb", 200)
    name = Path(source["name"]).name
    url = source["url"]
    suffix = "".join(Path(urlparse(url).path).suffixes[-2:]) if not Path(name).suffix else ""
    dest = out_dir / "sources" / (name + suffix)
    max_bytes = int(max_mb * 2**20) if max_mb else None
    try:
        status = _fetch_checked(url, dest, "sha256", source["sha256"], timeout, max_bytes)
    except (httpx.HTTPError, OSError) as exc:
        raise SourceFailed(_one_line(exc)) from None
    files, skipped = [dest], []
    if not dest.name.lower().endswith(WANTED_SUFFIXES):
        try:
            unpacked = unpack(dest, out_dir / "sources" / Path(name).stem, WANTED_SUFFIXES,
                              max_bytes)
        except ArchiveError as exc:
            raise SourceFailed(f"{exc.problem} ({exc.fix})") from None
        files, skipped = unpacked.files, unpacked.skipped
        for item in skipped:
            log.warning("%s: archive member %s skipped: %s", name, item["file"], item["reason"])
    if not files:
        raise SourceFailed("archive holds no usable .wsp or .fcs file")
    return {"source": source["name"], "kind": "url", "url": url, "status": status,
            "files": [{"file": str(f), "status": status} for f in files], "skipped": skipped}


def fetch(cfg: dict, out_dir, report_json) -> dict:
    """Fetch every configured source; never raises on a network or source failure."""
    out_dir = Path(out_dir)
    entries = []
    jobs = [(exp_id, f"flowrepository:{exp_id}", lambda e=exp_id: _flowrepository(e, out_dir, cfg))
            for exp_id in cfg.get("flowrepository") or []]
    jobs += [(s["name"], f"url:{s['name']}", lambda s=s: _url_source(s, out_dir, cfg))
             for s in cfg.get("sources") or []]
    origins: dict[str, str] = {}
    if not jobs:
        log.info("no download sources configured (gating.flowrepository, gating.sources)")
    for label, origin, job in jobs:
        try:
            entry = job()
            entry["status"] = "ok"
            for f in entry["files"]:
                origins[f["file"]] = origin
            log.info("%s: %d file(s)", label, len(entry["files"]))
        except SourceFailed as exc:
            entry = {"source": label, "status": "failed", "reason": str(exc), "files": []}
            log.warning("%s: %s", label, exc)
        entries.append(entry)
    files = sorted(origins)
    report = {
        "sources": entries,
        "workspaces": [f for f in files if f.lower().endswith(".wsp")],
        "fcs_files": [f for f in files if f.lower().endswith(".fcs")],
        "fcs_dirs": sorted({str(Path(f).parent) for f in files if f.lower().endswith(".fcs")}),
        "origins": origins,
        "failed": [e["source"] for e in entries if e["status"] != "ok"],
    }
    write_json(report_json, report)
    return report
