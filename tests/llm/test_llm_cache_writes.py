"""How a cache entry is written (one per answered request, so with few system calls): a
new folder is made on the first write into it, the entry has a plain file's mode, a loser
of a race leaves its temporary file behind nowhere, and a temporary name left by a killed
writer does not stop the next write."""

from __future__ import annotations

import itertools
import os

import pytest
from scievals.llm import cache as cache_module
from scievals.llm.cache import _publish_once


@pytest.fixture
def umask_027():
    previous = os.umask(0o027)
    yield
    os.umask(previous)


def test_first_write_makes_the_folder_and_gives_the_umask_mode(tmp_path, umask_027):
    entry = tmp_path / "openai" / "m" / "ab" / "abc.json"
    assert _publish_once(entry, '{"a": 1}') is True
    assert entry.read_text(encoding="utf-8") == '{"a": 1}'
    # 0o666 less the umask 0o027: rw-r----- = 0o640
    assert entry.stat().st_mode & 0o777 == 0o640
    assert os.listdir(entry.parent) == ["abc.json"]  # no temporary file left


def test_the_second_writer_loses_and_leaves_nothing(tmp_path):
    entry = tmp_path / "ab" / "abc.json"
    assert _publish_once(entry, "first") is True
    assert _publish_once(entry, "second") is False
    assert entry.read_text(encoding="utf-8") == "first"
    assert os.listdir(entry.parent) == ["abc.json"]


def test_a_stale_temporary_name_is_skipped(tmp_path, monkeypatch):
    entry = tmp_path / "abc.json"
    stale = tmp_path / f".abc.json.{os.getpid()}.5.tmp"
    stale.write_text("killed writer", encoding="utf-8")
    monkeypatch.setattr(cache_module, "_SERIAL", itertools.count(5))
    assert _publish_once(entry, "reply") is True
    assert entry.read_text(encoding="utf-8") == "reply"
    assert stale.read_text(encoding="utf-8") == "killed writer"  # not this writer's to remove
