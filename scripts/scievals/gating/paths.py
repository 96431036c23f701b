"""Locations of the embedded gating data (``data/demo/gating`` in the checkout)."""

from __future__ import annotations

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
