"""Gating's data step: source modes, checksums, archives, FlowRepository failures (no network)."""

from __future__ import annotations

import hashlib
import json
import zipfile

import httpx
import pytest
from scievals.common import download, notices
from scievals.common.errors import ScievalsError
from scievals.gating import data as D
from scievals.gating.paths import FLOWKIT_DIR

WSP = FLOWKIT_DIR / "8_color_data_set" / "8_color_ICS.wsp"
LISTING = """<?xml version="1.0"?><FlowRepository><api-version>1.0</api-version>
<public-experiments><experiment><id>FR-FCM-ZZZZ</id>
<fcs-files><fcs-file><file-name>s1.fcs</file-name><url>https://flowrepository.org/x/1/download</url>
<md5sum>{md5}</md5sum><file-size>10</file-size></fcs-file>
<fcs-file><file-name>huge.fcs</file-name><url>https://flowrepository.org/x/2/download</url>
<md5sum>00</md5sum><file-size>999999999999</file-size></fcs-file></fcs-files>
<attachments><attachment><file-name>study.wsp</file-name><url>https://flowrepository.org/x/3/download</url>
<md5sum>{md5_wsp}</md5sum><file-size>20</file-size></attachment>
<attachment><file-name>paper.pdf</file-name><url>https://flowrepository.org/x/4</url></attachment>
</attachments></experiment></public-experiments></FlowRepository>"""


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_url_sources_local_and_checked(tmp_path):
    cfg = {"sources": [
        {"name": "ics.wsp", "url": WSP.as_uri(), "sha256": _sha(WSP)},
        {"name": "bad.wsp", "url": str(WSP), "sha256": "0" * 64}]}
    report = D.fetch(cfg, tmp_path / "raw", tmp_path / "report.json")
    assert report["workspaces"] == [str(tmp_path / "raw" / "sources" / "ics.wsp")]
    failed = {e["source"]: e["reason"] for e in report["sources"] if e["status"] == "failed"}
    assert failed["bad.wsp"].startswith("sha256 ") and "differs from the expected 0000" in failed["bad.wsp"]
    assert not (tmp_path / "raw" / "sources" / "bad.wsp").exists()
    assert json.loads((tmp_path / "report.json").read_text()) == report
    again = D.fetch(cfg, tmp_path / "raw", tmp_path / "report.json")
    assert again["sources"][0]["status"] == "ok" and again["sources"][0]["files"][0]["status"] == "cached"


def test_zip_archives_are_unpacked(tmp_path):
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(WSP, "panel/8_color_ICS.wsp")
        zf.write(WSP, "../../escape/8_color_ICS.wsp")
        zf.writestr("notes.txt", "ignored")
    cfg = {"sources": [{"name": "cytobank_export", "url": str(archive), "sha256": _sha(archive)}]}
    report = D.fetch(cfg, tmp_path / "raw", tmp_path / "report.json")
    folder = tmp_path / "raw" / "sources" / "cytobank_export"
    assert report["workspaces"] == [str(folder / "panel" / "8_color_ICS.wsp")]
    assert [s["file"] for s in report["sources"][0]["skipped"]] == ["../../escape/8_color_ICS.wsp"]
    assert not (tmp_path / "escape").exists()


