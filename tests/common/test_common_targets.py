"""A target no rule makes is named with the valid targets (scievals.common.targets)."""

from __future__ import annotations

import re

import pytest
from scievals.common.errors import ScievalsError
from scievals.common.targets import check_targets, command_line_targets, unknown_targets


class FakeRule:
    def __init__(self, name: str, pattern: str | None = None) -> None:
        self.name = name
        self.pattern = re.compile(pattern) if pattern else None

    def is_producer(self, requested_output: str) -> bool:
        return bool(self.pattern and self.pattern.fullmatch(requested_output))


RULES = [FakeRule("gating"), FakeRule("gating_score", r"results/gating/scores/[^/]+\.csv")]


def test_rule_names_rule_outputs_and_existing_files_are_targets():
    targets = ["gating", "results/gating/scores/m.csv", "README.md", "gatin", "results/x.csv"]
    assert unknown_targets(targets, RULES, exists=lambda p: p == "README.md") == [
        "gatin", "results/x.csv"]


def test_targets_are_read_as_snakemake_reads_them():
    assert command_line_targets(["--cores", "8", "gating", "abdev"]) == ["gating", "abdev"]
    # --configfile takes every word after it: no target left (the README puts targets first)
    assert command_line_targets(["--cores", "8", "--configfile", "my.yaml", "gating"]) == []
    assert command_line_targets(["--cores", "8", "gating", "--configfile", "my.yaml"]) == [
        "gating"]
    assert command_line_targets(["-R", "abdev_score", "--", "abdev"]) == ["abdev"]


def test_an_unknown_target_is_one_error_listing_the_valid_ones():
    with pytest.raises(ScievalsError) as info:
        check_targets(["--cores", "1", "gatin"], RULES, valid=["gating", "results/summary.csv"],
                      exists=lambda p: False)
    line = info.value.one_line()
    assert "no rule makes 'gatin'" in line and "valid targets: gating, results/summary.csv" in line
    check_targets(["--cores", "1", "gating"], RULES, valid=["gating"], exists=lambda p: False)
