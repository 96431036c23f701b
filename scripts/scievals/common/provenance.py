"""Where every number came from: code version, git commit and config hash."""

from __future__ import annotations

import functools
import os
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from scievals import __version__
from scievals.common.io import canonical_json, sha256_text

# The run record's copy beside a history entry is named <entry stem> + this: written by
# scievals.report.run_manifest, listed by `history` (scievals.results.history_cli).
RUN_RECORD_SUFFIX = ".manifest.json"


@functools.cache
def git_commit(repo_dir: str | None = None) -> str:
    """Short commit of the workflow checkout, ``-dirty`` if tracked files changed.

    ``SCIEVALS_GIT_COMMIT`` overrides it (for copies of the workflow outside git,
    e.g. on a cluster node); outside a checkout the answer is ``unknown``.
    """
    if os.environ.get("SCIEVALS_GIT_COMMIT"):
        return os.environ["SCIEVALS_GIT_COMMIT"]
    cwd = repo_dir or str(Path(__file__).resolve().parents[3])
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=cwd, capture_output=True, text=True, check=True, timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd, capture_output=True, text=True, check=True, timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{commit}-dirty" if dirty else commit


def config_hash(section: object) -> str:
    """First 12 hex digits of sha256 over the canonical JSON of a config section."""
    return sha256_text(canonical_json(section))[:12]


@dataclass(frozen=True)
class Provenance:
    """The columns every result row carries besides the measurement itself."""

    benchmark: str
    dataset: str
    dataset_sha256: str
    config_hash: str
    scievals_version: str = __version__
    git_commit: str = ""

    def as_columns(self) -> dict[str, str]:
        cols = asdict(self)
        cols["git_commit"] = self.git_commit or git_commit()
        return cols
