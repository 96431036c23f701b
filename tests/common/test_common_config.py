import copy

import pytest
from scievals.registry import NAMES
from scievals.common.errors import ScievalsError
from scievals.common.io import read_yaml
from scievals.config_validation import validate_config


@pytest.fixture()
def config(repo_root):
    return read_yaml(repo_root / "config" / "config.yaml")


def test_default_config_is_valid_and_gets_defaults(config):
    validate_config(config)
    assert config["bootstrap"] == {"n_resamples": 1000, "seed": 0, "method": "auto",
                                   "proportion": "auto"}
    assert config["comparisons"] == {"all_pairs": False, "max_family_arms": 1000}
    assert config["abdev"]["num_folds"] == 5
    assert config["models"]["random"]["max_connections"] == 8
    assert config["llm"]["cache_mode"] == "use"


def test_empty_config_gets_every_default():
    config = {}
    validate_config(config)
    assert config["benchmarks"] == list(NAMES)  # every registered benchmark, in order
    assert config["abdev"]["source"] == "auto"


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda c: c["abdev"].update(sourc="demo"),
         "config: abdev: unknown key(s) ['sourc'] (allowed keys: ['allow_unverified'"),
        (lambda c: c["abdev"].update(source="web"),
         "config: abdev.source: 'web' is not allowed (allowed values: ['auto', 'remote', 'file', 'demo'])"),
        (lambda c: c["bootstrap"].update(n_resamples="many"),
         "config: bootstrap.n_resamples: 'many' is not of type integer"),
        (lambda c: c.update(benchmarks=["abdev", "chess"]),
         "config: benchmarks.1: 'chess' is not allowed (allowed values: ['abdev', 'gating'"),
        (lambda c: c["models"]["random"].update(provider="hal"),
         "config: models.random.provider: 'hal' is not allowed"),
        (lambda c: c["models"].update(gpt={"provider": "openai"}),
         "config: models.gpt: provider openai needs a model id (add model: <provider's model id>"),
        # keys, types and limits of an entry come from the LLM layer's pydantic model
        (lambda c: c["models"]["random"].update(max_connections=0),
         "config: models.random.max_connections: 0 is less than the minimum of 1"),
        (lambda c: c["models"]["random"].update(params={"top_p": 2}),
         "config: models.random.params.top_p: 2 is greater than the maximum of 1"),
        (lambda c: c["models"]["random"].update(colour="red"),
         "config: models.random: unknown key(s) ['colour'] (allowed keys: ['api_key_env'"),
        (lambda c: c["models"].update(m={"provider": "mock", "price_in_per_mtok": 1.0}),
         "config: models.m: only one of price_in_per_mtok / price_out_per_mtok is set"),
        (lambda c: c["llm"].update(cache_mode="sometimes"),
         "config: llm.cache_mode: 'sometimes' is not allowed (allowed values: ['use', 'refresh', 'off'])"),
        (lambda c: c["llm"].update(max_attempts=0),
         "config: llm.max_attempts: 0 is less than the minimum of 1"),
        (lambda c: c["abdev"].update(models=["random", "nope"]),
         "config: abdev.models: model 'nope' is not in the model registry"),
        # issue 14 item 5: an empty list would make a benchmark (or everything) vanish
        (lambda c: c["abdev"].update(models=[]), "config: abdev.models: [] should be non-empty"),
        (lambda c: c["gating"].update(models=[]), "config: gating.models: [] should be non-empty"),
        (lambda c: c.update(benchmarks=[]), "config: benchmarks: [] should be non-empty"),
        # the data-source keys are the same in every section
        (lambda c: c["gating"].update(source="web"), "config: gating.source: 'web' is not allowed"),
        (lambda c: c["abdev"].update(sha256="g" * 64), f"config: abdev.sha256: '{'g' * 64}' does not match"),
        # issue 14 item 10: no download without a checksum unless the user says so
        (lambda c: c["abdev"].update(sha256=""),
         "config: abdev.sha256: '' is too short (A url needs its sha256 (or allow_unverified: true).)"),
        (lambda c: c["gating"].update(source="file", path="~/ws"),
         "config: gating.sha256: '' is too short (source: file checks the copy"),
    ],
)
def test_bad_config_gives_one_line_naming_the_key(config, mutate, expected):
    bad = copy.deepcopy(config)
    mutate(bad)
    with pytest.raises(ScievalsError) as info:
        validate_config(bad)
    message = info.value.one_line()
    assert message.startswith(expected)
    assert "\n" not in message


