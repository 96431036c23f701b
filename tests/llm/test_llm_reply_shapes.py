"""Replies of OpenAI-compatible servers that are not the plain shape (issue 30, item 12).

Over real HTTP against the fake server: ``content`` as a list of text parts is read (it
used to kill the job with a pydantic traceback), a 200 with an ``error`` object beside its
choices is an error (retried, then failed and counted; it used to be scored), and replies
cut at max_tokens are said at the end of the run; a parser that would repair such a cut
reply counts it as failed, not parsed.
"""

from __future__ import annotations

import json

import pytest
from llm_helpers import make_requests, openai_spec
from scievals.gating.predict import reply_record as gating_record
from scievals.llm.base import LLMRequest, LLMResponse, Message
from scievals.llm.providers.openai_compat import message_text
from scievals.llm.runner import run_batch


def test_content_as_a_list_of_text_parts_is_joined(server, fake_key, settings):
    server.script["q1"] = ["parts"]
    result = run_batch(openai_spec(server), make_requests(2), settings, scope="test/v1")
    by_case = {r.case_id: r for r in result.responses}
    # the fake server splits "reply: q1" (9 characters) into "repl" + "y: q1"
    assert by_case["case1"].error is None and by_case["case1"].text == "reply: q1"
    assert by_case["case1"].attempts == 1 and server.count == 2


@pytest.mark.parametrize(("content", "text"), [
    (None, ""), ("plain", "plain"),
    ([{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "x"}},
      {"type": "text", "text": "b"}], "ab"),
    (["a", {"text": "b"}], "ab"), ([], ""),
])
def test_message_text_reads_every_content_shape(content, text):
    assert message_text(content) == text


def test_a_200_with_an_error_object_is_retried(server, fake_key, settings):
    server.script["q0"] = ["error200"]
    result = run_batch(openai_spec(server), make_requests(2), settings, scope="test/v1")
    first = result.responses[0]
    assert first.error is None and first.text == "reply: q0" and first.attempts == 2


def test_a_200_with_an_error_object_every_time_is_a_counted_failure(server, fake_key, settings,
                                                                    notice_dir):
    server.script["q0"] = ["error200"] * settings.max_attempts
    result = run_batch(openai_spec(server), make_requests(3), settings, scope="gating/v1")
    first = result.responses[0]
    assert first.text is None and "answered 200 with an error: upstream overloaded" in first.error
    assert first.attempts == settings.max_attempts
    [line] = (notice_dir / next(p.name for p in notice_dir.iterdir())).read_text().splitlines()
    notice = json.loads(line)
    assert notice["kind"] == "failed_request" and notice["details"]["failed"] == 1


def test_truncated_replies_are_said_at_the_end_of_the_run(server, fake_key, settings,
                                                          notice_dir):
    requests = make_requests(3)
    for request in requests:
        server.script[request.messages[-1].content] = ["length"]
    spec = openai_spec(server, params={"max_tokens": 64})
    result = run_batch(spec, requests, settings, scope="gating/v1")
    assert [r.stop_reason for r in result.responses] == ["length"] * 3
    notices = [json.loads(line) for path in notice_dir.iterdir()
               for line in path.read_text().splitlines()]
    [notice] = [n for n in notices if n["kind"] == "truncated_replies"]
    assert notice["message"].startswith("fake-gpt: 3 of 3 replies were truncated at max_tokens "
                                        "(64)")
    assert "raise models.fake-gpt.params.max_tokens" in notice["message"]


def _gating_reply(text: str, stop_reason: str) -> dict:
    request = LLMRequest(case_id="c1", messages=[Message(role="user", content="gate it")])
    response = LLMResponse(case_id="c1", text=text, stop_reason=stop_reason)
    return gating_record("c1", "m", "minimal", "direct", request, response)


CUT_JSON = ('{"name": "All Events", "children": [{"name": "Singlets", "children": '
            '[{"name": "Live", "children": [{"name": "CD3+ T ce')


def test_a_reply_cut_mid_json_is_truncated_not_repaired_and_parsed():
    # The same text with finish_reason "stop" is repaired and parsed (the parser's own
    # behaviour on broken JSON), so it is the stop reason that decides.
    stopped = _gating_reply(CUT_JSON, "stop")
    assert stopped["parse_status"] == "ok" and stopped["parse_method"].endswith("_repaired")
    cut = _gating_reply(CUT_JSON, "length")
    assert cut["parse_status"] == "failed" and cut["hierarchy"] is None
    assert cut["task_failure"] == "truncated" and "max_tokens" in cut["parse_error"]


def test_a_cut_reply_whose_json_is_complete_still_counts():
    whole = ('{"name": "All Events", "children": [{"name": "Singlets", "children": '
             '[{"name": "Live"}]}]}\nNow the rationa')
    record = _gating_reply(whole, "length")
    assert record["parse_status"] == "ok" and not record["parse_method"].endswith("_repaired")


def test_an_autogkb_reply_cut_mid_json_is_failed_with_no_annotations():
    from scievals.autogkb.predict import reply_record as autogkb_record

    cut = '[{"Gene": "CYP2D6", "Alleles": "*4"}, {"Gene": "CYP2C19", "Alle'
    request = LLMRequest(case_id="PMC1", messages=[Message(role="user", content="annotate")])
    case = {"case_id": "PMC1", "text_mode": "methods"}
    # finish_reason "stop": repaired into two annotations, as the parser does for broken JSON
    stopped = autogkb_record(case, "m", request,
                             LLMResponse(case_id="PMC1", text=cut, stop_reason="stop"))
    assert stopped["parse_status"] == "ok" and len(stopped["annotations"]) == 2
    record = autogkb_record(case, "m", request,
                            LLMResponse(case_id="PMC1", text=cut, stop_reason="length"))
    assert record["parse_status"] == "failed" and record["annotations"] == []
    assert "max_tokens" in record["parse_error"]
