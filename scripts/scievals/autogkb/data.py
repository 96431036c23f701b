"""autogkb data: the embedded ClinPGx subset, the ClinPGx download and PMC full texts.

No scoring here. Three sources:

- the embedded subset ``data/demo/autogkb/benchmark_annotations_subset.json`` (20 AutoGKB
  articles, ClinPGx rows, CC BY-SA 4.0; see that folder's README);
- the ClinPGx variant-annotation zip (``var_pheno_ann.tsv``, ``var_drug_ann.tsv``,
  ``var_fa_ann.tsv``, ``study_parameters.tsv``): fetched with a timeout, a size cap and an
  optional sha256, refused when the server sends HTML, unpacked member by member with every
  member name checked so nothing lands outside the target folder;
- article full texts from PubMed Central's open-access services: the OA web service gives
  each article's licence (articles outside the OA subset, or under a licence not in the
  configured list, are skipped with the reason recorded), the BioC API the text.
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import os
import shutil
import zipfile
from pathlib import Path, PurePosixPath
from xml.etree import ElementTree

from scievals.common import notices
from scievals.common.archives import ArchiveError, safe_member_path, unpack
from scievals.common.download import DownloadError, fetch
from scievals.common.errors import ScievalsError
from scievals.common.io import atomic_path, read_json, write_json

log = logging.getLogger(__name__)

REPO_DIR = Path(__file__).resolve().parents[3]
DEMO_DIR = REPO_DIR / "data" / "demo" / "autogkb"
DEMO_FILE = DEMO_DIR / "benchmark_annotations_subset.json"
CLINPGX_TABLES = ("var_pheno_ann.tsv", "var_drug_ann.tsv", "var_fa_ann.tsv",
                  "study_parameters.tsv")
ANNOTATION_TYPES = ("var_pheno_ann", "var_drug_ann", "var_fa_ann")
CLINPGX_URL = "https://api.clinpgx.org/v1/download/file/data/variantAnnotations.zip"


class DownloadFailed(Exception):
    """One line saying why a download gave nothing (the caller records or raises it)."""


# --- embedded subset -------------------------------------------------------------------------

def load_articles(path: str | Path = DEMO_FILE) -> dict[str, dict]:
    """PMCID -> {pmid, title, var_pheno_ann, var_drug_ann, var_fa_ann, study_parameters}."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise ScievalsError(path, "expected a JSON object keyed by PMCID",
                            "use the AutoGKB benchmark_annotations.json format")
    for pmcid, article in data.items():
        if not isinstance(article, dict) or not isinstance(article.get("var_pheno_ann"), list):
            raise ScievalsError(f"{path}: {pmcid}", "article lacks a var_pheno_ann list",
                                "use the AutoGKB benchmark_annotations.json format")
    return data


# --- checked download (scievals.common.download) ----------------------------------------

def download(source: str, dest: str | Path, cfg: dict, *, sha256: str = "", verify: bool = True,
             expect: str = "data", store: str | Path | None = None) -> str:
    """Fetch ``source`` to ``dest`` through the project's checked downloader; its sha256.

    On top of the downloader's checks (timeout, size cap, checksum, atomic write), a
    binary download that turns out to be an HTML page (servers answer errors and logins
    with one) is refused. Every failure is one :class:`DownloadFailed` line.
    """
    try:
        fetched = fetch(source, dest, sha256=sha256 or None, verify=verify,
                        timeout_s=float(cfg["download_timeout_s"]),
                        max_bytes=int(cfg["max_download_mb"] * 2**20), store=store)
    except DownloadError as exc:
        raise DownloadFailed(exc.one_line()) from None
    if expect == "data":
        with open(dest, "rb") as handle:
            head = handle.read(512).lstrip().lower()
        if head.startswith((b"<!doctype html", b"<html")):
            Path(dest).unlink()
            raise DownloadFailed(f"{source}: the server sent an HTML page, not data "
                                 "(an error or login page?)")
    return fetched.sha256


# --- ClinPGx zip -----------------------------------------------------------------------------

def max_unpacked_bytes(cfg: dict) -> int:
    """The tables may unpack to at most ``max_download_mb`` (the limit a download has)."""
    return int(cfg["max_download_mb"] * 2**20)


