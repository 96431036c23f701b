"""GDPa1 data: getting the truth (checked, or the embedded demo) and reading CSV files.

``fetch_gdpa1`` is what the workflow's download rule calls. Sources, by the
``abdev.source`` key (the data-source keys every benchmark shares):

- ``auto`` (default): a verified copy kept from an earlier run, else GDPa1 and the
  heldout sequences downloaded (the gated Hugging Face copy first when ``HF_TOKEN`` is
  set, then the pinned public copy), each checked against its sha256; any failure falls
  back to the embedded synthetic demo, which the dataset label says (``GDPa1-demo``) and
  the end of the run repeats (a notice).
- ``remote``: the same without the fallback: any failure stops with one line.
- ``file``: a local copy at ``abdev.path`` (e.g. a GDPa1 file from a colleague, offline),
  checked against ``abdev.sha256``; the heldout sequences from ``heldout_path``, else
  from ``heldout_url``, else left empty with a notice.
- ``demo``: the embedded synthetic demo only.

Every verified file is also kept under the ``store`` folder by its sha256, so once a real
copy has been verified, a later offline ``auto`` run reuses it instead of the demo.

``source.json`` says which data every table was computed on: the dataset name
(``GDPa1`` or ``GDPa1-demo``, which then prefixes every table's dataset), the
sha256 of the truth file used, its origin and the fallback reason.
"""

from __future__ import annotations

import logging
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from scievals.abdev.clusters import write_sequence_clusters
from scievals.abdev.constants import (
    DEMO_DATASET_NAME,
    HELDOUT_COLUMNS,
    PROPERTY_LIST,
    REAL_DATASET_NAME,
)
from scievals.abdev.csv_files import read_csv_checked
from scievals.common import download, notices
from scievals.common.download import DownloadError
from scievals.common.errors import ScievalsError
from scievals.common.io import atomic_path, sha256_file, write_json, write_text

log = logging.getLogger(__name__)

DEMO_DIR = Path(__file__).resolve().parents[3] / "data" / "demo" / "abdev"
DEMO_CSV = DEMO_DIR / "GDPa1_demo.csv"
DEMO_HELDOUT_CSV = DEMO_DIR / "heldout_demo.csv"
HF_TOKEN_ENV = "HF_TOKEN"
PINNED_RELEASE = "GDPa1_v1.2_20250814.csv"
# Keys of the abdev section the download depends on (the rule's params: a change of
# fold_col or seed must not re-download).
SOURCE_KEYS = ("source", "url", "sha256", "path", "allow_unverified", "download_timeout_s",
               "max_download_mb", "heldout_url", "heldout_sha256", "heldout_path", "hf_url")


def _fetch(cfg: dict, source: str, dest: Path, sha256: str, store, headers=None):
    max_mb = cfg.get("max_download_mb")
    return download.fetch(source, dest, sha256=sha256 or None,
                          verify=not cfg.get("allow_unverified", False),
                          timeout_s=float(cfg.get("download_timeout_s", 30)),
                          max_bytes=int(max_mb * 2**20) if max_mb else None,
                          headers=headers, store=store)


def _truth_candidates(cfg: dict) -> list[tuple[str, dict]]:
    """(url, headers) to try for the truth file, best first. The token never leaves the header."""
    candidates = []
    token = os.environ.get(HF_TOKEN_ENV)
    if token and cfg.get("hf_url"):
        candidates.append((cfg["hf_url"], {"Authorization": f"Bearer {token}"}))
    if cfg.get("url"):
        candidates.append((cfg["url"], {}))
    return candidates


def _fetch_remote(cfg: dict, tmp_csv: Path, tmp_heldout: Path, store,
                  heldout_required: bool = True) -> dict:
    candidates = _truth_candidates(cfg)
    if not candidates:
        raise DownloadError("config: abdev.url", "no download URL configured", "set abdev.url")
    failures = []
    for url, headers in candidates:
        try:
            truth = _fetch(cfg, url, tmp_csv, cfg.get("sha256"), store, headers)
            break
        except DownloadError as exc:
            log.warning("GDPa1 download failed: %s", exc.one_line())
            failures.append(f"{exc.where}: {exc.problem}")
    else:
        raise DownloadError("abdev download", "; ".join(failures),
                            "check the network, or use a local copy (abdev.source: file)")
    try:
        if not cfg.get("heldout_url"):
            raise DownloadError("config: abdev.heldout_url", "no heldout download URL configured")
        heldout = _fetch(cfg, cfg["heldout_url"], tmp_heldout, cfg.get("heldout_sha256"), store)
    except DownloadError as exc:
        if heldout_required:
            raise
        # ``auto`` with the real truth at hand (downloaded, or verified in the store by an
        # earlier run, e.g. a ``source: file`` one): scoring needs no heldout sequences, and
        # swapping real results for the demo over them would be worse than going without.
        _skip_heldout(tmp_heldout, exc)
        heldout = None
    return _real_record(truth, heldout)


def _skip_heldout(tmp_heldout: Path, exc: DownloadError) -> None:
    notices.record("skipped_source", "abdev",
                   f"heldout sequences not available ({exc.problem}); set "
                   "abdev.heldout_path to a local copy (not needed for scoring)")
    write_text(tmp_heldout, ",".join(HELDOUT_COLUMNS) + "\n")


def _real_record(truth, heldout) -> dict:
    return {
        "dataset": REAL_DATASET_NAME,
        "sha256": truth.sha256,
        "origin": truth.origin,
        "retrieved": truth.status,
        "heldout_sha256": heldout.sha256 if heldout else None,
        "heldout_origin": heldout.origin if heldout else None,
        "synthetic": False,
    }


