"""Config files are read as user input before anything hashes them (issue 30, item 2).

A 1 KB alias bomb as a ``--configfile`` took 2.9 GB before validation (the config was
hashed, canonical_json, first); 20,000-deep nesting was a 3,984-line RecursionError stack, a
number as a key a TypeError stack, and a key written twice silently took its last value.
:func:`scievals.workflow_config.read_config_file` reads every config file through the
bounded YAML reader with one line per problem; the Snakefile calls it on the workflow's
config and every ``--configfile`` before the config check.
"""

from __future__ import annotations

import resource
import string

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scievals.common.errors import ScievalsError
from scievals.workflow_config import read_config_file
from support.hostile_yaml import alias_bomb


def _one_line(exc: pytest.ExceptionInfo, *parts: str) -> str:
    line = exc.value.one_line()
    assert "\n" not in line
    for part in parts:
        assert part in line, line
    return line


def test_an_alias_bomb_is_one_line_without_expanding(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb())
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ScievalsError) as exc:
        read_config_file(path)
    _one_line(exc, str(path), "aliases expand to more than 10,000 extra nodes")
    # peak memory grew by well under 100 MB (ru_maxrss is in KiB on Linux)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000


def test_nesting_20000_deep_is_one_line(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text("gating: " + "[" * 20_000 + "]" * 20_000 + "\n")
    with pytest.raises(ScievalsError) as exc:
        read_config_file(path)
    _one_line(exc, str(path), "nested too deeply")


def test_a_number_as_a_key_is_one_line_naming_the_key(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("gating:\n  contexts:\n    - {1: x}\n")
    with pytest.raises(ScievalsError) as exc:
        read_config_file(path)
    _one_line(exc, f"{path}: gating.contexts.0", "key 1 is not text")


def test_a_key_written_twice_names_the_key_and_both_lines(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("bootstrap:\n  n_resamples: 10\nllm: {}\nbootstrap:\n  n_resamples: 20\n")
    with pytest.raises(ScievalsError) as exc:
        read_config_file(path)
    # the second "bootstrap" is on line 4, the first on line 1
    _one_line(exc, f"{path}:4", "key 'bootstrap' appears twice", "first on line 1")


def test_merge_keys_and_the_same_key_in_two_mappings_are_fine(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("base: &b {temperature: 0}\nmodels:\n  a: {<<: *b, model: x}\n"
                    "  b: {<<: *b, model: y}\n")
    data = read_config_file(path)
    assert data["models"] == {"a": {"temperature": 0, "model": "x"},
                              "b": {"temperature": 0, "model": "y"}}


def test_a_list_at_the_top_is_refused(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("- a\n- b\n")
    with pytest.raises(ScievalsError) as exc:
        read_config_file(path)
    _one_line(exc, str(path), "not a mapping")


# --- properties -------------------------------------------------------------------------

_KEYS = st.text(alphabet=string.ascii_letters + string.digits + "_-.", min_size=1, max_size=8)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                     st.text(alphabet=string.printable.strip() + " é", max_size=12))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=4)), max_leaves=25)
_CONFIGS = st.dictionaries(_KEYS, _VALUES, max_size=6)
PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@PROPERTY
@given(config=_CONFIGS)
def test_any_plain_config_reads_back_as_written(tmp_path, config):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True))
    assert read_config_file(path) == config


@PROPERTY
@given(config=_CONFIGS.filter(bool), data=st.data())
def test_a_key_repeated_anywhere_is_refused_naming_it(tmp_path, config, data):
    # Write the config, then one mapping's first key once more with another value.
    text = yaml.safe_dump(config, default_flow_style=False, sort_keys=False)
    key = data.draw(st.sampled_from(sorted(config)))
    path = tmp_path / "c.yaml"
    path.write_text(text + f"{yaml.safe_dump({key: 'again'}).strip()}\n")
    with pytest.raises(ScievalsError) as exc:
        read_config_file(path)
    _one_line(exc, str(path), "appears twice")


@PROPERTY
@given(config=_CONFIGS, bad=st.one_of(st.integers(), st.booleans(), st.none()))
def test_a_key_that_is_not_text_is_refused(tmp_path, config, bad):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({**config, "models": {"m": {bad: 1}}}))
    with pytest.raises(ScievalsError) as exc:
        read_config_file(path)
    _one_line(exc, f"{path}: models.m", "is not text")


@PROPERTY
@given(text=st.text(max_size=300))
def test_any_text_is_a_mapping_or_one_line(tmp_path, text):
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        data = read_config_file(path)
    except ScievalsError as exc:
        assert "\n" not in exc.one_line()
    else:
        assert isinstance(data, dict)
