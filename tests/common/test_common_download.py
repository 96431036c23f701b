"""The shared checked downloader, against local files and a local HTTP server (no network)."""

from __future__ import annotations

import functools
import hashlib
import http.server
import threading

import pytest
from scievals.common.download import DownloadError, fetch, file_digest
from support.quiet_http import QuietThreadingHTTPServer

DATA = b"antibody_name,HIC\nab0,2.5\n" * 100


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    (root / "f.csv").write_bytes(DATA)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None
    httpd = QuietThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_http_download_is_checked_and_kept_in_the_store(server, tmp_path):
    dest, store = tmp_path / "out" / "f.csv", tmp_path / "store"
    got = fetch(f"{server}/f.csv", dest, sha256=sha(DATA), store=store)
    assert (got.status, got.sha256, got.size) == ("downloaded", sha(DATA), len(DATA))
    assert dest.read_bytes() == DATA
    assert (store / sha(DATA)).read_bytes() == DATA
    # later, offline (a dead URL): the verified copy is reused
    again = fetch("http://127.0.0.1:9/f.csv", tmp_path / "again.csv", sha256=sha(DATA), store=store)
    assert again.status == "reused" and (tmp_path / "again.csv").read_bytes() == DATA


def test_checksum_mismatch_leaves_nothing_behind(server, tmp_path):
    dest = tmp_path / "f.csv"
    dest.write_bytes(b"old")
    with pytest.raises(DownloadError, match="sha256 .* differs from the expected 0000"):
        fetch(f"{server}/f.csv", dest, sha256="0" * 64)
    assert dest.read_bytes() == b"old"  # the old file stays: atomic write
    assert [p.name for p in tmp_path.iterdir()] == ["www", "f.csv"]  # no temp file left


def test_no_checksum_is_refused_unless_unverified_is_allowed(server, tmp_path):
    with pytest.raises(DownloadError, match="no checksum configured"):
        fetch(f"{server}/f.csv", tmp_path / "f.csv")
    got = fetch(f"{server}/f.csv", tmp_path / "f.csv", verify=False)
    assert got.sha256 == sha(DATA)


def test_size_cap_status_and_unreachable_host_are_one_line_errors(server, tmp_path):
    with pytest.raises(DownloadError, match=r"larger than the limit \(1048 bytes\)"):
        fetch(f"{server}/f.csv", tmp_path / "a", sha256=sha(DATA), max_bytes=1048)
    with pytest.raises(DownloadError, match="HTTP 404"):
        fetch(f"{server}/missing.csv", tmp_path / "b", sha256=sha(DATA))
    with pytest.raises(DownloadError, match="ConnectError") as info:
        fetch("http://127.0.0.1:9/f.csv", tmp_path / "c", sha256=sha(DATA), timeout_s=2)
    assert "\n" not in info.value.one_line()
    assert not any(p.name in "abc" for p in tmp_path.iterdir())


def test_local_paths_and_file_urls_with_md5(tmp_path):
    src = tmp_path / "src.csv"
    src.write_bytes(DATA)
    md5 = hashlib.md5(DATA).hexdigest()
    assert fetch(str(src), tmp_path / "a.csv", md5=md5).status == "copied"
    assert fetch(f"file://{src}", tmp_path / "b.csv", sha256=sha(DATA)).sha256 == sha(DATA)
    assert file_digest(tmp_path / "b.csv", "md5") == md5
    with pytest.raises(DownloadError, match="no such file"):
        fetch(str(tmp_path / "nope.csv"), tmp_path / "c.csv", sha256=sha(DATA))


def test_a_damaged_store_entry_is_not_reused(tmp_path):
    src, store = tmp_path / "src.csv", tmp_path / "store"
    src.write_bytes(DATA)
    store.mkdir()
    (store / sha(DATA)).write_bytes(b"truncated")
    got = fetch(str(src), tmp_path / "a.csv", sha256=sha(DATA), store=store)
    assert got.status == "copied" and (tmp_path / "a.csv").read_bytes() == DATA
