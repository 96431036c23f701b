"""Getting the GDPa1 truth: checked download, or the embedded synthetic demo.

``fetch_gdpa1`` is what the workflow's download rule calls. Sources, by the
``abdev.source`` config key:

- ``remote``: download GDPa1 and the heldout sequences (the gated Hugging Face
  copy first when ``HF_TOKEN`` is set, then the pinned public copy), verify the
  sha256 of each; any failure stops with a :class:`ScievalsError`.
- ``auto``: the same, but any failure (network, HTTP status, checksum) falls
  back to the embedded demo and records why.
- ``demo``: the embedded synthetic demo only.

``source.json`` says which data every table was computed on: the dataset name
(``GDPa1`` or ``GDPa1-demo``, which then prefixes every table's dataset), the
sha256 of the truth file used, its origin and the fallback reason.
"""

from __future__ import annotations

import csv
import hashlib
import logging
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pandas as pd

from scievals.abdev.constants import DEMO_DATASET_NAME, PROPERTY_LIST, REAL_DATASET_NAME
from scievals.common.errors import ScievalsError
from scievals.common.io import atomic_path, sha256_file, write_json

log = logging.getLogger(__name__)

DEMO_DIR = Path(__file__).resolve().parents[3] / "data" / "demo" / "abdev"
DEMO_CSV = DEMO_DIR / "GDPa1_demo.csv"
DEMO_HELDOUT_CSV = DEMO_DIR / "heldout_demo.csv"
HF_TOKEN_ENV = "HF_TOKEN"


class DownloadError(Exception):
    """A download that did not give the expected bytes (network, status or checksum)."""


def _download(url: str, dest: Path, expected_sha256: str | None, timeout_s: float, headers: dict) -> str:
    """Stream ``url`` into ``dest`` while hashing; return the sha256 or raise DownloadError."""
    timeout = httpx.Timeout(timeout_s, connect=min(10.0, timeout_s))
    digest = hashlib.sha256()
    try:
        with httpx.stream("GET", url, headers=headers, timeout=timeout, follow_redirects=True) as response:
            if response.status_code != 200:
                raise DownloadError(f"HTTP {response.status_code} from {url}")
            with open(dest, "wb") as handle:
                for chunk in response.iter_bytes():
                    digest.update(chunk)
                    handle.write(chunk)
    except httpx.HTTPError as exc:  # connect/read timeouts, refused connections, protocol errors
        raise DownloadError(f"{type(exc).__name__} for {url}: {exc}") from None
    except OSError as exc:
        raise DownloadError(f"cannot write {dest}: {exc}") from None
    actual = digest.hexdigest()
    if expected_sha256 and actual != expected_sha256:
        raise DownloadError(f"checksum mismatch for {url}: expected sha256 {expected_sha256}, got {actual}")
    return actual


def _truth_candidates(cfg: dict) -> list[tuple[str, dict]]:
    """(url, headers) to try for the truth file, best first. The token never leaves the header."""
    candidates = []
    token = os.environ.get(HF_TOKEN_ENV)
    if token and cfg.get("hf_url"):
        candidates.append((cfg["hf_url"], {"Authorization": f"Bearer {token}"}))
    if cfg.get("url"):
        candidates.append((cfg["url"], {}))
    return candidates


def _fetch_remote(cfg: dict, tmp_csv: Path, tmp_heldout: Path) -> dict:
    timeout_s = float(cfg.get("download_timeout_s", 30))
    candidates = _truth_candidates(cfg)
    if not candidates:
        raise DownloadError("no download URL configured (abdev.url)")
    failures = []
    for url, headers in candidates:
        try:
            sha = _download(url, tmp_csv, cfg.get("sha256"), timeout_s, headers)
            break
        except DownloadError as exc:
            log.warning("GDPa1 download failed: %s", exc)
            failures.append(str(exc))
    else:
        raise DownloadError("; ".join(failures))
    if not cfg.get("heldout_url"):
        raise DownloadError("no heldout download URL configured (abdev.heldout_url)")
    heldout_sha = _download(cfg["heldout_url"], tmp_heldout, cfg.get("heldout_sha256"), timeout_s, {})
    return {
        "dataset": REAL_DATASET_NAME,
        "sha256": sha,
        "origin": url,
        "heldout_sha256": heldout_sha,
        "heldout_origin": cfg["heldout_url"],
        "synthetic": False,
    }


