"""Copy the workflow to a scratch folder as a fresh clone has it: no git data, no produced
files (results/, logs/, data/raw, data/curated, caches), no own prediction files.

``results`` is left out only at the top: the package has a ``scievals/results/`` too."""

from __future__ import annotations

import shutil
from pathlib import Path

ANYWHERE = shutil.ignore_patterns(
    ".git", ".venv", "logs", ".snakemake", ".cache", "raw", "curated",
    "__pycache__", ".pytest_cache", "*.egg-info", "predictions",
)
TOP_LEVEL = {"results"}


def ignore_for(root: Path):
    """A ``copytree`` ignore function for copying ``root``."""
    root = Path(root).resolve()

    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = set(ANYWHERE(directory, names))
        if Path(directory).resolve() == root:
            skipped |= TOP_LEVEL & set(names)
        return skipped

    return ignore


def copy_workflow(root: Path, dest: Path) -> Path:
    shutil.copytree(root, dest, ignore=ignore_for(root))
    return dest
