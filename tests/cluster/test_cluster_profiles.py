"""profiles/slurm runs unmodified on any cluster: site values live only in a site layer."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SITE_KEYS = {"slurm_partition", "slurm_account", "qos"}


def load(path: str) -> dict:
    return yaml.safe_load((ROOT / path).read_text())


def test_shared_slurm_profile_names_no_site_value():
    profile = load("profiles/slurm/config.yaml")
    assert SITE_KEYS.isdisjoint(profile["default-resources"])
    assert "slurm-qos" not in profile and "slurm-partition-config" not in profile
    # the automatic workflow profile must not carry a default-resources block either
    assert "default-resources" not in load("profiles/default/config.yaml")


def test_site_example_carries_the_site_values_and_the_replaced_defaults():
    text = (ROOT / "profiles/site.example/config.yaml").read_text()
    site = load("profiles/site.example/config.yaml")["default-resources"]
    shared = load("profiles/slurm/config.yaml")["default-resources"]
    # The partition is shown but not live: a copy used as is must not send jobs to a
    # partition the site may not have (the cluster test uncomments it with sed).
    assert "slurm_partition" not in site
    assert "\n  # slurm_partition: " in text
    # its block replaces the shared one, so it repeats every shared default
    assert {k: site[k] for k in shared} == shared


def test_cluster_test_uses_a_partition_no_profile_names():
    script = (ROOT / "tests/cluster/run_slurm_test.sh").read_text()
    cluster = (ROOT / "tests/cluster/slurm_local.sh").read_text()
    assert "SITE_PARTITION=scievals_site" in script
    assert 'PARTITION="${SCIEVALS_SLURM_PARTITION:-scievals_site}"' in cluster
    for path in ("profiles/slurm/config.yaml", "profiles/site.example/config.yaml",
                 "profiles/default/config.yaml"):
        assert "scievals_site" not in (ROOT / path).read_text(), path


def test_cluster_doc_lists_every_rule():
    """docs/cluster.md's "What runs where" names every rule of rules/*.smk (rules named in a
    loop by their pattern: report_<benchmark>, abdev_score_own_<k>, <benchmark>)."""
    import re

    doc = (ROOT / "docs/cluster.md").read_text()
    table = doc[doc.index("| jobs | where | why |"):].split("\n\n")[0]
    named = set(re.findall(r"`([^`]+)`", table))
    rules = set()
    for path in (ROOT / "rules").glob("*.smk"):
        rules |= set(re.findall(r"^rule (\w+):", path.read_text(), re.M))
    assert rules, "no rules found"
    assert rules - named == set()
    from scievals import registry

    assert {"report_<benchmark>", "abdev_score_own_<k>", "all",
            *registry.NAMES} <= named
