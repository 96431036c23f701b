"""Hostile or odd servers (issue 46 item 5): a server's error text reaches the terminal and
the records only escaped, on one line and bounded, on the retry path (5xx) and the
rejection path (400); a 400 to a request that carried a JSON schema, whatever it names, is
asked again without the schema under ``structured_output: auto`` and names
``structured_output: "off"`` as the fix otherwise; a malformed base URL is one line."""

from __future__ import annotations

import logging

import pytest
from llm_helpers import make_requests, openai_spec
from scievals.common.errors import ScievalsError
from scievals.gating.prompts import build_request as gating_request
from scievals.llm.providers._sdk_errors import MAX_MESSAGE_CHARS, server_text
from scievals.llm.registry import base_url_parts, model_spec
from scievals.llm.runner import run_batch

# clear screen, a window title, a bell, CR LF (a second, forged line), then 2,000 characters
HOSTILE = ("\x1b[2J\x1b]0;owned\x07boom\r\nerror: forged second line\u202e" + "x" * 2000)
CASE = {"test_case_id": "C1", "panel": {"entries": [{"marker": "CD3", "fluorophore": "FITC"}]},
        "context": {"sample_type": "PBMC", "species": "human", "application": "test"}}


def shows_safely(text: str) -> None:
    assert not any(c in text for c in "\x1b\x07\r\n\u202e")
    assert "\\u001b[2J\\u001b]0;owned\\u0007boom\\u000d\\u000aerror: forged" in text


def test_server_text_is_escaped_on_one_line_and_bounded():
    # 4 escapes of 6 characters replace 4 characters: the cut comes after the escaping, so
    # what is printed is at most MAX_MESSAGE_CHARS (+ "...") whatever the server sent
    shown = server_text(HOSTILE)
    shows_safely(shown)
    assert len(shown) == MAX_MESSAGE_CHARS + 3 and shown.endswith("...")
    assert server_text("plain words") == "plain words"


def test_the_retry_path_keeps_a_servers_escapes_out_of_the_log_and_records(
        server, settings, fake_key, caplog):
    server.error_messages[500] = HOSTILE
    server.script["q0"] = ["500"] * 10  # every attempt fails: the request's error is kept
    with caplog.at_level(logging.WARNING):
        result = run_batch(openai_spec(server), make_requests(3), settings, scope="test/hostile")
    [failed] = [r for r in result.responses if r.error]
    shows_safely(failed.error)
    assert failed.error.startswith("HTTP 500: ")
    logged = [r.getMessage() for r in caplog.records if "HTTP 500" in r.getMessage()]
    assert logged
    for message in logged:  # the warning after the retries and the failed-request notice
        shows_safely(message)


def test_the_rejection_path_is_one_escaped_line(server, settings, fake_key):
    server.error_messages[400] = HOSTILE
    server.script["q0"] = ["400"]
    with pytest.raises(ScievalsError) as caught:
        run_batch(openai_spec(server), make_requests(1), settings, scope="test/hostile")
    line = caught.value.one_line()
    shows_safely(line)
    assert line.startswith("model 'fake-gpt' (openai at http://127.0.0.1:")
    assert "request rejected (HTTP 400: " in line


def test_a_400_naming_no_parameter_is_asked_again_without_the_schema(
        server, settings, fake_key):
    # the server refuses the schema with a message that does not name response_format
    server.rejected_params = {"response_format"}
    server.error_messages[400] = "strict mode is not supported for this model"
    spec = openai_spec(server, max_connections=1)
    requests = [gating_request(CASE, "minimal", "direct"),
                gating_request({**CASE, "test_case_id": "C2"}, "standard", "direct")]
    result = run_batch(spec, requests, settings, scope="test/structured")
    # request 1 with the schema (400), again without; request 2 without it at once
    assert ["response_format" in r["body"] for r in server.requests] == [True, False, False]
    assert all(r.error is None for r in result.responses)
    assert [r.structured_output for r in result.responses] == ["refused", "refused"]


def test_a_400_the_schema_did_not_cause_fails_as_before(server, settings, fake_key):
    # every request of this prompt is refused, with the schema or without it: the prompt's
    # fault, so the fix is about the model, not structured output
    request = gating_request(CASE, "minimal", "direct")
    server.script[request.messages[-1].content] = ["400", "400"]
    server.error_messages[400] = "context length exceeded"
    with pytest.raises(ScievalsError) as caught:
        run_batch(openai_spec(server), [request], settings, scope="test/structured")
    assert server.count == 2
    assert "request rejected (HTTP 400: context length exceeded)" in caught.value.one_line()
    assert "structured_output" not in caught.value.one_line()


def test_with_structured_output_on_a_400_names_the_setting_as_the_fix(server, settings,
                                                                      fake_key):
    server.rejected_params = {"response_format"}
    server.error_messages[400] = "invalid value for 'strict'"
    with pytest.raises(ScievalsError) as caught:
        run_batch(openai_spec(server, structured_output="on"),
                  [gating_request(CASE, "minimal", "direct")], settings, scope="test/structured")
    line = caught.value.one_line()
    assert "request with a JSON schema rejected (HTTP 400: invalid value for 'strict')" in line
    assert 'set models.fake-gpt.structured_output: "off" if the server does not take one' in line
    assert server.count == 1


@pytest.mark.parametrize(("url", "problem"), [
    ("http://[::1", "'http://[::1' is not a URL (Invalid IPv6 URL)"),
    ("http://h:99999/v1", "is not a URL (Port out of range 0-65535)"),
    ("http://h:port/v1", "is not a URL (Port could not be cast to integer value as 'port')"),
    ("http://[zz]/v1", "is not a URL ('zz' does not appear to be an IPv4 or IPv6 address)"),
    ("localhost:8000/v1", "'localhost:8000/v1' is not an http(s) URL"),
    ("http:///v1", "is not an http(s) URL"),
    ("http://u:secret@[::1/v1", "'http://***@[::1/v1' is not a URL"),
])
def test_every_malformed_base_url_is_one_line_in_the_config_check(url, problem):
    config = {"models": {"x": {"provider": "openai", "model": "m", "base_url": url}}}
    with pytest.raises(ScievalsError) as caught:
        model_spec("x", config)
    line = caught.value.one_line()
    assert line.startswith(f"config: models.x.base_url: {problem}") or (
        line.startswith("config: models.x.base_url: ") and problem in line)
    assert "\n" not in line and "secret" not in line


def test_good_base_urls_give_their_host_and_port():
    assert base_url_parts("x", "http://[::1]:8000/v1") == ("::1", 8000)
    assert base_url_parts("x", "https://api.example.org/v1") == ("api.example.org", 443)
    assert base_url_parts("x", "http://localhost/v1") == ("localhost", 80)


def test_run_refuses_a_malformed_base_url_in_one_line(tmp_path, monkeypatch, capsys):
    from scievals.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["run", "gating", "--model", "openai/m", "--base-url", "http://[::1",
                 "--print-command"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: --base-url: 'http://[::1' is not a URL (Invalid IPv6 URL)")
    assert err.count("\n") == 1
    assert not (tmp_path / ".scievals").exists()  # refused before anything was written
