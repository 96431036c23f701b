"""Gating's data step: the workspaces and FCS files to extract besides the embedded ones.

The embedded OMIP cases and FlowKit workspaces (``scievals.gating.paths``) are always
used. On top, by the section's data-source keys (``docs/adding-a-benchmark.md``):

- ``source: demo``: nothing else; nothing is fetched.
- ``source: auto`` (default): every configured source below; a source that fails is
  skipped, listed in the report and said again at the end of the run (a notice).
- ``source: remote``: the same, but a failed source stops the run.
- ``source: file``: also the ``.wsp``/``.fcs`` file, archive or folder at ``path``.
- ``url`` + ``sha256``: one more workspace file or archive (like a ``sources`` entry).

Sources: ``gating.sources`` (``{name, url, sha256}``: Zenodo, ImmPort or Cytobank exports;
``http(s)://``, ``file://`` or a local path; ``.zip``/``.tar.gz`` archives are unpacked)
and FlowRepository experiments (``gating.flowrepository``: ``FR-FCM-xxxx`` ids).
``GET https://flowrepository.org/list/<id>?client=<id>`` lists an experiment's files
with URLs and md5 sums; the API needs a client id (environment variable named by
``flowrepository_client_env``) and has been reported disabled since 2023.

Every file goes through ``scievals.common.download.fetch`` (checksum, size cap, atomic
write); a file already present with the right checksum is not fetched again. The report
(written atomically) lists every source's status and the workspaces obtained.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from urllib.parse import urlparse
from xml.etree import ElementTree

from scievals.common import download, notices
from scievals.common.archives import ArchiveError, unpack
from scievals.common.download import DownloadError
from scievals.common.errors import ScievalsError
from scievals.common.io import write_json

log = logging.getLogger(__name__)

FLOWREPOSITORY_API = "https://flowrepository.org/list/{id}"
WANTED_SUFFIXES = (".wsp", ".fcs")
# Keys of the gating section the download depends on (the rule's params).
SOURCE_KEYS = ("source", "url", "sha256", "path", "allow_unverified", "download_timeout_s",
               "max_download_mb", "flowrepository", "flowrepository_client_env", "sources")


class SourceFailed(Exception):
    """A one-line, user-facing reason why one source gave nothing."""


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, SourceFailed):
        return str(exc)
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]


def _max_bytes(cfg: dict) -> int | None:
    max_mb = cfg.get("max_download_mb", 200)
    return int(max_mb * 2**20) if max_mb else None


def _fetch_checked(url: str, dest: Path, cfg: dict, *, sha256: str | None = None,
                   md5: str | None = None) -> str:
    """Fetch one file through the shared downloader; "cached" or "downloaded"."""
    try:
        got = download.fetch(url, dest, sha256=sha256 or None, md5=md5 or None,
                             verify=not cfg.get("allow_unverified", False),
                             timeout_s=float(cfg.get("download_timeout_s", 30)),
                             max_bytes=_max_bytes(cfg))
    except DownloadError as exc:
        raise SourceFailed(exc.problem) from None
    return "cached" if got.status == "cached" else "downloaded"


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
    import httpx  # not at the top: the Snakefile imports this module at every start (~0.1 s)

    timeout = float(cfg.get("download_timeout_s", 30))
    max_mb = cfg.get("max_download_mb", 200)
    max_bytes = _max_bytes(cfg)
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
            status = _fetch_checked(item["url"], folder / name, cfg, md5=item["md5"])
            entry["files"].append({"file": str(folder / name), "status": status, "md5": item["md5"]})
        except (SourceFailed, OSError) as exc:
            entry["skipped"].append({"file": name, "reason": _one_line(exc)})
    if not entry["files"]:
        raise SourceFailed("no file could be fetched: " + "; ".join(
            f"{s['file']}: {s['reason']}" for s in entry["skipped"][:3]))
    return entry


def _url_source(source: dict, out_dir: Path, cfg: dict) -> dict:
    name = Path(source["name"]).name
    url = source["url"]
    suffix = "".join(Path(urlparse(url).path).suffixes[-2:]) if not Path(name).suffix else ""
    dest = out_dir / "sources" / (name + suffix)
    max_bytes = _max_bytes(cfg)
    try:
        status = _fetch_checked(url, dest, cfg, sha256=source.get("sha256"))
    except OSError as exc:
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


def _folder_source(folder: Path) -> dict:
    """A local folder's .wsp/.fcs files, used where they are (``source: file``)."""
    files = sorted(p for p in folder.rglob("*") if p.is_file()
                   and p.name.lower().endswith(WANTED_SUFFIXES))
    if not files:
        raise SourceFailed(f"folder {folder} holds no .wsp or .fcs file")
    return {"source": str(folder), "kind": "folder", "files": [
        {"file": str(f), "status": "local"} for f in files], "skipped": []}


