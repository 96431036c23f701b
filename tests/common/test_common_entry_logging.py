"""Entry-script logging: httpx's per-request INFO lines are off unless asked for."""

from __future__ import annotations

import logging

import pytest
from scievals.common.entry import HTTP_LOG_ENV, setup_logging


@pytest.fixture(autouse=True)
def restore_levels():
    saved = {name: logging.getLogger(name).level for name in ("httpx", "httpcore")}
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for name, saved_level in saved.items():
        logging.getLogger(name).setLevel(saved_level)
    for handler in root.handlers:
        if handler not in handlers:
            handler.close()
    root.handlers[:], root.level = handlers, level


def test_httpx_request_lines_are_off_by_default(monkeypatch, tmp_path):
    monkeypatch.delenv(HTTP_LOG_ENV, raising=False)
    setup_logging(str(tmp_path / "job.log"))
    logging.getLogger("httpx").info('HTTP Request: POST http://x/v1/chat "HTTP/1.1 200 OK"')
    logging.getLogger("httpx").warning("a real problem")
    logging.getLogger("scievals").info("job line")
    text = (tmp_path / "job.log").read_text()
    assert "HTTP Request" not in text
    assert "a real problem" in text and "job line" in text


def test_httpx_request_lines_when_asked_for(monkeypatch, tmp_path):
    monkeypatch.setenv(HTTP_LOG_ENV, "1")
    setup_logging(str(tmp_path / "job.log"))
    logging.getLogger("httpx").info("HTTP Request: POST http://x")
    assert "HTTP Request: POST http://x" in (tmp_path / "job.log").read_text()