def test_optional_source_keys_fall_back_to_the_pinned_defaults(config):
    """issue 14 item 10: removing url/sha256/hf_url/heldout_* keys must not break anything."""
    for key in ("url", "sha256", "heldout_url", "heldout_sha256", "hf_url", "download_timeout_s"):
        del config["abdev"][key]
    validate_config(config)
    assert config["abdev"]["sha256"] == (
        "4fed9d17118d587a46b369e2dd40941f42506e40a7850d8d896de37742a29c37")
    assert config["abdev"]["url"].endswith("/data/GDPa1_v1.2_20250814.csv")
    assert config["abdev"]["heldout_sha256"].startswith("e2ef01ce")
    assert config["abdev"]["hf_url"].startswith("https://huggingface.co/")
    # every benchmark section gets the same data-source keys
    for section in ("abdev", "gating"):
        assert {"source", "url", "sha256", "path", "allow_unverified", "download_timeout_s",
                "max_download_mb"} <= set(config[section])
    assert config["gating"]["source"] == "auto" and config["gating"]["sha256"] == ""


def test_allow_unverified_accepts_a_source_without_checksum(config):
    config["abdev"].update(sha256="", allow_unverified=True)
    config["gating"].update(source="file", path="~/ws", allow_unverified=True)
    validate_config(config)


def test_a_benchmark_schema_may_not_redefine_a_data_source_key(tmp_path):
    from scievals.common.config import section_schema

    class Fake:
        name, title, baselines = "fake", "fake", ()
        schema = tmp_path / "fake.schema.yaml"

    Fake.schema.write_text("type: object\nproperties:\n  source: {enum: [web]}\n")
    with pytest.raises(ScievalsError, match="redefines the data-source key 'source'"):
        section_schema(Fake)
    Fake.schema.write_text("type: object\nproperties:\n  source: {default: demo}\n")
    assert section_schema(Fake)["properties"]["source"]["enum"] == ["auto", "remote", "file", "demo"]
    assert section_schema(Fake)["properties"]["source"]["default"] == "demo"


@pytest.mark.parametrize(("key", "value", "expected"), [
    # issue 46 item 4: `max_mb: .nan` passed `minimum: 0` and then pruned every kept run
    ("max_mb", float("nan"), ("config: run_logs.max_mb: nan is not a finite number "
                              "(give a finite number, e.g. the default 500)")),
    ("max_mb", float("inf"), "config: run_logs.max_mb: inf is not a finite number"),
    ("max_mb", -1, "config: run_logs.max_mb: -1 is less than the minimum of 0"),
    ("keep", float("nan"), "config: run_logs.keep: nan is not a finite number"),
    ("keep", -1, "config: run_logs.keep: -1 is less than the minimum of 0"),
])
def test_a_size_that_is_not_a_finite_non_negative_number_is_refused(config, key, value,
                                                                    expected):
    bad = copy.deepcopy(config)
    bad.setdefault("run_logs", {})[key] = value
    with pytest.raises(ScievalsError) as info:
        validate_config(bad)
    assert info.value.one_line().startswith(expected)


@pytest.mark.parametrize("mutate", [
    lambda c: c["abdev"].update(max_download_mb=float("inf")),
    lambda c: c["models"]["random"].update(max_connections=float("nan")),
    lambda c: c["bootstrap"].update(n_resamples=float("-inf")),
])
def test_no_number_setting_takes_nan_or_infinity(config, mutate):
    bad = copy.deepcopy(config)
    mutate(bad)
    with pytest.raises(ScievalsError, match="is not a finite number"):
        validate_config(bad)