def _use_demo(tmp_csv: Path, tmp_heldout: Path) -> dict:
    for path in (DEMO_CSV, DEMO_HELDOUT_CSV):
        if not path.exists():
            raise ScievalsError(
                path, "embedded demo file is missing", "regenerate it: python -m scievals abdev make-demo"
            )
    shutil.copyfile(DEMO_CSV, tmp_csv)
    shutil.copyfile(DEMO_HELDOUT_CSV, tmp_heldout)
    return {
        "dataset": DEMO_DATASET_NAME,
        "sha256": sha256_file(tmp_csv),
        "origin": str(DEMO_CSV),
        "heldout_sha256": sha256_file(tmp_heldout),
        "heldout_origin": str(DEMO_HELDOUT_CSV),
        "synthetic": True,
    }


def fetch_gdpa1(cfg: dict, out_csv, out_heldout, out_source_json) -> dict:
    """Write the truth CSV, the heldout sequences and ``source.json``; return the source record.

    ``cfg`` is the validated ``abdev`` config section. Both data files are
    written only once both are complete and verified (a failed remote run
    leaves nothing behind); ``auto`` falls back to the demo for both files
    together, so truth and heldout always come from the same source.
    """
    source = cfg.get("source", "auto")
    if source not in ("auto", "remote", "demo"):
        raise ScievalsError("config: abdev.source", f"{source!r} is not allowed", "use auto, remote or demo")
    fallback_reason = None
    with atomic_path(out_csv) as tmp_csv, atomic_path(out_heldout) as tmp_heldout:
        if source == "demo":
            record = _use_demo(tmp_csv, tmp_heldout)
            fallback_reason = "abdev.source is 'demo'"
        else:
            try:
                record = _fetch_remote(cfg, tmp_csv, tmp_heldout)
            except DownloadError as exc:
                if source == "remote":
                    raise ScievalsError(
                        "abdev download",
                        str(exc),
                        "check the network and abdev.url/sha256, or set abdev.source to auto or demo",
                    ) from None
                fallback_reason = f"download failed, using the embedded synthetic demo: {exc}"
                log.warning("abdev: %s", fallback_reason)
                record = _use_demo(tmp_csv, tmp_heldout)
    record.update(
        source_mode=source,
        fallback_reason=fallback_reason,
        retrieved_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
    write_json(out_source_json, record)
    return record


# ---------------------------------------------------------------------------
# Reading CSV files (truth and predictions)
# ---------------------------------------------------------------------------


def csv_header(path: str | os.PathLike) -> list[str]:
    """Column names from the first line (``pd.read_csv(nrows=0)`` costs as much as 1/3 of a full read)."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return next(csv.reader(handle), [])


def read_csv(path: str | os.PathLike, columns: set[str] | None = None) -> pd.DataFrame:
    """``pd.read_csv`` with the default parser (as the reference); pandas' exceptions pass through.

    ``columns`` restricts parsing to those columns (others are skipped, which
    halves the time for GDPa1's long DNA columns; parsed values are the same).
    """
    if columns is None:
        return pd.read_csv(path)
    # a list is much faster than a callable; pandas rejects names it lacks
    return pd.read_csv(path, usecols=[c for c in csv_header(path) if c in columns] or None)


def read_csv_checked(path: str | os.PathLike, role: str, columns: set[str] | None = None) -> pd.DataFrame:
    """:func:`read_csv` with one clear error per problem; the file must have ``antibody_name``."""
    try:
        frame = read_csv(path, columns)
    except FileNotFoundError:
        raise ScievalsError(str(path), f"{role} file not found", "check the path") from None
    except IsADirectoryError:
        raise ScievalsError(str(path), f"{role} path is a directory", "give the CSV file itself") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise ScievalsError(
            str(path), f"cannot read {role} CSV ({exc})", "write a comma-separated file with a header row"
        ) from None
    if "antibody_name" not in frame.columns:
        header = csv_header(path) if columns is not None else list(frame.columns)
        raise ScievalsError(
            str(path),
            f"{role} file has no 'antibody_name' column (columns: {header[:8]})",
            "name the column holding the antibody names exactly 'antibody_name'",
        )
    return frame


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