def test_flowrepository_unreachable_is_one_line(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise httpx.ConnectError("connection refused")

    monkeypatch.setattr(httpx, "get", refuse)
    monkeypatch.delenv("FLOWREPOSITORY_CLIENT_ID", raising=False)
    report = D.fetch({"flowrepository": ["FR-FCM-Z7YM"]}, tmp_path, tmp_path / "report.json")
    entry = report["sources"][0]
    assert entry["status"] == "failed" and "\n" not in entry["reason"]
    assert entry["reason"] == ("FlowRepository API unreachable (ConnectError: connection refused); "
                               "no API client id in $FLOWREPOSITORY_CLIENT_ID")
    assert report["failed"] == ["FR-FCM-Z7YM"] and report["workspaces"] == []


def test_flowrepository_listing_and_md5(tmp_path, monkeypatch):
    fcs_bytes, wsp_bytes = b"0123456789", WSP.read_bytes()[:20]
    xml = LISTING.format(md5=hashlib.md5(fcs_bytes).hexdigest(), md5_wsp="f" * 32)
    seen = {}

    def fake_get(url, params=None, **kwargs):
        seen["params"] = params
        return httpx.Response(200, text=xml, request=httpx.Request("GET", url))

    def fake_download(url, handle, hashes, *args):
        data = fcs_bytes if url.endswith("1/download") else wsp_bytes
        for digest in hashes.values():
            digest.update(data)
        handle.write(data)
        return len(data)

    monkeypatch.setattr(httpx, "get", fake_get)
    monkeypatch.setattr(download, "_download", fake_download)
    monkeypatch.setenv("FR_CLIENT", "abc")
    cfg = {"flowrepository": ["FR-FCM-ZZZZ"], "flowrepository_client_env": "FR_CLIENT",
           "max_download_mb": 100}
    report = D.fetch(cfg, tmp_path, tmp_path / "report.json")
    assert seen["params"] == {"client": "abc"}
    entry = report["sources"][0]
    assert entry["status"] == "ok"
    assert [f["file"].split("/")[-1] for f in entry["files"]] == ["s1.fcs"]
    skipped = {s["file"]: s["reason"] for s in entry["skipped"]}
    assert "MB limit" in skipped["huge.fcs"]
    assert skipped["study.wsp"].startswith("md5 ") and "differs from the expected fff" in skipped["study.wsp"]
    assert report["origins"][entry["files"][0]["file"]] == "flowrepository:FR-FCM-ZZZZ"


def test_listing_errors():
    with pytest.raises(D.SourceFailed, match="invalid XML"):
        D.parse_experiment_listing("<html>")
    with pytest.raises(D.SourceFailed, match="API error: API access disabled"):
        D.parse_experiment_listing("<FlowRepository><error>API access disabled</error></FlowRepository>")


def test_demo_fetches_nothing_even_with_sources(tmp_path):
    cfg = {"source": "demo", "url": str(WSP), "sha256": _sha(WSP),
           "sources": [{"name": "ics.wsp", "url": str(WSP), "sha256": _sha(WSP)}]}
    report = D.fetch(cfg, tmp_path / "raw", tmp_path / "report.json")
    assert report["sources"] == [] and report["workspaces"] == []
    assert not (tmp_path / "raw").exists()


def test_main_url_and_file_path_are_sources(tmp_path):
    cfg = {"source": "auto", "url": WSP.as_uri(), "sha256": _sha(WSP)}
    report = D.fetch(cfg, tmp_path / "raw", tmp_path / "report.json")
    assert report["workspaces"] == [str(tmp_path / "raw" / "sources" / "8_color_ICS.wsp")]
    folder = tmp_path / "mine"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.wsp").write_bytes(WSP.read_bytes())
    (folder / "notes.txt").write_text("x")
    report = D.fetch({"source": "file", "path": str(folder)}, tmp_path / "raw2", tmp_path / "r.json")
    assert report["workspaces"] == [str(folder / "sub" / "a.wsp")]
    assert report["origins"] == {str(folder / "sub" / "a.wsp"): f"path:{folder}"}
    with pytest.raises(ScievalsError, match="config: gating.path: source is 'file' but no path"):
        D.fetch({"source": "file"}, tmp_path / "raw3", tmp_path / "r.json")


def test_a_failed_source_is_a_notice_in_auto_and_an_error_in_remote(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bad = {"sources": [{"name": "bad.wsp", "url": str(WSP), "sha256": "0" * 64}]}
    out = tmp_path / "report.json"
    notices.start_job("gating_download", {}, [str(out)], tmp_path / "notices")
    try:
        D.fetch({"source": "auto", **bad}, tmp_path / "raw", out)
    finally:
        notices.end_job()
    (found,) = notices.collect(tmp_path / "notices")
    assert (found.kind, found.benchmark) == ("skipped_source", "gating")
    assert found.message.startswith("source bad.wsp skipped: sha256 ")
    with pytest.raises(ScievalsError, match="gating source bad.wsp: sha256 .* differs"):
        D.fetch({"source": "remote", **bad}, tmp_path / "raw", tmp_path / "r2.json")
    assert not (tmp_path / "r2.json").exists()


def test_no_checksum_is_refused_unless_allowed(tmp_path):
    cfg = {"sources": [{"name": "ics.wsp", "url": str(WSP), "sha256": ""}]}
    report = D.fetch(cfg, tmp_path / "raw", tmp_path / "report.json")
    assert report["sources"][0]["reason"] == "no checksum configured"
    report = D.fetch({**cfg, "allow_unverified": True}, tmp_path / "raw", tmp_path / "report.json")
    assert report["sources"][0]["status"] == "ok"


def test_truncated_http_download_is_removed(tmp_path):
    """The server promises 4000 bytes, sends 1000 and hangs up: nothing is kept."""
    import threading
    from http.server import BaseHTTPRequestHandler

    from support.quiet_http import QuietThreadingHTTPServer

    class CutShort(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", "4000")
            self.end_headers()
            self.wfile.write(b"x" * 1000)
            self.wfile.flush()
            self.connection.shutdown(2)

        def log_message(self, *args):
            pass

    with QuietThreadingHTTPServer(("127.0.0.1", 0), CutShort) as httpd:
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{httpd.server_address[1]}/export.wsp"
        cfg = {"sources": [{"name": "export.wsp", "url": url, "sha256": "0" * 64}]}
        report = D.fetch(cfg, tmp_path / "raw", tmp_path / "report.json")
        httpd.shutdown()
    [entry] = report["sources"]
    assert entry["status"] == "failed" and "RemoteProtocolError" in entry["reason"]
    folder = tmp_path / "raw" / "sources"
    assert not folder.exists() or list(folder.iterdir()) == []  # no partial file, no temp file
