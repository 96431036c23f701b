"""An unchanged config is not validated twice; any change to it, a schema or the checking code
validates again, and an error is never cached."""

from __future__ import annotations

import copy
import json

import pytest
from scievals.common import config_cache
from scievals.common.errors import ScievalsError


def _check(calls):
    def check(config):
        calls.append(copy.deepcopy(config))
        if config.get("bad"):
            raise ScievalsError("config: bad", "is not allowed")
        config.setdefault("filled", {"b": 2, "a": 1})  # a default, keys out of order
        return config
    return check


@pytest.fixture
def sources(tmp_path):
    schema = tmp_path / "schema.yaml"
    schema.write_text("type: object\n")
    return [schema]


def test_the_same_config_is_checked_once_and_filled_the_same(tmp_path, sources):
    calls = []
    first = config_cache.validated({"x": 1}, _check(calls), sources, tmp_path / "cache")
    again = config_cache.validated({"x": 1}, _check(calls), sources, tmp_path / "cache")
    assert len(calls) == 1
    assert again == first == {"x": 1, "filled": {"b": 2, "a": 1}}
    # key order kept (rule params print config sections)
    assert list(again["filled"]) == ["b", "a"]


def test_a_changed_config_or_source_is_checked_again(tmp_path, sources):
    calls = []
    cache = tmp_path / "cache"
    config_cache.validated({"x": 1}, _check(calls), sources, cache)
    config_cache.validated({"x": 2}, _check(calls), sources, cache)
    sources[0].write_text("type: object\nrequired: [x]\n")
    config_cache.validated({"x": 1}, _check(calls), sources, cache)
    assert [c["x"] for c in calls] == [1, 2, 1]


def test_an_invalid_config_raises_every_time(tmp_path, sources):
    calls = []
    for _ in range(2):
        with pytest.raises(ScievalsError, match="config: bad"):
            config_cache.validated({"bad": True}, _check(calls), sources, tmp_path / "cache")
    assert len(calls) == 2
    assert not list((tmp_path / "cache").glob("*.json"))


def test_an_unreadable_cache_entry_is_checked_again(tmp_path, sources):
    calls = []
    cache = tmp_path / "cache"
    config_cache.validated({"x": 1}, _check(calls), sources, cache)
    [entry] = cache.glob("*.json")
    entry.write_text("{not json")
    assert config_cache.validated({"x": 1}, _check(calls), sources, cache)["filled"] == {
        "b": 2, "a": 1}
    assert len(calls) == 2 and json.loads(entry.read_text())["x"] == 1


def test_the_workflow_check_through_the_cache_equals_the_plain_check(tmp_path, repo_root):
    from scievals.common.io import read_yaml
    from scievals.config_validation import validate_config
    from scievals.workflow_config import validated

    plain = validate_config(read_yaml(repo_root / "config" / "config.yaml"))
    for _ in range(2):  # a miss, then a hit
        cached = validated(read_yaml(repo_root / "config" / "config.yaml"), tmp_path / "cache")
        assert cached == plain and list(cached) == list(plain)
    assert len(list((tmp_path / "cache").glob("*.json"))) == 1