def safe_member_name(name: str) -> str:
    """The member's file name if it is a plain relative path, else DownloadFailed."""
    if safe_member_path(name) is None:
        raise DownloadFailed(f"zip member {name!r} points outside the target folder; "
                             "refusing the archive")
    return PurePosixPath(name.replace("\\", "/")).name


def unpack_tables(archive: str | Path, folder: str | Path, max_bytes: int | None) -> dict[str, str]:
    """Unpack the four ClinPGx TSVs of ``archive`` into ``folder``; name -> sha256.

    Every member name is checked and the four tables are looked for before anything is
    written, so a refused archive leaves no file behind. The bytes go through the shared
    unpacker (:mod:`scievals.common.archives`), which caps what it writes at ``max_bytes``
    (counted while copying): a small zip whose table inflates to gigabytes is one line.
    """
    folder = Path(folder)
    try:
        with zipfile.ZipFile(archive) as zf:
            names = {}
            for info in zf.infolist():
                name = safe_member_name(info.filename)
                if not info.is_dir() and name in CLINPGX_TABLES:
                    names[name] = info.filename  # the last member of a name wins
    except zipfile.BadZipFile:
        raise DownloadFailed(f"{archive}: not a zip archive") from None
    missing = [t for t in CLINPGX_TABLES if t not in names]
    if missing:
        raise DownloadFailed(f"{archive}: the zip lacks {missing}")
    staging = folder / ".tables.unpacked"
    try:
        unpacked = unpack(archive, staging, CLINPGX_TABLES, max_bytes)
        by_member = {str(PurePosixPath(p.relative_to(staging))): p for p in unpacked.files}
        out = {}
        for name, member in names.items():
            path = by_member.get(str(safe_member_path(member)))
            if path is None:  # skipped by the unpacker (a link, or a clash of paths)
                raise DownloadFailed(f"{archive}: member {member!r} is not a regular file")
            with open(path, "rb") as handle:
                out[name] = hashlib.file_digest(handle, "sha256").hexdigest()
        for name, member in names.items():
            os.replace(by_member[str(safe_member_path(member))], folder / name)
    except ArchiveError as exc:
        raise DownloadFailed(f"{archive}: {exc.problem} ({exc.fix})") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


def read_tsv(path: str | Path) -> list[dict]:
    """Rows of a ClinPGx TSV, empty cells as None (as the AutoGKB JSON has them)."""
    with open(path, encoding="utf-8", newline="") as handle:
        return [{k: (v if v != "" else None) for k, v in row.items()}
                for row in csv.DictReader(handle, delimiter="\t")]


def articles_from_clinpgx(folder: str | Path, pmids: dict[str, str]) -> dict[str, dict]:
    """PMCID -> article dict (the embedded format) for the given PMCID -> PMID map."""
    by_pmid = {pmid: pmcid for pmcid, pmid in pmids.items()}
    articles = {pmcid: {"pmid": pmid, "title": None, **{t: [] for t in ANNOTATION_TYPES}}
                for pmcid, pmid in pmids.items()}
    for table in ANNOTATION_TYPES:
        for row in read_tsv(Path(folder) / f"{table}.tsv"):
            pmcid = by_pmid.get(str(row.get("PMID") or "").strip())
            if pmcid:
                articles[pmcid][table].append(row)
    return articles


def other_rows(folder: str | Path, exclude_pmids: set[str]) -> list[dict]:
    """Annotation rows of articles outside ``exclude_pmids`` (for the drug vocabulary)."""
    rows = []
    for table in ANNOTATION_TYPES:
        rows += [r for r in read_tsv(Path(folder) / f"{table}.tsv")
                 if str(r.get("PMID") or "").strip() not in exclude_pmids]
    return rows


