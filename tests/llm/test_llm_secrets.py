"""The API key is used on the wire and written nowhere: cache, records, usage, logs, errors."""

from __future__ import annotations

import logging

import pytest
from llm_helpers import FAKE_KEY, anthropic_spec, make_requests, openai_spec
from scievals.common.errors import ScievalsError
from scievals.llm.runner import run_batch
from scievals.llm.usage import write_usage


def files_containing(root, needle: str) -> list[str]:
    hits = []
    for path in root.rglob("*"):
        if path.is_file() and needle.encode() in path.read_bytes():
            hits.append(str(path))
    return hits


def test_no_file_written_by_a_run_contains_the_key(server, fake_key, settings, tmp_path):
    log_file = tmp_path / "logs" / "predict.log"
    log_file.parent.mkdir()
    handler = logging.FileHandler(log_file)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)  # everything, including the HTTP clients' debug lines
    try:
        server.error_messages[401] = f"Incorrect API key provided: {fake_key}"
        server.error_messages[500] = f"upstream said key={fake_key}"
        server.script["q1"] = ["500"] * 10  # an error response with the key in its text
        for make in (openai_spec, anthropic_spec):
            spec = make(server)
            records = tmp_path / "pred" / spec.name / "records.jsonl"
            result = run_batch(spec, make_requests(3), settings, scope="t/v1", records_path=records)
            write_usage(records.with_name("usage.json"), result.usage)
            assert result.responses[1].error and FAKE_KEY not in result.responses[1].error
            server.script["q1"] = ["500"] * 10
        server.script["q9"] = ["401"]
        with pytest.raises(ScievalsError) as info:
            run_batch(openai_spec(server), make_requests(10), settings, scope="t/v2")
        (tmp_path / "logs" / "error.txt").write_text(info.value.one_line())
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
        handler.close()

    # The key really was sent (so the check below means something) ...
    assert any(FAKE_KEY in str(r["headers"]) for r in server.requests)
    # ... and the run wrote cache entries, records, usage and logs, none with the key.
    assert len(list(settings.cache_dir.rglob("*.json"))) >= 4
    assert log_file.stat().st_size > 0
    assert files_containing(tmp_path, FAKE_KEY) == []
    assert files_containing(tmp_path, "DO-NOT-LEAK") == []
