"""URL credentials out of what is written or printed (issue 30, item 1): the one function."""

from __future__ import annotations

import json

import pytest
from scievals.common.errors import ScievalsError
from scievals.common.redaction import (
    CREDENTIALS_ENV,
    export_credentials,
    holds_credentials,
    redact_data,
    redact_text,
    restore_url,
)


@pytest.mark.parametrize(("text", "shown"), [
    ("http://user:S3cretPass@host:4000/v1", "http://***@host:4000/v1"),
    ("https://only-a-token@gw.example/v1", "https://***@gw.example/v1"),
    # an unencoded "@" in the password: everything up to the last "@" of the authority goes
    ("http://u:p@ss@host/v1", "http://***@host/v1"),
    ("at http://u:pw@h/v1/chat or http://a:b@g/x", "at http://***@h/v1/chat or http://***@g/x"),
    # no userinfo: unchanged, "@" after the path is not userinfo
    ("http://localhost:11434/v1", "http://localhost:11434/v1"),
    ("http://host/v1/a@b", "http://host/v1/a@b"),
    ("user@example.org wrote", "user@example.org wrote"),
])
def test_redact_text_replaces_the_whole_userinfo(text, shown):
    assert redact_text(text) == shown


def test_redact_text_also_replaces_given_secrets_of_four_characters_or_more():
    assert redact_text("key sk-abc in a message", ["sk-abc"]) == "key *** in a message"
    assert redact_text("a b c", ["b"]) == "a b c"  # too short to search for


def test_redact_data_copies_nested_config_without_credentials():
    config = {"models": {"gw": {"base_url": "http://u:pw@h/v1", "params": {"stop": ["x"]}}},
              "command": ["--config", "models={gw: {base_url: 'http://u:pw@h'}}"], "n": 3}
    redacted = redact_data(config)
    assert redacted == {"models": {"gw": {"base_url": "http://***@h/v1",
                                          "params": {"stop": ["x"]}}},
                        "command": ["--config", "models={gw: {base_url: 'http://***@h'}}"],
                        "n": 3}
    assert config["models"]["gw"]["base_url"] == "http://u:pw@h/v1"  # the input is untouched
    assert holds_credentials(config) and not holds_credentials(redacted)


def test_a_job_restores_the_url_from_the_environment(monkeypatch):
    monkeypatch.setenv(CREDENTIALS_ENV, "")  # undone after the test, as export's value
    models = {"gw": {"base_url": "http://u:pw@h/v1"}, "local": {"base_url": "http://h2/v1"},
              "base": {"provider": "baseline"}}
    assert export_credentials(models) == [CREDENTIALS_ENV]
    import os

    assert json.loads(os.environ[CREDENTIALS_ENV]) == {"gw": "http://u:pw@h/v1"}
    assert restore_url("gw", "http://***@h/v1") == "http://u:pw@h/v1"
    assert restore_url("local", "http://h2/v1") == "http://h2/v1"
    assert restore_url("gw", None) is None


def test_a_redacted_url_without_its_credentials_is_one_line_without_them(monkeypatch):
    monkeypatch.delenv(CREDENTIALS_ENV, raising=False)
    with pytest.raises(ScievalsError, match="credentials did not reach this job") as exc:
        restore_url("gw", "http://***@h/v1")
    assert "config: models.gw.base_url: http://***@h/v1" in exc.value.one_line()


def test_no_credentials_export_nothing(monkeypatch):
    monkeypatch.setenv(CREDENTIALS_ENV, "")
    assert export_credentials({"m": {"base_url": "http://localhost/v1"}}) == []
    import os

    assert os.environ[CREDENTIALS_ENV] == ""


def test_data_without_credentials_is_returned_as_the_same_object():
    # rule params keep their exact value (a tuple stays a tuple): Snakemake re-runs a job
    # whose params print differently
    params = {"contexts": ("minimal", "rich"), "n": 3}
    assert redact_data(params) is params


def test_a_redacted_params_function_keeps_its_signature():
    import inspect

    from scievals.common.job_spec import redacted_param

    def config(wildcards):
        return {"base_url": f"http://u:pw@h/{wildcards}"}

    wrapped = redacted_param(config)
    # Snakemake treats a function of input/output differently from one of the wildcards
    assert list(inspect.signature(wrapped).parameters) == ["wildcards"]
    assert wrapped("v1") == {"base_url": "http://***@h/v1"}


def test_credentials_inherited_from_the_run_command_stay_beside_the_configs(monkeypatch):
    # `python -m scievals run --base-url http://u:pw@h/v1` writes http://***@h/v1 into its
    # overlay and starts Snakemake with the full URL in the environment; a model of the
    # user's config with its own credentials must not push it out.
    monkeypatch.setenv(CREDENTIALS_ENV, json.dumps({"cli": "http://u:pw@h/v1"}))
    models = {"cli": {"base_url": "http://***@h/v1"}, "gw": {"base_url": "http://v:pw2@g/v1"}}
    assert export_credentials(models) == [CREDENTIALS_ENV]
    assert restore_url("cli", "http://***@h/v1") == "http://u:pw@h/v1"
    assert restore_url("gw", "http://***@g/v1") == "http://v:pw2@g/v1"
    # ... and only that: one the config has not redacted alike is not restored
    with pytest.raises(ScievalsError, match="credentials did not reach this job"):
        restore_url("cli", "http://***@other/v1")