def _main_sources(cfg: dict) -> list[dict]:
    """The section's own url/sha256 and, for ``source: file``, its path, as sources."""
    sources = []
    if cfg.get("url"):
        name = Path(urlparse(cfg["url"]).path).name or "main"
        sources.append({"name": name, "url": cfg["url"], "sha256": cfg.get("sha256")})
    if cfg.get("source") == "file":
        if not cfg.get("path"):
            raise ScievalsError("config: gating.path", "source is 'file' but no path is set",
                                "set gating.path to a .wsp file, an archive or a folder")
        path = Path(os.path.expanduser(cfg["path"]))
        sources.append({"name": path.name, "url": str(path), "sha256": cfg.get("sha256"),
                        "folder": path.is_dir()})
    return sources


def _jobs(cfg: dict, out_dir: Path) -> list:
    """(label, origin, callable) per configured source, in a fixed order."""
    if cfg.get("source") == "demo":
        log.info("gating.source is 'demo': embedded cases only, nothing is fetched")
        return []
    jobs = []
    for s in _main_sources(cfg):
        if s.get("folder"):
            jobs.append((s["url"], f"path:{s['url']}", lambda p=Path(s["url"]): _folder_source(p)))
        else:
            jobs.append((s["name"], f"url:{s['name']}", lambda s=s: _url_source(s, out_dir, cfg)))
    jobs += [(exp_id, f"flowrepository:{exp_id}", lambda e=exp_id: _flowrepository(e, out_dir, cfg))
             for exp_id in cfg.get("flowrepository") or []]
    jobs += [(s["name"], f"url:{s['name']}", lambda s=s: _url_source(s, out_dir, cfg))
             for s in cfg.get("sources") or []]
    return jobs


def fetch(cfg: dict, out_dir, report_json) -> dict:
    """Fetch every configured source and write the report.

    A failed source is skipped and recorded as a notice (``source: auto``) or stops the
    job with one line (``source: remote`` and ``file``)."""
    out_dir = Path(out_dir)
    entries = []
    jobs = _jobs(cfg, out_dir)
    origins: dict[str, str] = {}
    if not jobs and cfg.get("source") != "demo":
        log.info("no download sources configured (gating.url, gating.flowrepository, "
                 "gating.sources)", extra={"terminal": False})  # the job's log only
    for label, origin, job in jobs:
        try:
            entry = job()
            entry["status"] = "ok"
            for f in entry["files"]:
                origins[f["file"]] = origin
            log.info("%s: %d file(s)", label, len(entry["files"]))
        except SourceFailed as exc:
            if cfg.get("source") in ("remote", "file"):
                raise ScievalsError(f"gating source {label}", str(exc),
                                    "fix or remove the source, or set gating.source: auto to "
                                    "skip failed sources") from None
            entry = {"source": label, "status": "failed", "reason": str(exc), "files": []}
            notices.record("skipped_source", "gating", f"source {label} skipped: {exc}")
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


# The job of gating_download: scievals.common.entry.run_stage imports this module
# for it alone, so the job loads its own stage's code and nothing else.
def stage_download(smk) -> None:
    """Workspace sources (FlowRepository, URLs, a local path) and data/raw/gating/source.json."""
    fetch(dict(smk.params.cfg), smk.params.out_dir, smk.output.source)
