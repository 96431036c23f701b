"""GDPa1 download against a local HTTP server (127.0.0.1, random port): never the network."""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import logging
import socket
import threading

import pytest
from scievals.abdev.constants import HELDOUT_COLUMNS
from scievals.abdev.data import DEMO_CSV, DEMO_HELDOUT_CSV, fetch_gdpa1, load_truth
from scievals.common import notices
from scievals.common.download import DownloadError
from scievals.common.errors import ScievalsError
from support.quiet_http import QuietThreadingHTTPServer

TRUTH_BYTES = b"antibody_name,HIC,Tm2,Titer,PR_CHO,AC-SINS_pH7.4,fold\nab0,2.5,70,100,0,1.0,0\n"
HELDOUT_BYTES = b"antibody_name,vh_protein_sequence,vl_protein_sequence\nh0,EVQL,DIQM\n"
TOKEN = "hf_test_secret_token"


def fetch_in_job(tmp_path, *args, **kwargs) -> dict:
    """fetch_gdpa1 as the download job runs it: what it records goes to tmp_path/notices."""
    csv = args[1]
    notices.start_job("abdev_download", {}, [str(csv)], tmp_path / "notices")
    try:
        return fetch_gdpa1(*args, **kwargs)
    finally:
        notices.end_job()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the folder; paths under /gated/ need 'Authorization: Bearer <TOKEN>'."""

    def do_GET(self):
        if self.path.startswith("/gated/"):
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                self.send_error(401, "token required")
                return
            self.path = self.path[len("/gated"):]
        super().do_GET()

    def log_message(self, *args):  # keep test output quiet
        pass


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    (root / "gdpa1.csv").write_bytes(TRUTH_BYTES)
    (root / "heldout.csv").write_bytes(HELDOUT_BYTES)
    httpd = QuietThreadingHTTPServer(("127.0.0.1", 0),
                                     functools.partial(Handler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(autouse=True)
def no_token_no_proxy(monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


def config(base: str, **overrides) -> dict:
    cfg = {
        "source": "remote",
        "url": f"{base}/gdpa1.csv",
        "sha256": sha(TRUTH_BYTES),
        "heldout_url": f"{base}/heldout.csv",
        "heldout_sha256": sha(HELDOUT_BYTES),
        "hf_url": f"{base}/gated/gdpa1.csv",
        "download_timeout_s": 5,
    }
    cfg.update(overrides)
    return cfg


def outputs(tmp_path):
    out = tmp_path / "out"
    return out / "GDPa1.csv", out / "heldout.csv", out / "source.json"


@pytest.mark.slow  # runs a local HTTP server
def test_remote_download_ok(server, tmp_path):
    csv, heldout, source = outputs(tmp_path)
    record = fetch_gdpa1(config(server), csv, heldout, source)
    assert csv.read_bytes() == TRUTH_BYTES and heldout.read_bytes() == HELDOUT_BYTES
    written = json.loads(source.read_text())
    assert written == record
    assert record["dataset"] == "GDPa1"
    assert record["sha256"] == sha(TRUTH_BYTES)
    assert record["origin"] == f"{server}/gdpa1.csv"
    assert record["fallback_reason"] is None and record["synthetic"] is False
    assert record["retrieved_at"].endswith("Z")


@pytest.mark.slow  # runs a local HTTP server
def test_checksum_mismatch_in_remote_mode_is_an_error_and_writes_nothing(server, tmp_path):
    csv, heldout, source = outputs(tmp_path)
    with pytest.raises(ScievalsError, match="sha256 [0-9a-f]{64} differs from the expected 0{64}"):
        fetch_gdpa1(config(server, sha256="0" * 64), csv, heldout, source)
    assert not csv.exists() and not heldout.exists() and not source.exists()
    assert list(csv.parent.iterdir()) == []  # no temp files left behind


@pytest.mark.slow  # runs a local HTTP server
def test_checksum_mismatch_in_auto_mode_falls_back_to_demo(server, tmp_path):
    csv, heldout, source = outputs(tmp_path)
    record = fetch_gdpa1(config(server, source="auto", sha256="1" * 64), csv, heldout, source)
    assert record["dataset"] == "GDPa1-demo"
    assert "differs from the expected 1111" in record["fallback_reason"]
    assert csv.read_bytes() == DEMO_CSV.read_bytes() and heldout.read_bytes() == DEMO_HELDOUT_CSV.read_bytes()
    assert record["sha256"] == hashlib.sha256(DEMO_CSV.read_bytes()).hexdigest()


@pytest.mark.slow  # runs a local HTTP server
def test_a_bad_heldout_file_in_auto_mode_keeps_the_real_truth(server, tmp_path):
    # issue 19 item 7: the heldout sequences are not needed for scoring; their failure no
    # longer swaps the verified real truth for the demo.
    csv, heldout, source = outputs(tmp_path)
    record = fetch_gdpa1(config(server, source="auto", heldout_sha256="1" * 64), csv, heldout, source)
    assert record["dataset"] == "GDPa1" and record["fallback_reason"] is None
    assert csv.read_bytes() == TRUTH_BYTES and record["heldout_sha256"] is None
    assert heldout.read_text().splitlines() == [",".join(HELDOUT_COLUMNS)]


def test_unreachable_host_auto_falls_back_remote_fails(unused_port, tmp_path):
    base = f"http://127.0.0.1:{unused_port}"
    csv, heldout, source = outputs(tmp_path)
    record = fetch_gdpa1(config(base, source="auto"), csv, heldout, source)
    assert record["dataset"] == "GDPa1-demo" and record["synthetic"] is True
    assert "ConnectError" in record["fallback_reason"]
    assert record["origin"] == str(DEMO_CSV)
    csv2, heldout2, source2 = outputs(tmp_path / "remote")
    with pytest.raises(ScievalsError, match="ConnectError"):
        fetch_gdpa1(config(base), csv2, heldout2, source2)
    assert not csv2.exists()


@pytest.mark.slow  # runs a local HTTP server
def test_http_error_status_is_a_failure(server, tmp_path):
    csv, heldout, source = outputs(tmp_path)
    with pytest.raises(ScievalsError, match="HTTP 404"):
        fetch_gdpa1(config(server, url=f"{server}/nothing.csv"), csv, heldout, source)


@pytest.mark.slow  # runs a local HTTP server
def test_hf_token_is_sent_as_bearer_and_never_logged(server, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    csv, heldout, source = outputs(tmp_path)
    with caplog.at_level(logging.DEBUG):
        record = fetch_gdpa1(config(server, url=f"{server}/nothing.csv"), csv, heldout, source)
    assert record["origin"] == f"{server}/gated/gdpa1.csv"
    assert TOKEN not in caplog.text and TOKEN not in source.read_text()


@pytest.mark.slow  # runs a local HTTP server
def test_wrong_hf_token_falls_back_to_public_url(server, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("HF_TOKEN", "wrong")
    csv, heldout, source = outputs(tmp_path)
    with caplog.at_level(logging.WARNING):
        record = fetch_gdpa1(config(server), csv, heldout, source)
    assert record["origin"] == f"{server}/gdpa1.csv"
    assert "HTTP 401" in caplog.text  # the gated copy refused the token, the public copy served


def test_demo_source_needs_no_network(tmp_path):
    csv, heldout, source = outputs(tmp_path)
    record = fetch_gdpa1({"source": "demo"}, csv, heldout, source)
    assert record["dataset"] == "GDPa1-demo"
    assert record["fallback_reason"] == "abdev.source is 'demo'"
    assert load_truth(csv, "hierarchical_cluster_IgG_isotype_stratified_fold").shape == (246, 30)


def test_load_truth_reports_missing_columns(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("antibody_name,HIC\nab,1\n")
    with pytest.raises(ScievalsError, match=r"truth file lacks columns \['Tm2', 'Titer', 'PR_CHO', 'AC-SINS_pH7.4'\]"):
        load_truth(path)


def test_file_source_uses_a_local_copy_offline(tmp_path, unused_port):
    """issue 9: an offline user with a GDPa1 copy gets real rows (source: file + path)."""
    copy = tmp_path / "colleague" / "GDPa1.csv"
    copy.parent.mkdir()
    copy.write_bytes(TRUTH_BYTES)
    held = tmp_path / "colleague" / "heldout.csv"
    held.write_bytes(HELDOUT_BYTES)
    base = f"http://127.0.0.1:{unused_port}"  # nothing listens: no network used
    csv, heldout, source = outputs(tmp_path)
    record = fetch_gdpa1(config(base, source="file", path=str(copy), heldout_path=str(held)),
                         csv, heldout, source)
    assert (record["dataset"], record["synthetic"], record["retrieved"]) == ("GDPa1", False, "copied")
    assert record["origin"] == str(copy) and record["sha256"] == sha(TRUTH_BYTES)
    assert csv.read_bytes() == TRUTH_BYTES and heldout.read_bytes() == HELDOUT_BYTES


def test_file_source_that_differs_from_the_pinned_release_says_how(tmp_path):
    copy = tmp_path / "GDPa1.csv"
    copy.write_bytes(TRUTH_BYTES + b"ab1,1,1,1,1,1,1\n")
    csv, heldout, source = outputs(tmp_path)
    with pytest.raises(ScievalsError) as info:
        fetch_gdpa1(config("http://127.0.0.1:9", source="file", path=str(copy)), csv, heldout, source)
    line = info.value.one_line()
    actual = hashlib.sha256(copy.read_bytes()).hexdigest()
    assert line.startswith(f"{copy}: sha256 {actual} differs from the pinned GDPa1 release "
                           f"(GDPa1_v1.2_20250814.csv, sha256 {sha(TRUTH_BYTES)})")
    assert f"set abdev.sha256: {actual}" in line
    assert not csv.exists() and not source.exists()
    with pytest.raises(ScievalsError, match="config: abdev.path: source is 'file' but no path"):
        fetch_gdpa1(config("http://127.0.0.1:9", source="file"), csv, heldout, source)


def test_file_source_without_heldout_offline_writes_an_empty_heldout_and_a_notice(
        tmp_path, unused_port, monkeypatch):
    monkeypatch.chdir(tmp_path)
    copy = tmp_path / "GDPa1.csv"
    copy.write_bytes(TRUTH_BYTES)
    csv, heldout, source = outputs(tmp_path)
    offline = f"http://127.0.0.1:{unused_port}"
    record = fetch_in_job(tmp_path, config(offline, source="file", path=str(copy)), csv,
                          heldout, source)
    assert record["dataset"] == "GDPa1" and record["heldout_sha256"] is None
    assert heldout.read_text().startswith("antibody_name,vh_protein_sequence,")
    assert len(heldout.read_text().splitlines()) == 1
    (found,) = notices.collect(tmp_path / "notices")
    assert found.kind == "skipped_source" and "heldout sequences not available" in found.message


@pytest.mark.slow  # runs a local HTTP server
def test_real_then_offline_keeps_the_real_data(server, tmp_path, unused_port, monkeypatch):
    """issue 9: one run with the real data, then a plain auto run without network, must not
    swap the real truth for the demo: the verified copy in the store is reused."""
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "verified"
    csv, heldout, source = outputs(tmp_path)
    first = fetch_gdpa1(config(server, source="auto"), csv, heldout, source, store=store)
    assert first["dataset"] == "GDPa1" and first["retrieved"] == "downloaded"
    for path in (csv, heldout, source):  # Snakemake removes a job's outputs before re-running it
        path.unlink()
    offline = f"http://127.0.0.1:{unused_port}"
    second = fetch_in_job(tmp_path, config(offline, source="auto"), csv, heldout, source,
                          store=store)
    assert second["dataset"] == "GDPa1" and second["retrieved"] == "reused"
    assert csv.read_bytes() == TRUTH_BYTES and heldout.read_bytes() == HELDOUT_BYTES
    assert notices.collect(tmp_path / "notices") == []
    # without the store, offline auto falls back to the demo - and says so at the end
    for path in (csv, heldout, source):
        path.unlink()
    third = fetch_in_job(tmp_path, config(offline, source="auto"), csv, heldout, source)
    assert third["dataset"] == "GDPa1-demo"
    (found,) = notices.collect(tmp_path / "notices")
    assert found.kind == "fallback" and "GDPa1-demo" in found.message
    assert "abdev.source: file" in found.message


def test_offline_auto_after_a_file_run_keeps_the_real_truth_without_heldout(tmp_path, unused_port,
                                                                             monkeypatch):
    """issue 19 item 7: a ``source: file`` run keeps the verified truth in the store but never
    fetches the heldout sequences; the next offline ``auto`` run swapped 70 of 70 real rows for
    the demo because the heldout download failed. The verified truth now wins; the heldout file
    (not needed for scoring) is optional there. No network: the port is closed."""
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "verified"
    copy = tmp_path / "GDPa1_copy.csv"
    copy.write_bytes(TRUTH_BYTES)
    offline = f"http://127.0.0.1:{unused_port}"
    csv, heldout, source = outputs(tmp_path)
    first = fetch_gdpa1(config(offline, source="file", path=str(copy)), csv, heldout, source,
                        store=store)
    assert first["dataset"] == "GDPa1" and first["heldout_sha256"] is None
    assert (store / sha(TRUTH_BYTES)).read_bytes() == TRUTH_BYTES  # kept, verified
    assert not (store / sha(HELDOUT_BYTES)).exists()  # the heldout was never fetched
    for path in (csv, heldout, source):
        path.unlink()
    second = fetch_in_job(tmp_path, config(offline, source="auto"), csv, heldout, source,
                          store=store)
    assert second["dataset"] == "GDPa1" and second["retrieved"] == "reused"
    assert second["synthetic"] is False and second["fallback_reason"] is None
    assert csv.read_bytes() == TRUTH_BYTES
    assert heldout.read_text().splitlines() == [",".join(HELDOUT_COLUMNS)]
    (found,) = notices.collect(tmp_path / "notices")
    assert found.kind == "skipped_source" and "heldout sequences not available" in found.message


def test_a_fake_verified_store_alone_serves_offline_auto(tmp_path, unused_port):
    # The store as a folder of files named by their sha256, filled by hand.
    store = tmp_path / "verified"
    store.mkdir()
    (store / sha(TRUTH_BYTES)).write_bytes(TRUTH_BYTES)
    csv, heldout, source = outputs(tmp_path)
    record = fetch_gdpa1(config(f"http://127.0.0.1:{unused_port}", source="auto"), csv, heldout,
                         source, store=store)
    assert record["dataset"] == "GDPa1" and csv.read_bytes() == TRUTH_BYTES
    # remote stays strict: the heldout file it was asked to download is missing
    with pytest.raises(DownloadError):
        fetch_gdpa1(config(f"http://127.0.0.1:{unused_port}", source="remote"), csv, heldout,
                    source, store=store)