def fetch_clinpgx(cfg: dict, folder: str | Path) -> dict:
    """The ClinPGx zip from ``url`` (or ``path`` for ``source: file``), unpacked; a report.

    Checked against ``sha256``; ClinPGx publishes no checksum and changes monthly, so
    without a pinned one the download needs ``allow_unverified: true``. Verified copies
    are kept in ``<folder>/verified`` and reused.
    """
    folder = Path(folder)
    origin = cfg["path"] if cfg["source"] == "file" else cfg["url"]
    if not origin:
        if cfg["source"] == "file":
            raise DownloadFailed("autogkb.path is empty: give the local copy of the ClinPGx zip")
        raise DownloadFailed(f"autogkb.url is empty: set it to {CLINPGX_URL} with its sha256 "
                             "(or allow_unverified: true)")
    archive = folder / "variantAnnotations.zip"
    digest = download(origin, archive, cfg, sha256=cfg["sha256"],
                      verify=not cfg["allow_unverified"], store=folder / "verified")
    tables = unpack_tables(archive, folder, max_unpacked_bytes(cfg))
    return {"origin": origin, "zip_sha256": digest, "verified": bool(cfg["sha256"]),
            "tables": tables}


# --- PMC open-access full texts --------------------------------------------------------------

def oa_licence(xml_text: str, pmcid: str) -> str:
    """The licence the PMC OA web service gives for ``pmcid``, or DownloadFailed."""
    try:
        root = ElementTree.fromstring(xml_text)
    except ElementTree.ParseError as exc:
        raise DownloadFailed(f"{pmcid}: PMC OA service answered with invalid XML ({exc})") from None
    if root.tag.lower() == "html":
        raise DownloadFailed(f"{pmcid}: PMC OA service answered with an HTML page, not its XML")
    error = root.find(".//error")
    if error is not None:
        raise DownloadFailed(f"{pmcid}: not in the PMC open-access subset "
                             f"({error.get('code') or ''} {(error.text or '').strip()})".strip())
    record = root.find(".//record")
    if record is None:
        raise DownloadFailed(f"{pmcid}: PMC OA service returned no record")
    if record.get("retracted") == "yes":
        raise DownloadFailed(f"{pmcid}: retracted")
    return record.get("license") or "unknown"


def bioc_text(data, pmcid: str) -> str:
    """Plain text of a BioC JSON article: title, abstract and body passages, no references."""
    collections = data if isinstance(data, list) else [data]
    parts = []
    for collection in collections:
        for document in collection.get("documents", []) if isinstance(collection, dict) else []:
            for passage in document.get("passages", []):
                section = (passage.get("infons") or {}).get("section_type", "")
                if section in ("REF", "COMP_INT", "AUTH_CONT", "ACK_FUND"):
                    continue
                if passage.get("text"):
                    parts.append(passage["text"].strip())
    if not parts:
        raise DownloadFailed(f"{pmcid}: BioC answer holds no text")
    return "\n\n".join(parts)


