"""Downloads through a local HTTP server on 127.0.0.1: failures, timeouts, HTML, hostile zips.

Every fault ends in a clear error (``DownloadFailed`` / ``ScievalsError``) or a recorded
skip, and nothing is ever written outside the target folder.
"""

from __future__ import annotations

import io
import json
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler

import pytest
from scievals.autogkb import data
from scievals.autogkb.data import DownloadFailed
from scievals.common.errors import ScievalsError
from support.quiet_http import QuietThreadingHTTPServer

TSV = {name: "PMID\tDrug(s)\tSentence\n1\twarfarin\ts\n" for name in data.CLINPGX_TABLES}


def _zip(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, text in members.items():
            zf.writestr(name, text)
    return buffer.getvalue()


OA_OK = ('<OA><records><record id="{id}" license="CC BY" retracted="no">'
         '<link format="tgz" href="x"/></record></records></OA>')
OA_NC = '<OA><records><record id="{id}" license="NO-CC CODE" retracted="no"/></records></OA>'
OA_ERR = '<OA><error code="idIsNotOpenAccess">not open access</error></OA>'
BIOC = {"documents": [{"passages": [
    {"infons": {"section_type": "TITLE"}, "text": "A title"},
    {"infons": {"section_type": "ABSTRACT"}, "text": "rs4149056 CC was associated."},
    {"infons": {"section_type": "REF"}, "text": "Reference list"}]}]}

ROUTES = {
    "/good.zip": (200, "application/zip", _zip(TSV)),
    "/escape.zip": (200, "application/zip", _zip({**TSV, "../../evil.tsv": "x"})),
    "/absolute.zip": (200, "application/zip", _zip({**TSV, "/tmp/evil.tsv": "x"})),
    "/partial.zip": (200, "application/zip", _zip({"var_pheno_ann.tsv": "PMID\n"})),
    "/html": (200, "text/html", b"<!DOCTYPE html><html><body>Please log in</body></html>"),
    "/html-as-zip": (200, "application/zip", b"<html><body>error</body></html>"),
    "/fail": (500, "text/plain", b"boom"),
    "/notzip": (200, "application/octet-stream", b"PK? not really a zip"),
    "/oa/PMC1": (200, "text/xml", OA_OK.format(id="PMC1").encode()),
    "/oa/PMC2": (200, "text/xml", OA_NC.format(id="PMC2").encode()),
    "/oa/PMC3": (200, "text/xml", OA_ERR.encode()),
    "/oa/PMC4": (200, "text/xml", OA_OK.format(id="PMC4").encode()),
    "/oa/PMC6": (200, "text/html", b"<!DOCTYPE html><html><body>Service down</body></html>"),
    "/bioc/PMC1": (200, "application/json", json.dumps(BIOC).encode()),
    "/bioc/PMC4": (200, "text/html", b"<html>maintenance</html>"),
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if "slow" in self.path:
            time.sleep(1.5)
        status, kind, body = ROUTES.get(self.path, (404, "text/plain", b"missing"))
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    httpd = QuietThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def cfg(server, route="/good.zip", source="remote", **extra):
    return {"source": source, "url": server + route, "sha256": "", "path": "",
            "allow_unverified": True, "download_timeout_s": 0.5, "max_download_mb": 1, "text_mode": "evidence",
            "pmc": {"oa_url": server + "/oa/{pmcid}", "bioc_url": server + "/bioc/{pmcid}",
                    "licences": ["CC BY", "CC0"]}, **extra}


def files_outside(root, folder):
    return [p for p in root.rglob("*") if p.is_file() and folder not in p.parents]


def test_good_zip_is_unpacked(server, tmp_path):
    report = data.fetch_clinpgx(cfg(server), tmp_path / "raw")
    assert sorted(report["tables"]) == sorted(data.CLINPGX_TABLES)
    assert data.read_tsv(tmp_path / "raw" / "var_drug_ann.tsv") == [
        {"PMID": "1", "Drug(s)": "warfarin", "Sentence": "s"}]


@pytest.mark.parametrize("route, message", [
    ("/fail", "HTTP 500"),
    ("/slow", "Timeout"),
    ("/html", "HTML page, not data"),
    ("/html-as-zip", "HTML page, not data"),
    ("/missing", "HTTP 404"),
    ("/notzip", "not a zip archive"),
    ("/partial.zip", "the zip lacks"),
    ("/escape.zip", "points outside the target folder"),
    ("/absolute.zip", "points outside the target folder"),
])
def test_faults_are_one_clear_line(server, tmp_path, route, message):
    folder = tmp_path / "raw"
    with pytest.raises(DownloadFailed, match=message):
        data.fetch_clinpgx(cfg(server, route), folder)
    assert files_outside(tmp_path, folder) == []
    # A refused archive writes no table at all (every member name is checked first).
    assert not any((folder / t).exists() for t in data.CLINPGX_TABLES)


def test_checksums(server, tmp_path):
    with pytest.raises(DownloadFailed, match="differs from the expected"):
        data.fetch_clinpgx(cfg(server, sha256="0" * 64), tmp_path / "raw")
    assert not (tmp_path / "raw" / "variantAnnotations.zip").exists()
    # Without a pinned sha256, a download needs allow_unverified: true.
    with pytest.raises(DownloadFailed, match="no checksum configured"):
        data.fetch_clinpgx(cfg(server, allow_unverified=False), tmp_path / "raw")
    digest = data.fetch_clinpgx(cfg(server), tmp_path / "raw")["zip_sha256"]
    pinned = data.fetch_clinpgx(cfg(server, sha256=digest, allow_unverified=False),
                                tmp_path / "raw")
    assert pinned["verified"] and (tmp_path / "raw" / "verified" / digest).is_file()


def test_size_cap(server, tmp_path):
    with pytest.raises(DownloadFailed, match="larger than"):
        data.download(server + "/good.zip", tmp_path / "x.zip",
                      cfg(server, max_download_mb=10 / 2**20), verify=False)
    assert not (tmp_path / "x.zip").exists()


def test_remote_failure_stops_auto_falls_back_and_says_so(server, tmp_path):
    with pytest.raises(ScievalsError, match="autogkb.source=remote.*HTTP 500"):
        data.fetch_sources(cfg(server, "/fail"), tmp_path / "raw", tmp_path / "report.json")
    report = data.fetch_sources(cfg(server, "/fail", source="auto"), tmp_path / "raw",
                        tmp_path / "report.json")
    assert report["origin"] == "demo" and "HTTP 500" in report["fallback"]
    assert report["dataset"] == "autogkb-demo-evidence-not-fulltext"
    ok = data.fetch_sources(cfg(server, source="auto"), tmp_path / "raw", tmp_path / "report.json")
    assert ok["origin"] == "clinpgx" and ok["fallback"] is None
    # Offline again after a real download: the kept copy is reused, never the demo.
    again = data.fetch_sources(cfg(server, "/fail", source="auto"), tmp_path / "raw",
                               tmp_path / "report.json")
    assert again["origin"] == "clinpgx" and "reused the copy kept" in again["fallback"]
    assert again["clinpgx"]["zip_sha256"] == ok["clinpgx"]["zip_sha256"]


def test_file_source_checks_path(server, tmp_path):
    with pytest.raises(ScievalsError, match="no such file"):
        data.fetch_sources(cfg(server, source="file", path=str(tmp_path / "nope.zip")),
                   tmp_path / "raw", tmp_path / "report.json")
    local = tmp_path / "copy.zip"
    local.write_bytes(ROUTES["/good.zip"][2])
    report = data.fetch_sources(cfg(server, source="file", path=str(local)), tmp_path / "raw",
                        tmp_path / "report.json")
    assert report["origin"] == "clinpgx"


def test_pmc_articles_record_licence_or_skip(server, tmp_path):
    folder = tmp_path / "articles"
    entries = {e["pmcid"]: e for e in data.fetch_articles(
        ["PMC1", "PMC2", "PMC3", "PMC4", "PMC5", "PMC6", "PMCslow"], cfg(server), folder)}
    assert entries["PMC1"]["status"] == "ok" and entries["PMC1"]["licence"] == "CC BY"
    text = (folder / "PMC1.txt").read_text()
    assert "rs4149056" in text and "Reference list" not in text
    assert entries["PMC2"]["status"] == "skipped"
    assert "licence 'NO-CC CODE' is not in autogkb.pmc.licences" in entries["PMC2"]["reason"]
    assert "not in the PMC open-access subset" in entries["PMC3"]["reason"]
    assert "not JSON" in entries["PMC4"]["reason"]
    assert "HTTP 404" in entries["PMC5"]["reason"]
    assert "HTML page" in entries["PMC6"]["reason"]
    assert "Timeout" in entries["PMCslow"]["reason"]
    assert all(entries[p]["status"] == "skipped" for p in ("PMC4", "PMC5", "PMC6", "PMCslow"))
    assert not (folder / "PMC2.txt").exists() and files_outside(tmp_path, folder) == []
