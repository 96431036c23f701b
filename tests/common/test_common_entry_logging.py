"""Entry-script logging: the job's log file keeps every line; the terminal gets warnings,
errors, the stages' own lines and one line per LLM batch, not httpx's per-request lines nor
the LLM layer's per-batch detail (issue 36, point 4)."""

from __future__ import annotations

import logging

import pytest
from scievals.common.entry import HTTP_LOG_ENV, setup_logging


@pytest.fixture(autouse=True)
def restore_levels():
    saved = {name: logging.getLogger(name).level for name in ("httpx", "httpx2", "httpcore")}
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for name, saved_level in saved.items():
        logging.getLogger(name).setLevel(saved_level)
    for handler in root.handlers:
        if handler not in handlers:
            handler.close()
    root.handlers[:], root.level = handlers, level


def _terminal_and_file(tmp_path, capsys):
    setup_logging(str(tmp_path / "job.log"))
    for name in ("httpx", "httpx2", "httpcore"):  # the SDKs' clients log under these
        logging.getLogger(name).info('HTTP Request: POST http://x/v1/chat "HTTP/1.1 200 OK"')
    logging.getLogger("httpx").warning("a real problem")
    logging.getLogger("scievals.llm").info("minimal_direct: 1/2 done (50 %)")
    logging.getLogger("scievals.llm").info("fake minimal_direct: 2 replies",
                                           extra={"terminal": True})
    logging.getLogger("scievals.gating.predict").info("fake: 2 prompts", extra={"terminal": False})
    logging.getLogger("scievals.gating.curate").info("2 cases")
    logging.getLogger("scievals.common.notices").warning("[gating] limited: a smoke run")
    logging.getLogger("scievals").error("the job failed")
    for handler in logging.getLogger().handlers:
        handler.flush()
    return capsys.readouterr().err, (tmp_path / "job.log").read_text()


def test_the_terminal_gets_the_stages_lines_and_one_line_per_batch(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv(HTTP_LOG_ENV, raising=False)
    terminal, _ = _terminal_and_file(tmp_path, capsys)
    shown = [line.split(": ", 1)[1] for line in terminal.splitlines()]
    # 9 records logged; the three HTTP lines, the per-batch detail, the unmarked-off stage
    # line and the notice (said at the end of the run) stay off the terminal: 4 remain.
    assert shown == ["a real problem", "fake minimal_direct: 2 replies", "2 cases",
                     "the job failed"]


def test_the_log_file_keeps_every_line(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv(HTTP_LOG_ENV, raising=False)
    _, text = _terminal_and_file(tmp_path, capsys)
    assert text.count("HTTP Request: POST") == 3
    for line in ("a real problem", "1/2 done (50 %)", "fake: 2 prompts", "2 cases",
                 "[gating] limited: a smoke run", "the job failed"):
        assert line in text, line


def test_httpx_request_lines_on_the_terminal_when_asked_for(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv(HTTP_LOG_ENV, "1")
    terminal, _ = _terminal_and_file(tmp_path, capsys)
    assert terminal.count("HTTP Request: POST") == 3