def fetch_article(pmcid: str, cfg: dict, folder: str | Path) -> dict:
    """One article's text and licence, or a skip with its reason (never raises)."""
    folder = Path(folder)
    entry = {"pmcid": pmcid, "status": "skipped", "licence": None, "reason": None}
    try:
        oa_file = folder / f"{pmcid}.oa.xml"
        # Live answers about one article: no checksum can be pinned (the text's sha256 is
        # recorded instead).
        download(cfg["pmc"]["oa_url"].format(pmcid=pmcid), oa_file, cfg, verify=False,
                 expect="xml")
        licence = oa_licence(oa_file.read_text(encoding="utf-8"), pmcid)
        entry["licence"] = licence
        if licence not in cfg["pmc"]["licences"]:
            raise DownloadFailed(f"{pmcid}: licence {licence!r} is not in autogkb.pmc.licences")
        bioc_file = folder / f"{pmcid}.bioc.json"
        download(cfg["pmc"]["bioc_url"].format(pmcid=pmcid), bioc_file, cfg, verify=False,
                 expect="json")
        try:
            data = json.loads(bioc_file.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise DownloadFailed(f"{pmcid}: BioC answer is not JSON") from None
        text = bioc_text(data, pmcid)
        with atomic_path(folder / f"{pmcid}.txt") as tmp:
            tmp.write_text(text, encoding="utf-8")
        entry.update(status="ok", file=str(folder / f"{pmcid}.txt"), chars=len(text),
                     sha256=hashlib.sha256(text.encode("utf-8")).hexdigest())
    except DownloadFailed as exc:
        entry["reason"] = str(exc)
        log.warning("%s", exc)
    return entry


def fetch_articles(pmcids: list[str], cfg: dict, folder: str | Path) -> list[dict]:
    return [fetch_article(p, cfg, folder) for p in pmcids]




def dataset_label(origin: str, text_mode: str) -> str:
    """``autogkb-<demo|clinpgx>-evidence-not-fulltext`` or ``autogkb-<...>-fulltext``."""
    suffix = "evidence-not-fulltext" if text_mode == "evidence" else "fulltext"
    return f"autogkb-{origin}-{suffix}"


def test_pmcids(articles: dict[str, dict]) -> list[str]:
    """The benchmark's test articles: those with at least one phenotype annotation."""
    return sorted(p for p, a in articles.items() if a.get("var_pheno_ann"))


def _auto_fallback(cfg: dict, folder: Path, report: dict, reason: str) -> None:
    """``auto`` after a failed download: the newest ClinPGx copy kept by an earlier run
    (real results stay real offline), else the embedded subset; an end-of-run notice
    either way."""
    kept = sorted((folder / "verified").glob("*"), key=lambda p: p.stat().st_mtime)
    if kept and (not cfg["sha256"] or kept[-1].name == cfg["sha256"]):
        try:
            tables = unpack_tables(kept[-1], folder, max_unpacked_bytes(cfg))
        except DownloadFailed:
            tables = None
        if tables:
            report.update(origin="clinpgx", clinpgx={
                "origin": str(kept[-1]), "zip_sha256": kept[-1].name,
                "verified": bool(cfg["sha256"]), "tables": tables},
                fallback=f"ClinPGx download failed ({reason}); reused the copy kept from an "
                         f"earlier run (sha256 {kept[-1].name})")
            notices.record("fallback", "autogkb", "ClinPGx download failed; reused the ClinPGx "
                           f"copy of an earlier run (sha256 {kept[-1].name[:12]})",
                           details={"reason": reason})
            return
    report["fallback"] = f"ClinPGx download failed ({reason}); used the embedded subset"
    notices.record("fallback", "autogkb", "ClinPGx download failed; scored on the embedded "
                   "20-article subset (dataset label says demo)", details={"reason": reason})


def fetch_sources(cfg: dict, out_dir: str | Path, report_json: str | Path) -> dict:
    """The download step: ClinPGx tables per ``cfg['source']``, PMC texts in fulltext mode.

    ``demo`` uses the embedded subset only; ``remote``/``file`` fail with one line when the
    ClinPGx zip cannot be had; ``auto`` then falls back to the embedded subset and says so
    in the report (``fallback``), which the dataset label and the end-of-run notice repeat.
    """
    out_dir = Path(out_dir)
    report: dict = {"source": cfg["source"], "origin": "demo", "fallback": None,
                    "clinpgx": None, "articles": []}
    if cfg["source"] != "demo":
        try:
            report["clinpgx"] = fetch_clinpgx(cfg, out_dir / "clinpgx")
            report["origin"] = "clinpgx"
        except DownloadFailed as exc:
            if cfg["source"] != "auto":
                raise ScievalsError(f"autogkb.source={cfg['source']}", str(exc),
                                    "check the network, autogkb.url/path/sha256, or use "
                                    "source: demo") from None
            _auto_fallback(cfg, out_dir / "clinpgx", report, str(exc))
    if cfg["text_mode"] == "fulltext":
        pmcids = test_pmcids(load_articles(DEMO_FILE))
        report["articles"] = fetch_articles(pmcids, cfg, out_dir / "articles")
        skipped = [a for a in report["articles"] if a["status"] != "ok"]
        log.info("autogkb: %d of %d article texts fetched", len(pmcids) - len(skipped),
                 len(pmcids))
        if skipped:
            notices.record("skipped_source", "autogkb",
                           f"{len(skipped)} of {len(pmcids)} article texts not used "
                           "(licence, not open access or failed); see download report",
                           details={a["pmcid"]: a["reason"] for a in skipped})
    report["dataset"] = dataset_label(report["origin"], cfg["text_mode"])
    write_json(report_json, report)
    return report


# The job of autogkb_download: scievals.common.entry.run_stage imports this module
# for it alone, so the job loads its own stage's code and nothing else.
def stage_download(smk) -> None:
    """The ClinPGx zip (per ``autogkb.source``) and PMC full texts; source.json."""
    fetch_sources(dict(smk.params.cfg), smk.params.raw_dir, smk.output.source)
