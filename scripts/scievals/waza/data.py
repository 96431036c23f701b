"""The suite downloader: the configured suites, checked, copied under data/raw/waza/suites.

``source`` (the shared data-source keys) picks the embedded example suites, a local folder
or archive, or a remote archive; every suite folder gets a tree sha256 in ``source.json``.
Reading a suite strictly is :mod:`scievals.waza.suites`' job.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from scievals.common import notices
from scievals.common.archives import unpack
from scievals.common.download import DownloadError, fetch
from scievals.common.errors import ScievalsError
from scievals.common.io import sha256_file, sha256_text, write_json
from scievals.waza.suite_paths import links_leaving

DEMO_DIR = Path(__file__).resolve().parents[3] / "data" / "demo" / "waza"
DEMO_SUITES_DIR = DEMO_DIR / "suites"


def demo_suites() -> dict[str, Path]:
    """Name (folder) -> eval.yaml of every embedded suite."""
    return {p.parent.name: p for p in sorted(DEMO_SUITES_DIR.glob("**/eval.yaml"))}


ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")


def tree_sha256(folder: Path) -> str:
    """One sha256 over every file of ``folder`` (relative path + content digest)."""
    files = {str(p.relative_to(folder)): sha256_file(p)
             for p in sorted(folder.rglob("*")) if p.is_file()}
    return sha256_text(json.dumps(files, sort_keys=True))


def _unpack(archive: Path, target: Path, max_bytes: int | None) -> None:
    """Unpack a suites archive through the shared safe unpacker; a refused member fails it.

    A suite is all-or-nothing: a member left out (``..``, absolute path, link, a clash)
    could silently drop a task, so it is an error here rather than a listed skip."""
    unpacked = unpack(archive, target, ("",), max_bytes)  # every member is wanted
    if unpacked.skipped:
        refused = "; ".join(f"{s['file']}: {s['reason']}" for s in unpacked.skipped)
        raise ScievalsError(archive, f"archive members refused ({refused})",
                            "use an archive of plain files with relative paths")


def _fetch_archive(cfg: dict, origin: str, work: Path) -> tuple[Path, str]:
    """Fetch a suites archive through the checked downloader and unpack it."""
    archive = work / "suites.archive"
    max_bytes = int(float(cfg.get("max_download_mb", 200)) * (1 << 20))
    fetched = fetch(origin, archive, sha256=cfg.get("sha256") or None,
                    verify=not cfg.get("allow_unverified", False),
                    timeout_s=float(cfg.get("download_timeout_s", 30)),
                    max_bytes=max_bytes, store="data/raw/waza/verified", label="waza suites")
    _unpack(archive, work / "unpacked", max_bytes)
    return work / "unpacked", fetched.sha256


def _local_folder(cfg: dict) -> tuple[Path, str]:
    folder = Path(cfg["path"]).expanduser()
    digest = tree_sha256(folder)
    want = cfg.get("sha256") or ""
    if want and want != digest:
        raise ScievalsError("config: waza.sha256", f"the suites folder {folder} has sha256 "
                            f"{digest}, not {want}", "fix waza.path or waza.sha256")
    if not want and not cfg.get("allow_unverified", False):
        raise ScievalsError("config: waza.sha256", f"no checksum for the suites folder {folder}",
                            f"set sha256: {digest} (its current content) or allow_unverified: true")
    return folder, digest


def _suite_folders(root: Path) -> dict[str, Path]:
    return {spec.parent.name: spec.parent for spec in sorted(root.glob("**/eval.yaml"))}


def download_suites(cfg: dict, out_dir: str | Path, source_json: str | Path) -> dict:
    """Copy the configured suites to ``out_dir/<name>`` and write ``source.json``.

    ``source`` (the shared data-source keys): ``demo`` the embedded example suites;
    ``file`` a local folder of suite folders (checked against ``sha256`` = the folder's
    tree digest) or a suites archive; ``remote`` an archive at ``url``; ``auto`` the url,
    else the embedded suites with an end-of-run notice.
    """
    source, fallback = cfg.get("source", "demo"), None
    with tempfile.TemporaryDirectory(prefix="waza-download-") as tmp:
        work = Path(tmp)
        origin, archive_sha = str(DEMO_SUITES_DIR), ""
        root = DEMO_SUITES_DIR
        if source == "file":
            if not cfg.get("path"):
                raise ScievalsError("config: waza.path", "source is file but path is empty",
                                    "set path to a folder of suites (or an archive)")
            origin = str(Path(cfg["path"]).expanduser())
            if Path(origin).is_dir():
                root, archive_sha = _local_folder(cfg)
            else:
                root, archive_sha = _fetch_archive(cfg, origin, work)
        elif source in ("remote", "auto"):
            try:
                if not cfg.get("url"):
                    raise DownloadError("config: waza.url", "no url configured",
                                        "set url and sha256 of a suites archive")
                origin = cfg["url"]
                root, archive_sha = _fetch_archive(cfg, origin, work)
            except DownloadError as exc:
                if source == "remote":
                    raise
                fallback = f"{exc.one_line()}; using the embedded example suites"
                notices.record("fallback", "waza", fallback, details={"reason": str(exc)})
                origin, root = str(DEMO_SUITES_DIR), DEMO_SUITES_DIR
        available = _suite_folders(root)
        names = list(cfg["suites"])
        missing = [n for n in names if n not in available]
        if missing:
            raise ScievalsError("config: waza.suites", f"no suite folder named {missing} in "
                                f"{origin}", f"available: {', '.join(sorted(available))}")
        demo = root == DEMO_SUITES_DIR
        entries = {}
        for name in names:
            leaving = links_leaving(available[name])
            if leaving:  # copytree would copy the host files they point at
                raise ScievalsError(f"{origin}: {name}", f"symlink(s) to outside the suite "
                                    f"folder: {', '.join(leaving)}",
                                    "copy the files in instead of linking them")
            target = Path(out_dir) / name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(available[name], target)
            entries[name] = {"dataset": f"{name}-demo" if demo else name,
                             "sha256": tree_sha256(target)}
    record = {"dataset": "waza-suites-demo" if demo else "waza-suites", "source_mode": source,
              "origin": origin, "archive_sha256": archive_sha, "fallback_reason": fallback,
              "suites": entries}
    write_json(source_json, record)
    return record


# The job of waza_download: scievals.common.entry.run_stage imports this module
# for it alone, so the job loads its own stage's code and nothing else.
def stage_download(smk) -> None:
    """The configured suites, checked, and source.json."""
    download_suites(dict(smk.params.cfg), smk.output.suites, smk.output.source)