def _from_file(cfg: dict, tmp_csv: Path, tmp_heldout: Path, store) -> dict:
    """``source: file``: the user's local copy, checked against the pinned sha256."""
    if not cfg.get("path"):
        raise ScievalsError("config: abdev.path", "source is 'file' but no path is set",
                            f"set abdev.path to your copy of {PINNED_RELEASE}")
    path = Path(cfg["path"]).expanduser()
    try:
        truth = _fetch(cfg, str(path), tmp_csv, cfg.get("sha256"), store)
    except DownloadError as exc:
        if path.is_file() and cfg.get("sha256") and "differs" in exc.problem:
            actual = sha256_file(path)
            raise ScievalsError(
                path, f"sha256 {actual} differs from the pinned GDPa1 release "
                f"({PINNED_RELEASE}, sha256 {cfg['sha256']})",
                f"if this is the GDPa1 version you mean to score on, set abdev.sha256: {actual}; "
                f"otherwise get the pinned file ({cfg.get('url') or PINNED_RELEASE})") from None
        raise
    heldout = None
    if cfg.get("heldout_path"):
        heldout = _fetch(cfg, str(Path(cfg["heldout_path"]).expanduser()), tmp_heldout,
                         cfg.get("heldout_sha256"), store)
    elif cfg.get("heldout_url"):
        try:
            heldout = _fetch(cfg, cfg["heldout_url"], tmp_heldout, cfg.get("heldout_sha256"), store)
        except DownloadError as exc:
            _skip_heldout(tmp_heldout, exc)
    if heldout is None:  # an empty table with the heldout columns
        write_text(tmp_heldout, ",".join(HELDOUT_COLUMNS) + "\n")
    return _real_record(truth, heldout)


def _use_demo(tmp_csv: Path, tmp_heldout: Path) -> dict:
    for path in (DEMO_CSV, DEMO_HELDOUT_CSV):
        if not path.exists():
            raise ScievalsError(
                path, "embedded demo file is missing", "restore it from git (git checkout data/demo/abdev)"
            )
    shutil.copyfile(DEMO_CSV, tmp_csv)
    shutil.copyfile(DEMO_HELDOUT_CSV, tmp_heldout)
    return {
        "dataset": DEMO_DATASET_NAME,
        "sha256": sha256_file(tmp_csv),
        "origin": str(DEMO_CSV),
        "retrieved": "copied",
        "heldout_sha256": sha256_file(tmp_heldout),
        "heldout_origin": str(DEMO_HELDOUT_CSV),
        "synthetic": True,
    }


def fetch_gdpa1(cfg: dict, out_csv, out_heldout, out_source_json, store=None) -> dict:
    """Write the truth CSV, the heldout sequences and ``source.json``; return the source record.

    ``cfg`` is the validated ``abdev`` config section; ``store`` a folder that keeps every
    verified file by its sha256 (the workflow's ``data/raw/abdev/verified``). Both data
    files are written only once both are complete and verified (a failed remote run
    leaves nothing behind); ``auto`` falls back to the demo for both files together when the
    truth cannot be had, so truth and heldout never come from different sources. With the
    real truth at hand (downloaded, or verified in ``store`` by an earlier run), ``auto``
    goes without the heldout sequences (not needed for scoring) rather than use the demo.
    """
    source = cfg.get("source", "auto")
    if source not in ("auto", "remote", "file", "demo"):
        raise ScievalsError("config: abdev.source", f"{source!r} is not allowed",
                            "use auto, remote, file or demo")
    fallback_reason = None
    with atomic_path(out_csv) as tmp_csv, atomic_path(out_heldout) as tmp_heldout:
        if source == "demo":
            record = _use_demo(tmp_csv, tmp_heldout)
            fallback_reason = "abdev.source is 'demo'"
        elif source == "file":
            record = _from_file(cfg, tmp_csv, tmp_heldout, store)
        else:
            try:
                record = _fetch_remote(cfg, tmp_csv, tmp_heldout, store,
                                       heldout_required=source == "remote")
            except DownloadError as exc:
                if source == "remote":
                    raise
                fallback_reason = f"download failed, using the embedded synthetic demo: {exc.problem}"
                notices.record("fallback", "abdev",
                               "GDPa1 could not be downloaded; every abdev score is on the "
                               "synthetic GDPa1-demo (dataset GDPa1-demo_cross_validation). "
                               "Offline with a GDPa1 copy: abdev.source: file, abdev.path: <copy>",
                               details={"reason": exc.one_line()})
                record = _use_demo(tmp_csv, tmp_heldout)
    record.update(
        source_mode=source,
        fallback_reason=fallback_reason,
        retrieved_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
    write_json(out_source_json, record)
    return record


def load_truth(path, fold_col: str | None = None) -> pd.DataFrame:
    """Read a GDPa1-style truth CSV (pandas default parser) and check its columns."""
    frame = read_csv_checked(path, "truth")
    needed = PROPERTY_LIST + ([fold_col] if fold_col else [])
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise ScievalsError(
            str(path), f"truth file lacks columns {missing}", "use the GDPa1 CSV (or the embedded demo) as truth"
        )
    return frame


# The job of abdev_download: scievals.common.entry.run_stage imports this module
# for it alone, so the job loads its own stage's code and nothing else.
def stage_download(smk) -> None:
    """GDPa1 (or the embedded demo, said in source.json and the notices), and its sequence
    clusters (the unit every abdev interval resamples)."""
    fetch_gdpa1(dict(smk.params.cfg), smk.output.truth, smk.output.heldout, smk.output.source,
                store=smk.params.store)
    write_sequence_clusters(smk.output.truth, smk.output.clusters)
