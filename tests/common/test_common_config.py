import copy

import pytest
from scievals.benchmarks import validate_config
from scievals.common.errors import ScievalsError
from scievals.common.io import read_yaml


@pytest.fixture()
def config(repo_root):
    return read_yaml(repo_root / "config" / "config.yaml")


def test_default_config_is_valid_and_gets_defaults(config):
    validate_config(config)
    assert config["bootstrap"] == {"n_resamples": 1000, "seed": 0}
    assert config["abdev"]["num_folds"] == 5
    assert config["models"]["random"]["max_connections"] == 8
    assert config["llm"]["cache_mode"] == "use"


def test_empty_config_gets_every_default():
    config = {}
    validate_config(config)
    assert config["benchmarks"] == ["abdev", "gating"]
    assert config["abdev"]["source"] == "auto"


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda c: c["abdev"].update(sourc="demo"),
         "config: abdev: unknown key(s) ['sourc'] (allowed keys: ['download_timeout_s'"),
        (lambda c: c["abdev"].update(source="web"),
         "config: abdev.source: 'web' is not allowed (allowed values: ['auto', 'remote', 'demo'])"),
        (lambda c: c["bootstrap"].update(n_resamples="many"),
         "config: bootstrap.n_resamples: 'many' is not of type integer"),
        (lambda c: c.update(benchmarks=["abdev", "chess"]),
         "config: benchmarks.1: 'chess' is not allowed (allowed values: ['abdev', 'gating'])"),
        (lambda c: c["models"]["random"].update(provider="hal"),
         "config: models.random.provider: 'hal' is not allowed"),
        (lambda c: c["models"].update(gpt={"provider": "openai"}),
         "config: models.gpt: 'model' is a required property (add the key)"),
        (lambda c: c["abdev"].update(models=["random", "nope"]),
         "config: abdev.models: model 'nope' is not in the model registry"),
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
